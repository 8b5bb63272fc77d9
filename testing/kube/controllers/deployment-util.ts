/**
 * Pure pieces of the Deployment controller (pkg/controller/deployment/util): the pod-template-hash,
 * revisions and annotations, maxSurge/maxUnavailable fenceposts, the replica arithmetic of a rolling
 * update and of proportional scaling. No I/O here; `deployment.ts` gathers and applies, the status
 * lives in `deployment-status.ts`.
 */
import { jsonEqual, type JsonObject } from '../schema/types.js';
import { meta, obj, scaledValue } from './util.js';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

/** Deployment annotations that never reach a ReplicaSet (annotationsToSkip upstream). */
const SKIPPED_ANNOTATIONS = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

/** Alphabet of rand.SafeEncodeString: no vowels, no 0/1/3 (avoids bad words and look-alikes). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with sorted keys: the stable serialisation the hash is taken over. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as JsonObject;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function fnv32a(s: string, h = 0x811c9dc5): number {
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * ComputeHash: FNV-32a of the template (then of the collision count, when set), its decimal digits
 * mapped through the safe alphabet. Upstream hashes Go's spew dump of the struct; a canonical JSON
 * keeps the same properties (stable, template-dependent, collision count moves it).
 */
export function podTemplateHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(canonical(template));
  if (collisionCount !== undefined) h = fnv32a(String(collisionCount), h);
  return [...String(h)].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join('');
}

function withoutHash(template: unknown): JsonObject {
  const t = JSON.parse(JSON.stringify(obj(template))) as JsonObject;
  const labels = obj(obj(t.metadata).labels);
  delete labels[HASH_LABEL];
  return t;
}

/** EqualIgnoreHash: templates equal apart from the pod-template-hash label. */
export function sameTemplate(a: unknown, b: unknown): boolean {
  return jsonEqual(withoutHash(a), withoutHash(b));
}

export function revisionOf(rs: JsonObject): number {
  const n = Number(obj(meta(rs).annotations)[REVISION] ?? 0);
  return Number.isFinite(n) ? n : 0;
}

export function replicasOf(o: JsonObject): number {
  return Number(obj(o.spec).replicas ?? 0);
}

export function statusCount(o: JsonObject | undefined, field: string): number {
  return o ? Number(obj(o.status)[field] ?? 0) : 0;
}

export function sum(rss: JsonObject[], f: (rs: JsonObject) => number): number {
  return rss.reduce((n, rs) => n + f(rs), 0);
}

export function isRollingUpdate(d: JsonObject): boolean {
  return obj(obj(d.spec).strategy).type !== 'Recreate';
}

