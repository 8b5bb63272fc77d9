/** POST, PUT, DELETE (one object or a collection) over the object store. */
import type { JsonObject } from '../schema/types.js';
import { isObject } from '../schema/types.js';
import { parseFieldValidation } from '../store/decode.js';
import { deleteCollection, deleteObject, type DeleteOptions } from '../store/delete.js';
import { badRequest, fieldErrors, invalid } from '../status-errors.js';
import { boolParam, intParam, ns, query, type RouteContext } from './context.js';
import { parseObjectBody, readRaw, sendJson, warningHeader } from './respond.js';

/** dryRun accepts only `All` (as the real server validates it). */
export function dryRun(ctx: RouteContext, kind: string): boolean {
  const values = ctx.url.searchParams.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') throw invalid('meta.k8s.io', kind, '', [fieldErrors.notSupported('dryRun', values, ['All'])]);
  }
  return true;
}

export function writeOptions(ctx: RouteContext, optionsKind: string) {
  return {
    dryRun: dryRun(ctx, optionsKind),
    // NB: the server's default is Warn; kubectl asks for Strict explicitly.
    fieldValidation: parseFieldValidation(query(ctx, 'fieldValidation'), 'Warn'),
    fieldManager: query(ctx, 'fieldManager') ?? undefined,
    userAgent: ctx.req.headers['user-agent'],
  };
}

export function warningHeaders(warnings: string[]): Record<string, string[]> {
  return warnings.length ? { Warning: warnings.map(warningHeader) } : {};
}

export async function handleCreate(ctx: RouteContext): Promise<void> {
  const body = parseObjectBody(await readRaw(ctx.req), ctx.req.headers['content-type']);
  const r = ctx.deps.store.create(ctx.type, ns(ctx), body, writeOptions(ctx, 'CreateOptions'));
  sendJson(ctx.res, 201, r.object, warningHeaders(r.warnings));
}

export async function handleUpdate(ctx: RouteContext, subresource?: 'status'): Promise<void> {
  const body = parseObjectBody(await readRaw(ctx.req), ctx.req.headers['content-type']);
  const r = ctx.deps.store.update(ctx.type, ns(ctx), ctx.info.name, body, {
    ...writeOptions(ctx, 'UpdateOptions'),
    subresource,
  });
  sendJson(ctx.res, r.created ? 201 : 200, r.object, warningHeaders(r.warnings));
}

/** DeleteOptions from the body (kubectl sends one) merged with query parameters. */
async function deleteOptions(ctx: RouteContext): Promise<DeleteOptions> {
  const raw = await readRaw(ctx.req);
  let body: JsonObject = {};
  if (raw.toString('utf8').trim()) {
    const parsed = parseObjectBody(raw, ctx.req.headers['content-type'] || 'application/json');
    if (!isObject(parsed)) throw badRequest('DeleteOptions must be an object');
    body = parsed;
  }
  const opts: DeleteOptions = {};
  const pre = isObject(body.preconditions) ? body.preconditions : undefined;
  if (pre)
    opts.preconditions = {
      uid: pre.uid as string | undefined,
      resourceVersion: pre.resourceVersion as string | undefined,
    };
  const policy = query(ctx, 'propagationPolicy') ?? (body.propagationPolicy as string | undefined);
  if (policy) opts.propagationPolicy = policy;
  const grace =
    intParam(ctx, 'gracePeriodSeconds') ??
    (typeof body.gracePeriodSeconds === 'number' ? body.gracePeriodSeconds : undefined);
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const orphan = query(ctx, 'orphanDependents');
  if (orphan !== null) opts.orphanDependents = boolParam(orphan);
  else if (typeof body.orphanDependents === 'boolean') opts.orphanDependents = body.orphanDependents;
  const bodyDry = Array.isArray(body.dryRun) && body.dryRun.includes('All');
  opts.dryRun = dryRun(ctx, 'DeleteOptions') || bodyDry;
  return opts;
}

export async function handleDelete(ctx: RouteContext): Promise<void> {
  const opts = await deleteOptions(ctx);
  const r = deleteObject(ctx.deps.store, ctx.type, ns(ctx), ctx.info.name, opts);
  const accepted = !r.deleted && opts.orphanDependents === false;
  sendJson(ctx.res, accepted ? 202 : 200, r.body);
}

export async function handleDeleteCollection(ctx: RouteContext): Promise<void> {
  const opts = await deleteOptions(ctx);
  const items = deleteCollection(
    ctx.deps.store,
    ctx.type,
    {
      namespace: ns(ctx),
      labelSelector: query(ctx, 'labelSelector') ?? undefined,
      fieldSelector: query(ctx, 'fieldSelector') ?? undefined,
    },
    opts,
  );
  const t = ctx.type;
  sendJson(ctx.res, 200, {
    kind: t.listKind,
    apiVersion: t.group ? `${t.group}/${t.version}` : t.version,
    metadata: { resourceVersion: String(ctx.deps.store.versioned.currentRv) },
    items,
  });
}
