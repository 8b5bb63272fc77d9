/**
 * Deletion as the generic registry does it: preconditions, propagationPolicy finalizers (orphan,
 * foregroundDeletion), graceful deletion with deletionTimestamp while finalizers remain, and the answer
 * (the object, or a Success Status for kinds that do not return the deleted object).
 */
import type { ResourceType } from '../registry.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { conflict, fieldErrors, invalid, notFound } from '../status-errors.js';
import { groupResource, metaOf, objectKey, type ListOptions, type ObjectStore } from './objects.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

export interface DeleteResult {
  /** The object (with deletionTimestamp when finalizers hold it), or a Success Status. */
  body: JsonObject;
  /** True when the object is gone. */
  deleted: boolean;
}

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

/** Namespaces the server never deletes. */
const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

function finalizersFor(policy: PropagationPolicy | undefined, existing: string[]): string[] {
  if (policy === undefined) return existing;
  const rest = existing.filter((f) => f !== ORPHAN && f !== FOREGROUND);
  if (policy === 'Orphan') return [...rest, ORPHAN];
  if (policy === 'Foreground') return [...rest, FOREGROUND];
  return rest;
}

function parsePolicy(opts: DeleteOptions): PropagationPolicy | undefined {
  const p = opts.propagationPolicy;
  if (p === undefined || p === '') {
    if (opts.orphanDependents === true) return 'Orphan';
    if (opts.orphanDependents === false) return 'Background';
    return undefined;
  }
  if (p !== 'Orphan' && p !== 'Background' && p !== 'Foreground') {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [
      fieldErrors.notSupported('propagationPolicy', p, ['Foreground', 'Background', 'Orphan']),
    ]);
  }
  if (opts.orphanDependents !== undefined) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [
      fieldErrors.invalid('propagationPolicy', p, 'orphanDependents and deletionPropagation cannot be both set'),
    ]);
  }
  return p;
}

/** Graceful period the strategy asks for; 0 means delete now (when no finalizers hold the object). */
function gracePeriod(type: ResourceType, o: JsonObject, opts: DeleteOptions): number {
  if (!(type.group === '' && type.resource === 'pods')) return 0;
  const spec = isObject(o.spec) ? o.spec : {};
  const status = isObject(o.status) ? o.status : {};
  // Unscheduled or finished pods go at once; running ones wait for their kubelet.
  if (!spec.nodeName || status.phase === 'Succeeded' || status.phase === 'Failed') return 0;
  if (opts.gracePeriodSeconds !== undefined) return Math.max(0, opts.gracePeriodSeconds);
  return typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
}

export function deleteObject(
  store: ObjectStore,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions = {},
): DeleteResult {
  store.checkVerb(type, 'delete');
  const stored = store.getStored(type, namespace, name);
  if (!stored) throw notFound(groupResource(type), name);
  // NB: stored objects are shared and immutable; work on a copy.
  const current = JSON.parse(JSON.stringify(store.fromStored(type, stored))) as JsonObject;
  const meta = metaOf(current);
  const pre = opts.preconditions;
  if (pre?.uid !== undefined && pre.uid !== meta.uid) {
    throw conflict(
      groupResource(type),
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`,
    );
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      groupResource(type),
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`,
    );
  }
  const isNamespace = type.group === '' && type.resource === 'namespaces';
  if (isNamespace && PROTECTED_NAMESPACES.has(name))
    store.forbiddenFor(type, name, 'this namespace may not be deleted');
  for (const a of store.admission) a(type, 'delete', current);
  const policy = parsePolicy(opts);
  if (!meta.deletionTimestamp && type.strategy.prepareForDelete) {
    type.strategy.prepareForDelete(current, store.ctx);
    Object.assign(meta, metaOf(current));
  }
  const existing = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
  const finalizers = finalizersFor(policy, existing);
  const specFinalizers =
    isNamespace &&
    isObject(current.spec) &&
    Array.isArray(current.spec.finalizers) &&
    current.spec.finalizers.length > 0;
  const grace = gracePeriod(type, current, opts);
  const key = objectKey(type, namespace, name);

  if (finalizers.length === 0 && !specFinalizers && grace === 0 && !meta.deletionTimestamp) {
    if (opts.dryRun) return { body: current, deleted: true };
    const rv = store.versioned.nextRv();
    const last = { ...current, metadata: { ...meta, resourceVersion: String(rv) } };
    store.versioned.remove(type.storageKey, key, store.toStored(type, last), rv);
    if (type.returnDeletedObject) return { body: store.fromStored(type, store.toStored(type, last)), deleted: true };
    const details: JsonObject = { name };
    if (type.group) details.group = type.group;
    details.kind = type.resource; // NB: the resource, as the real server writes it
    details.uid = meta.uid;
    return { body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, deleted: true };
  }

  // Graceful: mark the object and let finalizers (or the kubelet) finish the job.
  const next = JSON.parse(JSON.stringify(current)) as JsonObject;
  const nm = metaOf(next);
  if (!nm.deletionTimestamp) {
    const at =
      grace > 0
        ? new Date(Math.floor(store.clock.now() / 1000) * 1000 + grace * 1000).toISOString().replace('.000Z', 'Z')
        : store.clock.nowIso();
    nm.deletionTimestamp = at;
    nm.deletionGracePeriodSeconds = grace;
    if (typeof nm.generation === 'number' && nm.generation > 0) nm.generation += 1;
  } else if (grace === 0 && typeof nm.deletionGracePeriodSeconds === 'number' && nm.deletionGracePeriodSeconds > 0) {
    nm.deletionGracePeriodSeconds = 0;
  }
  if (finalizers.length) nm.finalizers = finalizers;
  else delete nm.finalizers;
  if (isNamespace) next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
  if (opts.dryRun) return { body: next, deleted: false };
  if (grace === 0 && finalizers.length === 0 && !specFinalizers) {
    // A second DELETE with gracePeriodSeconds=0 (the kubelet's) removes the pod now.
    const rv = store.versioned.nextRv();
    nm.resourceVersion = String(rv);
    store.versioned.remove(type.storageKey, key, store.toStored(type, next), rv);
    return { body: next, deleted: true };
  }
  const rv = store.versioned.nextRv();
  nm.resourceVersion = String(rv);
  const saved = store.toStored(type, next);
  const unchanged =
    JSON.stringify({ ...current, metadata: { ...meta, resourceVersion: '' } }) ===
    JSON.stringify({ ...next, metadata: { ...nm, resourceVersion: '' } });
  if (unchanged) return { body: current, deleted: false };
  store.versioned.put(type.storageKey, key, saved, rv);
  return { body: store.fromStored(type, saved), deleted: false };
}

/** DELETE on a collection: deletes every match and answers with the list of what it deleted. */
export function deleteCollection(
  store: ObjectStore,
  type: ResourceType,
  list: ListOptions,
  opts: DeleteOptions = {},
): JsonObject[] {
  store.checkVerb(type, 'deletecollection');
  const { items } = store.list(type, { ...list, limit: undefined, continue: undefined });
  const out: JsonObject[] = [];
  for (const item of items) {
    const m = metaOf(item);
    try {
      const r = deleteObject(store, type, m.namespace as string | undefined, String(m.name), {
        ...opts,
        preconditions: undefined,
      });
      out.push(r.body.kind === 'Status' ? item : r.body);
    } catch (e) {
      if ((e as { code?: number }).code !== 404) throw e;
    }
  }
  return out;
}
