/**
 * Server-side apply and update tracking (the apiserver's FieldManager). An apply merges the applied
 * configuration into the live object, removes what this applier applied before and no one owns any more,
 * and fails with 409 when it would change fields other managers own, unless forced. Every other write goes
 * through `trackUpdate`, which gives its manager the fields it changed.
 */
import { conflictError, conflictsOf } from './conflicts.js';
import { badRequest, internalFailure } from './errors.js';
import { FieldSet } from './fieldset.js';
import {
  ManagedFieldsError,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  managerId,
  type ManagedFieldsEntry,
  type Managers,
} from './managed.js';
import {
  ApplyConflicts,
  ownable,
  resetFields,
  restoreSystemMeta,
  transferOwnership,
  withoutManagedFields,
  type TrackContext,
} from './ownership.js';
import { compare, toFieldSet, validateApplied } from './typed.js';
import { dropNulls, mergeValues, pathsToPrune, removePaths } from './typed-merge.js';
import { canonicalJson, deepClone, deepEqual, hasOwn, isObject, setOwn, type JsonObject } from './values.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager whose client-side apply annotation the server keeps in step (lastAppliedUpdater). */
const KUBECTL = 'kubectl';

export interface ApplyRequest extends TrackContext {
  manager: string;
  force: boolean;
  /** `group/version` (or `v1`) of the resource the request addresses. */
  apiVersion: string;
  kind: string;
}

export interface WriteResult {
  object: JsonObject;
  managedFields: ManagedFieldsEntry[];
}

/** Applies `config` (a decoded apply-patch body) to `live`, or to nothing when creating. */
export function serverSideApply(live: JsonObject | null, config: JsonObject, req: ApplyRequest): WriteResult {
  checkConfig(config, req);
  const liveObj = withoutManagedFields(live);
  const managers = decodeOrFail(live);
  const id = managerId({
    manager: req.manager,
    operation: 'Apply',
    apiVersion: req.apiVersion,
    subresource: req.subresource ?? '',
  });
  const previous = managers.get(id);
  const applied = ownable(toFieldSet(config, req.type), req);
  managers.set(id, {
    manager: req.manager,
    operation: 'Apply',
    apiVersion: req.apiVersion,
    subresource: req.subresource ?? '',
    set: applied,
    ...(previous?.time ? { time: previous.time } : {}),
  });

  let next = mergeValues(liveObj, config, req.type) as JsonObject;
  if (previous && !previous.set.isEmpty()) {
    let owned = new FieldSet();
    for (const m of managers.values()) owned = owned.union(m.set);
    const gone = pathsToPrune(next, req.type, previous.set, owned);
    if (!gone.isEmpty()) next = (removePaths(next, gone, req.type) as JsonObject | undefined) ?? {};
  }
  dropNulls(next, req.type);
  restoreSystemMeta(next, liveObj);
  next = resetFields(next, liveObj, req);

  const cmp = compare(liveObj, next, req.type);
  try {
    transferOwnership(cmp, managers, id, req.force, req);
  } catch (err) {
    if (!(err instanceof ApplyConflicts)) throw err;
    const remaining = conflictsBeyondLastApplied(err.byManager, liveObj, req);
    if (remaining.size) throw conflictError(conflictsOf(remaining));
    transferOwnership(cmp, managers, id, true, req);
  }

  const changed = !deepEqual(next, liveObj);
  const object = changed ? next : liveObj;
  const mine = managers.get(id);
  if (mine && changed) mine.time = formatTime(req.now());
  if (req.manager === KUBECTL) syncLastApplied(object, config);
  capUpdateManagers(managers);
  const managedFields = encodeManagedFields(managers);
  setManagedFields(object, managedFields);
  return { object, managedFields };
}

