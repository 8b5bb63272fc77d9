/**
 * Status writes through the /status subresource. Two ways, one per kind of writer:
 * - `updateStatus`: read, compute, replace with the resourceVersion read, and on 409 read again and
 *   recompute (for fields several writers share, such as one entry per pod in a list);
 * - `patchStatus`: a merge patch of the fields one writer owns alone (no conflict is possible).
 * Both skip the write when nothing changed, so a steady state makes no requests.
 */
import type { KubeClient, KubeObject } from './client.js';
import { isConflict, isNotFound } from './errors.js';
import type { ResourceRef } from './resources.js';

export type StatusWrite = 'updated' | 'unchanged' | 'gone';

/** Deep equality of JSON values, key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  if (keys.length !== Object.keys(bo).filter((k) => bo[k] !== undefined).length) return false;
  return keys.every((k) => jsonEqual(ao[k], bo[k]));
}

/**
 * Reads the object (or takes `current`), lets `compute` return the whole new status (undefined: no change
 * wanted), and replaces it when it differs. A 409 re-reads and recomputes, up to `attempts` times.
 */
export async function updateStatus<T extends KubeObject & { status?: unknown }>(
  client: KubeClient,
  ref: ResourceRef,
  namespace: string,
  name: string,
  compute: (obj: T) => T['status'] | undefined,
  opts: { current?: T; attempts?: number; fieldManager?: string; signal?: AbortSignal } = {},
): Promise<StatusWrite> {
  let obj = opts.current;
  const attempts = opts.attempts ?? 5;
  for (let i = 0; ; i++) {
    if (!obj) {
      obj = await client.tryGet<T>(ref, namespace, name, { signal: opts.signal });
      if (!obj) return 'gone';
    }
    const next = compute(obj);
    if (next === undefined || jsonEqual(next, obj.status)) return 'unchanged';
    try {
      await client.replaceStatus(
        ref,
        { ...obj, status: next },
        { fieldManager: opts.fieldManager, signal: opts.signal },
      );
      return 'updated';
    } catch (err) {
      if (isNotFound(err)) return 'gone';
      if (!isConflict(err) || i + 1 >= attempts) throw err;
      obj = undefined;
    }
  }
}

/** Merge-patches `fields` into status when they differ from `current` (the cached object). */
export async function patchStatus(
  client: KubeClient,
  ref: ResourceRef,
  current: KubeObject & { status?: Record<string, unknown> },
  fields: Record<string, unknown>,
  opts: { fieldManager?: string; signal?: AbortSignal } = {},
): Promise<StatusWrite> {
  const status = current.status ?? {};
  if (Object.entries(fields).every(([k, v]) => jsonEqual(v === null ? undefined : v, status[k]))) return 'unchanged';
  try {
    await client.patch(
      ref,
      current.metadata.namespace,
      current.metadata.name!,
      { status: fields },
      { subresource: 'status', fieldManager: opts.fieldManager, signal: opts.signal },
    );
    return 'updated';
  } catch (err) {
    if (isNotFound(err)) return 'gone';
    throw err;
  }
}
