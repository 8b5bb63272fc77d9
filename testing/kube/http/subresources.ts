/** The /scale (autoscaling/v1 Scale) and /log (Pod logs) subresources. */
import { applyPatch } from '../patch/index.js';
import { evalJsonPath, setSimplePath } from '../jsonpath.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { metaOf } from '../store/objects.js';
import { badRequest, conflict, fieldErrors, invalid, notFound, OPTIMISTIC_LOCK_MESSAGE } from '../status-errors.js';
import { intParam, ns, query, type LogFollow, type RouteContext } from './context.js';
import { parseObjectBody, readBody, readRaw, sendJson } from './respond.js';
import { writeOptions } from './write.js';

function scaleOf(ctx: RouteContext, o: JsonObject): JsonObject {
  const sc = ctx.type.subresources.scale!;
  const m = metaOf(o);
  const specReplicas = evalJsonPath(o, sc.specReplicasPath)[0];
  const statusReplicas = evalJsonPath(o, sc.statusReplicasPath)[0];
  const status: JsonObject = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (sc.labelSelectorPath) {
    const sel = evalJsonPath(o, sc.labelSelectorPath)[0];
    if (typeof sel === 'string' && sel) status.selector = sel;
  }
  // Built-in Deployments and ReplicaSets report their selector from spec.selector.
  if (ctx.type.builtin && !status.selector) {
    const ml =
      isObject(o.spec) && isObject(o.spec.selector) && isObject(o.spec.selector.matchLabels)
        ? o.spec.selector.matchLabels
        : {};
    const s = Object.entries(ml)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    if (s) status.selector = s;
  }
  const metadata: JsonObject = {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    creationTimestamp: m.creationTimestamp,
  };
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}

function current(ctx: RouteContext): JsonObject {
  return JSON.parse(JSON.stringify(ctx.deps.store.get(ctx.type, ns(ctx), ctx.info.name))) as JsonObject;
}

export function handleGetScale(ctx: RouteContext): void {
  sendJson(ctx.res, 200, scaleOf(ctx, current(ctx)));
}

/** Writes `replicas` into the object (honouring a resourceVersion precondition) and answers the new Scale. */
function writeReplicas(ctx: RouteContext, obj: JsonObject, scale: JsonObject): void {
  const { store } = ctx.deps;
  const m = isObject(scale.metadata) ? scale.metadata : {};
  if (m.resourceVersion && m.resourceVersion !== metaOf(obj).resourceVersion) {
    throw conflict({ group: ctx.type.group, resource: ctx.type.resource }, ctx.info.name, OPTIMISTIC_LOCK_MESSAGE);
  }
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('autoscaling', 'Scale', ctx.info.name, [
      fieldErrors.invalid('spec.replicas', replicas ?? null, 'must be greater than or equal to 0'),
    ]);
  }
  const next = JSON.parse(JSON.stringify(obj)) as JsonObject;
  setSimplePath(next, ctx.type.subresources.scale!.specReplicasPath, replicas);
  const prepared = store.prepareUpdate(ctx.type, obj, next);
  const opts = writeOptions(ctx, 'UpdateOptions');
  // NB: managedFields entries of scale writes carry subresource "scale", as the apiserver records them.
  const r = store.commitUpdate(ctx.type, obj, prepared, { ...opts, subresource: 'scale' });
  sendJson(ctx.res, 200, scaleOf(ctx, r.object));
}

export async function handleUpdateScale(ctx: RouteContext): Promise<void> {
  const body = parseObjectBody(await readRaw(ctx.req), ctx.req.headers['content-type']);
  if (!isObject(body)) throw badRequest('the object provided is unrecognized (must be of type Scale)');
  writeReplicas(ctx, current(ctx), body);
}

export async function handlePatchScale(ctx: RouteContext): Promise<void> {
  const raw = await readBody(ctx.req);
  const obj = current(ctx);
  const scale = scaleOf(ctx, obj);
  const r = applyPatch({
    patchType: ctx.req.headers['content-type'] ?? '',
    current: scale,
    patch: raw,
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale', builtin: true },
    fieldManager: query(ctx, 'fieldManager') ?? undefined,
    userAgent: ctx.req.headers['user-agent'],
  });
  writeReplicas(ctx, obj, r.object);
}

export function handleLog(ctx: RouteContext): void {
  const pod = ctx.deps.store.get(ctx.type, ns(ctx), ctx.info.name);
  const spec = isObject(pod.spec) ? pod.spec : {};
  const containers = (Array.isArray(spec.containers) ? spec.containers : []).map((c) => String((c as JsonObject).name));
  let container = query(ctx, 'container') ?? '';
  if (!container) {
    if (containers.length !== 1) {
      throw badRequest(
        `a container name must be specified for pod ${ctx.info.name}, choose one of: [${containers.join(' ')}]`,
      );
    }
    container = containers[0]!;
  } else if (!containers.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${ctx.info.name}`);
  }
  const provider = ctx.deps.logs.provider;
  const text = provider?.(String(metaOf(pod).namespace), ctx.info.name, container, {
    tailLines: intParam(ctx, 'tailLines'),
    previous: query(ctx, 'previous') === 'true',
  });
  if (text === undefined) {
    if (query(ctx, 'previous') === 'true')
      throw badRequest(`previous terminated container "${container}" in pod "${ctx.info.name}" not found`);
    const status = isObject(pod.status) ? pod.status : {};
    const cs = (Array.isArray(status.containerStatuses) ? status.containerStatuses : []).find(
      (c) => isObject(c) && c.name === container,
    );
    const waiting = isObject(cs) && isObject(cs.state) && isObject(cs.state.waiting) ? cs.state.waiting : undefined;
    if (status.phase === 'Pending' || !status.phase || waiting) {
      throw badRequest(
        `container "${container}" in pod "${ctx.info.name}" is waiting to start: ${String(waiting?.reason ?? 'ContainerCreating')}`,
      );
    }
    throw notFound({ group: '', resource: 'pods/log' }, ctx.info.name);
  }
  const follow = ctx.deps.logs.follow;
  if (query(ctx, 'follow') === 'true' && follow && query(ctx, 'previous') !== 'true') {
    followLog(ctx, follow, String(metaOf(pod).namespace), container, text);
    return;
  }
  ctx.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  ctx.res.end(text);
}

/** Sends what there is, then new output as it comes, until the container stops or the client leaves. */
function followLog(ctx: RouteContext, follow: LogFollow, namespace: string, container: string, text: string): void {
  const res = ctx.res;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  res.write(text);
  const stop = follow(namespace, ctx.info.name, container, {
    data: (t) => res.write(t),
    end: () => res.end(),
  });
  ctx.req.on('close', stop);
  res.on('close', stop);
}
