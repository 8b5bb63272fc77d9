/**
 * Field ownership bookkeeping shared by apply and by ordinary writes: which paths never count as owned,
 * which parts of an object a subresource may change, and structured-merge-diff's `update` step that moves
 * changed fields away from their previous owners.
 */
import { FieldSet, fieldPE } from './fieldset.js';
import type { Managers } from './managed.js';
import type { Comparison } from './typed.js';
import type { TypeNode } from './types.js';
import { deepClone, hasOwn, isObject, setOwn, type JsonObject } from './values.js';

export interface TrackContext {
  /** Root type of the kind. */
  type: TypeNode;
  /** `status` for writes to the status subresource. */
  subresource?: string;
  /** Whether the kind has a status subresource (then the main resource cannot change `.status`). */
  statusSubresource: boolean;
  now: () => Date;
}

const META = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
];

/** stripMetaManager's set: these paths are never part of anyone's managed fields. */
const STRIPPED = FieldSet.of(
  [fieldPE('apiVersion')],
  [fieldPE('kind')],
  [fieldPE('metadata')],
  ...META.map((m) => [fieldPE('metadata'), fieldPE(m)]),
);

const STATUS = fieldPE('status');
const STATUS_SET = FieldSet.of([STATUS]);

/** Removes stripped paths and the paths this write may not change (its subresource's reset fields). */
export function ownable(set: FieldSet, ctx: TrackContext): FieldSet {
  const s = set.difference(STRIPPED);
  if (ctx.subresource === 'status') return s.only(STATUS);
  if (ctx.statusSubresource) return s.recursiveDifference(STATUS_SET);
  return s;
}

/**
 * Undoes what this write may not change: `.status` on the main resource when status is a subresource,
 * everything but `.status` on the status subresource (the resourceVersion precondition is kept).
 */
export function resetFields(next: JsonObject, live: JsonObject, ctx: TrackContext): JsonObject {
  if (ctx.subresource === 'status') {
    const out = deepClone(live);
    if (hasOwn(next, 'status')) setOwn(out, 'status', next.status);
    else delete out.status;
    const rv = isObject(next.metadata) ? next.metadata.resourceVersion : undefined;
    if (rv !== undefined && isObject(out.metadata)) out.metadata.resourceVersion = rv;
    return out;
  }
  if (ctx.statusSubresource) {
    if (hasOwn(live, 'status')) setOwn(next, 'status', deepClone(live.status));
    else delete next.status;
  }
  return next;
}

/** The object without `metadata.managedFields`, which is tracked apart from the data it describes. */
export function withoutManagedFields(obj: JsonObject | null | undefined): JsonObject {
  const out = obj ? deepClone(obj) : {};
  if (isObject(out.metadata)) delete out.metadata.managedFields;
  return out;
}

export class ApplyConflicts extends Error {
  constructor(readonly byManager: Map<string, FieldSet>) {
    super('apply conflicts');
  }
}

/**
 * structured-merge-diff's update(): fields the write changed are taken from every other manager (or,
 * without `force`, reported as conflicts) and fields it removed are dropped from everyone's set.
 */
export function transferOwnership(
  cmp: Comparison,
  managers: Managers,
  workflowId: string,
  force: boolean,
  ctx: TrackContext,
): void {
  const changed = ownable(cmp.modified.union(cmp.added), ctx);
  const removed = ownable(cmp.removed, ctx);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, m] of managers) {
    if (id === workflowId) continue;
    const c = m.set.intersection(changed);
    if (!c.isEmpty()) conflicts.set(id, c);
  }
  if (!force && conflicts.size) throw new ApplyConflicts(conflicts);
  for (const [id, c] of conflicts) managers.get(id)!.set = managers.get(id)!.set.difference(c);
  if (!removed.isEmpty()) {
    for (const [id, m] of managers) if (id !== workflowId) m.set = m.set.difference(removed);
  }
  for (const [id, m] of managers) if (m.set.isEmpty()) managers.delete(id);
}

/** Metadata the server owns: an update or apply that leaves it out does not clear it. */
const SYSTEM_META = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
];

export function restoreSystemMeta(next: JsonObject, live: JsonObject): void {
  if (!isObject(live.metadata)) return;
  if (!isObject(next.metadata)) setOwn(next, 'metadata', {});
  const meta = next.metadata as JsonObject;
  for (const k of SYSTEM_META) {
    if ((meta[k] === undefined || meta[k] === null) && live.metadata[k] !== undefined)
      setOwn(meta, k, live.metadata[k]);
  }
}
