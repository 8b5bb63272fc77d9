/**
 * `createOrUpdate`: makes an object the operator owns look as desired, writing only when a field we own
 * differs, so that a steady state makes no requests at all.
 *
 * What "we own" means: every top-level field of the desired object but `metadata` and `status` (`spec`,
 * `data`, `rules`, `subjects`, `roleRef`, `type`), the labels and annotations we set, and our controller
 * ownerReference. Fields the API server defaults or allocates (a Deployment's `progressDeadlineSeconds`, a
 * Service's `clusterIP`, a container's `terminationMessagePath`) are not ours: the comparison asks whether
 * the desired value is *contained* in the stored one, not equal to it. A removal (an env var, the TLS volume)
 * is seen through the `steward.dev/applied-hash` annotation, the hash of what we last applied.
 */
import { GROUP } from '../../api/constants.js';
import type { KubeClient, KubeObject, OwnerReference } from '../../platform/kube/client.js';
import { isAlreadyExists } from '../../platform/kube/errors.js';
import type { ResourceRef } from '../../platform/kube/resources.js';
import { TerminalError } from '../manager/types.js';
import { hashOf } from './hash.js';
import type { DesiredObject } from './meta.js';

export type ApplyResult = 'created' | 'updated' | 'unchanged';

/** Hash of the owned fields last written, so that a field we stop setting is removed. */
export const APPLIED_HASH_ANNOTATION = `${GROUP}/applied-hash`;

/** Server-allocated fields kept from the stored object on update (they are immutable once set). */
const ALLOCATED: Record<string, Record<string, readonly string[]>> = {
  Service: { spec: ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'] },
};

const NOT_OWNED = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * Creates `desired`, or updates `existing` (the cached object, undefined when the cache has none) when a field we
 * own differs. AlreadyExists (a stale cache) re-reads and updates; a 409 Conflict on update is thrown, so the
 * reconcile is retried against a fresher cache. An object of the same name controlled by something else is a
 * TerminalError: we do not take it over. Every call carries `signal` (the reconcile's).
 */
export async function createOrUpdate(
  client: KubeClient,
  ref: ResourceRef,
  desired: DesiredObject,
  existing: KubeObject | undefined,
  signal?: AbortSignal,
): Promise<ApplyResult> {
  const applied = withAppliedHash(desired);
  if (!existing) {
    try {
      await client.create(ref, applied, { signal });
      return 'created';
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      existing = await client.get(ref, desired.metadata.namespace, desired.metadata.name, { signal });
    }
  }
  checkController(existing, desired);
  if (isUpToDate(applied, existing)) return 'unchanged';
  await client.replace(ref, merged(applied, existing), { signal });
  return 'updated';
}

/** Deletes an object we made (controller ownerReference with `ownerUid`) when it exists; true when it did. */
export async function deleteOwned(
  client: KubeClient,
  ref: ResourceRef,
  existing: KubeObject | undefined,
  ownerUid: string | undefined,
  signal?: AbortSignal,
): Promise<boolean> {
  if (!existing || existing.metadata.deletionTimestamp) return false;
  if (!existing.metadata.ownerReferences?.some((r) => r.controller && r.uid === ownerUid)) return false;
  return client.delete(ref, existing.metadata.namespace, existing.metadata.name!, {
    uid: existing.metadata.uid,
    signal,
  });
}

/** True when every field we own in `desired` is contained in `existing` and the applied hash matches. */
export function isUpToDate(desired: DesiredObject, existing: KubeObject): boolean {
  const d = desired.metadata;
  const e = existing.metadata;
  if (!contains(d.labels ?? {}, e.labels ?? {}) || !contains(d.annotations ?? {}, e.annotations ?? {})) return false;
  if (
    !(d.ownerReferences ?? []).every((o) =>
      (e.ownerReferences ?? []).some((x) => sameOwner(o, x) && x.controller === o.controller),
    )
  )
    return false;
  return ownedKeys(desired).every((k) => contains(desired[k], existing[k]));
}

/**
 * Whether `want` is contained in `have`: objects by key (extra keys in `have` are defaults), arrays element by
 * element with equal lengths, scalars by equality.
 */
export function contains(want: unknown, have: unknown): boolean {
  if (want === undefined) return true;
  if (typeof want === 'string' && typeof have === 'string' && want !== have) return sameQuantity(want, have);
  if (want === null || typeof want !== 'object') return want === have;
  if (Array.isArray(want))
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(w, have[i]));
  if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
  const h = have as Record<string, unknown>;
  return Object.entries(want as Record<string, unknown>).every(([k, v]) => contains(v, h[k]));
}

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+)?$/;
const SUFFIX: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * Equal Kubernetes quantities: the API server stores resources in canonical form (`0.5` reads back `500m`,
 * `1024Mi` as `1Gi`). NB: only drift detection is lenient; a change of what we want still moves the applied
 * hash and is written.
 */
function sameQuantity(a: string, b: string): boolean {
  const value = (q: string): number | undefined => {
    const m = QUANTITY.exec(q);
    if (!m) return undefined;
    const suffix = m[2] ?? '';
    const scale = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : (SUFFIX[suffix] ?? 1);
    return Number(m[1]) * scale;
  };
  const x = value(a);
  const y = value(b);
  return x !== undefined && y !== undefined && Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x));
}

function ownedKeys(o: KubeObject): string[] {
  return Object.keys(o).filter((k) => !NOT_OWNED.has(k) && o[k] !== undefined);
}

function withAppliedHash(desired: DesiredObject): DesiredObject {
  const owned = Object.fromEntries(ownedKeys(desired).map((k) => [k, desired[k]]));
  const h = hashOf(owned, desired.metadata.labels, desired.metadata.annotations);
  return {
    ...desired,
    metadata: { ...desired.metadata, annotations: { ...desired.metadata.annotations, [APPLIED_HASH_ANNOTATION]: h } },
  };
}

/** The stored object with our fields replaced: theirs (labels, annotations, other owners) kept. */
function merged(desired: DesiredObject, existing: KubeObject): KubeObject {
  const owners = [
    ...(existing.metadata.ownerReferences ?? []).filter(
      (x) => !(desired.metadata.ownerReferences ?? []).some((o) => sameOwner(o, x)),
    ),
    ...(desired.metadata.ownerReferences ?? []),
  ];
  const next: KubeObject = {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata.labels, ...desired.metadata.labels },
      annotations: { ...existing.metadata.annotations, ...desired.metadata.annotations },
      ownerReferences: owners,
    },
  };
  const keep = ALLOCATED[desired.kind] ?? {};
  for (const k of ownedKeys(desired)) {
    const value = desired[k];
    const kept = keep[k];
    const stored = existing[k] as Record<string, unknown> | undefined;
    next[k] =
      kept && stored && value && typeof value === 'object'
        ? {
            ...Object.fromEntries(kept.filter((f) => stored[f] !== undefined).map((f) => [f, stored[f]])),
            ...(value as Record<string, unknown>),
          }
        : value;
  }
  return next;
}

function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return a.uid === b.uid && a.kind === b.kind && a.name === b.name;
}

function checkController(existing: KubeObject, desired: DesiredObject): void {
  const ours = desired.metadata.ownerReferences?.find((o) => o.controller);
  const theirs = existing.metadata.ownerReferences?.find((o) => o.controller);
  if (ours && theirs && !sameOwner(ours, theirs)) {
    throw new TerminalError(
      `${desired.kind} ${desired.metadata.namespace}/${desired.metadata.name} exists and is controlled by ${theirs.kind} ${theirs.name}`,
    );
  }
}