function checkConfig(config: JsonObject, req: ApplyRequest): void {
  const version = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  if (version !== req.apiVersion) {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${version}, expected: ${req.apiVersion}`,
    );
  }
  if (config.kind !== req.kind) {
    throw badRequest(
      `Incorrect kind specified in apply patch. Specified patch kind: ${String(config.kind ?? '')}, expected: ${req.kind}`,
    );
  }
  if (
    isObject(config.metadata) &&
    config.metadata.managedFields !== undefined &&
    config.metadata.managedFields !== null
  ) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const errs = validateApplied(config, req.type);
  if (errs.length) {
    const meta = isObject(config.metadata) ? config.metadata : {};
    const [group, version2] = req.apiVersion.includes('/') ? req.apiVersion.split('/') : ['', req.apiVersion];
    const nn = `${String(meta.namespace ?? '')}/${String(meta.name ?? '')}`;
    const text = errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
    throw internalFailure(
      `failed to create typed patch object (${nn}; ${group}/${version2}, Kind=${req.kind}): ${text}`,
    );
  }
}

function decodeOrFail(live: JsonObject | null): Managers {
  try {
    return decodeManagedFields(isObject(live?.metadata) ? live.metadata.managedFields : undefined);
  } catch (err) {
    if (err instanceof ManagedFieldsError) throw internalFailure(`failed to decode managed fields: ${err.message}`);
    throw err;
  }
}

/**
 * lastAppliedManager: `kubectl apply --server-side` may take over fields that the client-side apply
 * annotation lists (the upgrade from client-side apply); any other conflict still fails.
 */
function conflictsBeyondLastApplied(
  byManager: Map<string, FieldSet>,
  live: JsonObject,
  req: ApplyRequest,
): Map<string, FieldSet> {
  if (req.manager !== KUBECTL) return byManager;
  const text =
    isObject(live.metadata) && isObject(live.metadata.annotations)
      ? live.metadata.annotations[LAST_APPLIED_ANNOTATION]
      : undefined;
  if (typeof text !== 'string' || !text) return byManager;
  let allowed: FieldSet;
  try {
    allowed = toFieldSet(JSON.parse(text), req.type);
  } catch {
    return byManager;
  }
  const out = new Map<string, FieldSet>();
  for (const [id, set] of byManager) {
    const rest = set.difference(allowed);
    if (!rest.isEmpty()) out.set(id, rest);
  }
  return out;
}

/** lastAppliedUpdater: when the object has the client-side apply annotation, it records this apply. */
function syncLastApplied(object: JsonObject, config: JsonObject): void {
  const meta = object.metadata;
  if (!isObject(meta) || !isObject(meta.annotations) || !hasOwn(meta.annotations, LAST_APPLIED_ANNOTATION)) return;
  const recorded = deepClone(config);
  if (isObject(recorded.metadata) && isObject(recorded.metadata.annotations))
    delete recorded.metadata.annotations[LAST_APPLIED_ANNOTATION];
  // NB: Go's encoder sorts keys, escapes <, > and & and ends with a newline; kubectl compares the text.
  const text = `${canonicalJson(recorded).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')}\n`;
  setOwn(meta.annotations, LAST_APPLIED_ANNOTATION, text);
}

function setManagedFields(object: JsonObject, entries: ManagedFieldsEntry[]): void {
  if (!isObject(object.metadata)) setOwn(object, 'metadata', {});
  const meta = object.metadata as JsonObject;
  if (entries.length) meta.managedFields = entries;
  else delete meta.managedFields;
}

/** The manager of a non-apply write whose request named none: the user agent up to the first `/`. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0] ?? '';
}

const CURRENT_OPERATION = 'current-operation';

/**
 * The managedFields of `next` after a create, update or non-apply patch by `manager`: the fields it
 * added or changed become its own and leave other managers. A write that sets `metadata.managedFields`
 * itself (not on a subresource) starts from what it wrote; `[{}]` therefore clears the history.
 */
export function trackUpdate(
  prev: JsonObject | null | undefined,
  next: JsonObject,
  manager: string,
  ctx: TrackContext,
): ManagedFieldsEntry[] {
  const given = isObject(next.metadata) ? next.metadata.managedFields : undefined;
  let managers: Managers | undefined;
  if (!ctx.subresource && Array.isArray(given) && given.length) {
    try {
      managers = decodeManagedFields(given);
    } catch (err) {
      if (!(err instanceof ManagedFieldsError)) throw err;
    }
  }
  if (!managers) {
    try {
      managers = decodeManagedFields(isObject(prev?.metadata) ? prev.metadata.managedFields : undefined);
    } catch (err) {
      if (!(err instanceof ManagedFieldsError)) throw err;
      // Undecodable history: the apiserver leaves managedFields alone rather than fail the write.
      return Array.isArray(given) ? (given as ManagedFieldsEntry[]) : [];
    }
  }
  const before = withoutManagedFields(prev);
  const after = withoutManagedFields(next);
  const cmp = compare(before, after, ctx.type);
  transferOwnership(cmp, managers, CURRENT_OPERATION, true, ctx);
  const mine = ownable(cmp.modified.union(cmp.added), ctx).difference(ownable(cmp.removed, ctx));
  if (!mine.isEmpty()) {
    const apiVersion = typeof next.apiVersion === 'string' ? next.apiVersion : '';
    const id = managerId({ manager, operation: 'Update', apiVersion, subresource: ctx.subresource ?? '' });
    const old = managers.get(id);
    managers.set(id, {
      manager,
      operation: 'Update',
      apiVersion,
      subresource: ctx.subresource ?? '',
      set: old ? mine.union(old.set) : mine,
      time: formatTime(ctx.now()),
    });
  }
  capUpdateManagers(managers);
  return encodeManagedFields(managers);
}