/** ResolveFenceposts: maxSurge rounds up, maxUnavailable down; both 0 means maxUnavailable 1. */
export function fenceposts(d: JsonObject): { maxSurge: number; maxUnavailable: number } {
  const ru = obj(obj(obj(d.spec).strategy).rollingUpdate);
  const replicas = replicasOf(d);
  const maxSurge = scaledValue(ru.maxSurge ?? '25%', replicas, true);
  let maxUnavailable = scaledValue(ru.maxUnavailable ?? '25%', replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** MaxUnavailable(deployment): 0 for Recreate and for 0 replicas, never more than replicas. */
export function maxUnavailable(d: JsonObject): number {
  if (!isRollingUpdate(d) || replicasOf(d) === 0) return 0;
  return Math.min(fenceposts(d).maxUnavailable, replicasOf(d));
}

/** MaxSurge(deployment): 0 for Recreate. */
export function maxSurge(d: JsonObject): number {
  return isRollingUpdate(d) ? fenceposts(d).maxSurge : 0;
}

/** NewRSNewReplicas: how many replicas the new ReplicaSet should have now. */
export function newRSReplicas(d: JsonObject, all: JsonObject[], newRS: JsonObject | undefined): number {
  const want = replicasOf(d);
  if (!isRollingUpdate(d)) return want;
  const current = newRS ? replicasOf(newRS) : 0;
  const podCount = sum(all, replicasOf);
  const maxTotal = want + fenceposts(d).maxSurge;
  if (podCount >= maxTotal) return current;
  return Math.min(current + maxTotal - podCount, want);
}

/** SetNewReplicaSetAnnotations: the Deployment's own annotations (minus skipped ones) and the revision. */
export function revisionAnnotations(d: JsonObject, revision: number, existing: JsonObject = {}): JsonObject {
  const out: JsonObject = { ...existing };
  for (const [k, v] of Object.entries(obj(meta(d).annotations))) if (!SKIPPED_ANNOTATIONS.has(k)) out[k] = v;
  out[REVISION] = String(revision);
  return out;
}

/** SetReplicasAnnotations: the spec.replicas and replicas + maxSurge a ReplicaSet was last sized for. */
export function replicasAnnotations(d: JsonObject, existing: JsonObject): JsonObject {
  return {
    ...existing,
    [DESIRED_REPLICAS]: String(replicasOf(d)),
    [MAX_REPLICAS]: String(replicasOf(d) + maxSurge(d)),
  };
}

function createdAt(rs: JsonObject): number {
  return Date.parse(String(meta(rs).creationTimestamp ?? '')) || 0;
}

function annotationNumber(rs: JsonObject, key: string): number | undefined {
  const v = obj(meta(rs).annotations)[key];
  const n = Number(v);
  return v === undefined || !Number.isInteger(n) ? undefined : n;
}

/** isScalingEvent: an active ReplicaSet was sized for a different spec.replicas (desired-replicas annotation). */
export function isScalingEvent(d: JsonObject, all: JsonObject[]): boolean {
  return all.some(
    (rs) =>
      replicasOf(rs) > 0 &&
      annotationNumber(rs, DESIRED_REPLICAS) !== undefined &&
      annotationNumber(rs, DESIRED_REPLICAS) !== replicasOf(d),
  );
}

/** FindActiveOrLatest: the only active ReplicaSet, or the newest when none is active; undefined when several are. */
export function activeOrLatest(newRS: JsonObject | undefined, old: JsonObject[]): JsonObject | undefined {
  const newestFirst = [...old].sort((a, b) => createdAt(b) - createdAt(a));
  const active = [...newestFirst, ...(newRS ? [newRS] : [])].filter((rs) => replicasOf(rs) > 0);
  if (active.length === 1) return active[0];
  if (active.length === 0) return newRS ?? newestFirst[0];
  return undefined;
}

/** IsSaturated: the new ReplicaSet has every desired replica, and all of them available. */
export function isSaturated(d: JsonObject, newRS: JsonObject): boolean {
  const want = replicasOf(d);
  return (
    replicasOf(newRS) === want &&
    annotationNumber(newRS, DESIRED_REPLICAS) === want &&
    statusCount(newRS, 'availableReplicas') === want
  );
}

/**
 * Proportional scaling mid-rollout: the replicas to add (or remove) to reach replicas + maxSurge are
 * shared by each ReplicaSet's size relative to the max-replicas it was sized for; the largest takes
 * the rounding leftover (newer first when growing, older first when shrinking).
 */
export function proportionalSizes(d: JsonObject, active: JsonObject[]): Map<JsonObject, number> {
  const want = replicasOf(d);
  const allowed = want > 0 ? want + maxSurge(d) : 0;
  const toAdd = allowed - sum(active, replicasOf);
  const sorted = [...active].sort((a, b) => {
    if (replicasOf(a) !== replicasOf(b)) return replicasOf(b) - replicasOf(a);
    return toAdd > 0 ? createdAt(b) - createdAt(a) : createdAt(a) - createdAt(b);
  });
  const sizes = new Map<JsonObject, number>();
  let added = 0;
  for (const rs of sorted) {
    let proportion = 0;
    if (toAdd !== 0 && replicasOf(rs) > 0 && toAdd !== added) {
      let fraction: number;
      if (want === 0) fraction = -replicasOf(rs);
      else {
        const before = annotationNumber(rs, MAX_REPLICAS) || Number(obj(d.status).replicas ?? 0);
        fraction = before === 0 ? 0 : Math.round((replicasOf(rs) * allowed) / before) - replicasOf(rs);
      }
      proportion = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
    }
    sizes.set(rs, replicasOf(rs) + proportion);
    added += proportion;
  }
  if (sorted.length && toAdd !== 0) sizes.set(sorted[0]!, Math.max(0, sizes.get(sorted[0]!)! + toAdd - added));
  return sizes;
}
