/**
 * PATCH (JSON patch, merge patch, strategic merge patch, server-side apply) on an object or its status.
 * The patch module computes the patched object and its managedFields; this route decodes it like any
 * body (unknown fields, defaults), checks name, namespace and resourceVersion, and stores it.
 */
import { applyPatch } from '../patch/index.js';
import { type JsonObject } from '../schema/types.js';
import { decodeBody } from '../store/decode.js';
import { metaOf } from '../store/objects.js';
import { badRequest, conflict, OPTIMISTIC_LOCK_MESSAGE } from '../status-errors.js';
import { boolParam, ns, query, type RouteContext } from './context.js';
import { readBody, sendJson } from './respond.js';
import { warningHeaders, writeOptions } from './write.js';

export async function handlePatch(ctx: RouteContext, subresource?: 'status'): Promise<void> {
  const { store } = ctx.deps;
  const type = ctx.type;
  store.checkVerb(type, 'patch');
  const raw = await readBody(ctx.req);
  const opts = writeOptions(ctx, 'PatchOptions');
  const forceParam = query(ctx, 'force');
  const namespace = ns(ctx);
  const name = ctx.info.name;
  const stored = store.getStored(type, namespace, name);
  const current = stored ? (JSON.parse(JSON.stringify(store.fromStored(type, stored))) as JsonObject) : null;
  const result = applyPatch({
    patchType: ctx.req.headers['content-type'] ?? '',
    current,
    patch: raw,
    kind: { group: type.group, version: type.version, kind: type.kind, builtin: type.builtin },
    schema: type.builtin ? undefined : type.schema,
    fieldManager: opts.fieldManager,
    force: forceParam === null ? undefined : boolParam(forceParam),
    subresource,
    isCreate: current === null,
    statusSubresource: type.subresources.status,
    userAgent: ctx.req.headers['user-agent'],
    now: () => new Date(store.clock.now()),
  });
  const decoded = decodeBody(type, result.object, opts.fieldValidation, 'patch');
  const obj = decoded.obj;
  const meta = metaOf(obj);
  if (meta.name !== undefined && meta.name !== name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  }
  meta.name = name;
  if (type.namespaced && meta.namespace !== undefined && meta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (current === null) {
    // Server-side apply of an object that does not exist creates it.
    const r = store.create(type, namespace, obj, { ...opts, fieldValidation: 'Ignore', keepManagedFields: true });
    sendJson(ctx.res, 201, r.object, warningHeaders(decoded.warnings));
    return;
  }
  const currentRv = metaOf(current).resourceVersion;
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== currentRv) {
    throw conflict({ group: type.group, resource: type.resource }, name, OPTIMISTIC_LOCK_MESSAGE);
  }
  const next = store.prepareUpdate(type, current, obj, subresource);
  // The patch module owns managedFields: what it returns replaces the old entries, and none clears them
  // (`kubectl patch -p '{"metadata":{"managedFields":[{}]}}'` resets ownership as on a real server).
  if (meta.managedFields !== undefined) metaOf(next).managedFields = meta.managedFields;
  else delete metaOf(next).managedFields;
  for (const a of store.admission) a(type, 'update', next);
  const r = store.commitUpdate(type, current, next, { ...opts, subresource, keepManagedFields: true });
  sendJson(ctx.res, 200, r.object, warningHeaders(decoded.warnings));
}
