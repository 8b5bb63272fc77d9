/**
 * `metadata.managedFields` as the apiserver reads and writes it: one entry per manager identity
 * (manager, operation, apiVersion for updates, subresource), FieldsV1 sets, entries sorted Apply first
 * and then by time, and at most ten update entries (older ones fold into `ancient-changes`).
 */
import { FieldSet, FieldSetError } from './fieldset.js';
import { isObject, type JsonObject } from './values.js';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: JsonObject;
  subresource?: string;
}

export interface ManagerState {
  manager: string;
  operation: 'Apply' | 'Update' | '';
  apiVersion: string;
  subresource: string;
  set: FieldSet;
  time?: string;
}

/** Managers by identity (the JSON the apiserver uses as a map key). */
export type Managers = Map<string, ManagerState>;

/** @default 10 — DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';

/** BuildManagerIdentifier: the entry without time and fields, and without apiVersion for appliers. */
export function managerId(m: Pick<ManagerState, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: Record<string, string> = {};
  if (m.manager) id.manager = m.manager;
  if (m.operation) id.operation = m.operation;
  if (m.apiVersion && m.operation !== 'Apply') id.apiVersion = m.apiVersion;
  if (m.subresource) id.subresource = m.subresource;
  return JSON.stringify(id);
}

export class ManagedFieldsError extends Error {}

/** Decodes managedFields; throws ManagedFieldsError when an entry is malformed. */
export function decodeManagedFields(list: unknown): Managers {
  const out: Managers = new Map();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new ManagedFieldsError('metadata.managedFields must be a list');
  for (const raw of list) {
    if (!isObject(raw)) throw new ManagedFieldsError('metadata.managedFields entries must be objects');
    const op = raw.operation ?? '';
    if (op !== 'Apply' && op !== 'Update' && op !== '')
      throw new ManagedFieldsError(`invalid operation ${JSON.stringify(op)}: must be "Apply" or "Update"`);
    if (raw.fieldsType !== undefined && raw.fieldsType !== 'FieldsV1' && raw.fieldsType !== '') {
      throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(raw.fieldsType)}: must be "FieldsV1"`);
    }
    let set: FieldSet;
    try {
      set = raw.fieldsV1 === undefined || raw.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(raw.fieldsV1);
    } catch (err) {
      if (err instanceof FieldSetError) throw new ManagedFieldsError(`error decoding set: ${err.message}`);
      throw err;
    }
    const state: ManagerState = {
      manager: str(raw.manager),
      operation: op,
      apiVersion: str(raw.apiVersion),
      subresource: str(raw.subresource),
      set,
    };
    if (typeof raw.time === 'string' && raw.time) state.time = raw.time;
    out.set(managerId(state), state);
  }
  return out;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Encodes the managers that still own something, in the apiserver's order. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const states = [...managers.values()].filter((m) => !m.set.isEmpty());
  states.sort(compareEntries);
  return states.map((m) => {
    const e: ManagedFieldsEntry = {};
    if (m.manager) e.manager = m.manager;
    if (m.operation) e.operation = m.operation;
    if (m.apiVersion) e.apiVersion = m.apiVersion;
    if (m.time) e.time = m.time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (m.subresource) e.subresource = m.subresource;
    return e;
  });
}

function seconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareEntries(p: ManagerState, q: ManagerState): number {
  return (
    cmp(p.operation, q.operation) ||
    seconds(p.time) - seconds(q.time) ||
    cmp(p.manager, q.manager) ||
    cmp(p.apiVersion, q.apiVersion) ||
    cmp(p.subresource, q.subresource)
  );
}

/** capManagersManager: folds the oldest update entries into per-version `ancient-changes` buckets. */
export function capUpdateManagers(managers: Managers, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managers.entries()].filter(([, m]) => m.operation !== 'Apply');
  if (updaters.length <= max) return;
  updaters.sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || cmp(ia, ib));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (const [id, m] of updaters) {
    if (length <= max) break;
    const bucketState = {
      manager: ANCIENT_CHANGES,
      operation: 'Update' as const,
      apiVersion: m.apiVersion,
      subresource: '',
    };
    const bucket = managerId(bucketState);
    const first = firstByVersion.get(m.apiVersion);
    if (first === undefined) {
      firstByVersion.set(m.apiVersion, id);
      continue;
    }
    if (!managers.has(bucket)) {
      const s = managers.get(first)!;
      managers.delete(first);
      managers.set(bucket, { ...bucketState, set: s.set, ...(s.time ? { time: s.time } : {}) });
    }
    const b = managers.get(bucket)!;
    b.set = m.set.union(b.set);
    if (m.time) b.time = m.time;
    else delete b.time;
    managers.delete(id);
    length--;
  }
}

/** RFC 3339 at second precision, as metav1.Time marshals. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
