/** Small readers shared by the controllers: owner references, pod readiness, int-or-percent, keys. */
import { arr, obj } from '../kinds/define.js';
import { fromLabelSelectorObject, matchesLabels } from '../selectors.js';
import type { JsonObject } from '../schema/types.js';

export { arr, obj };

export function meta(o: JsonObject): JsonObject {
  return obj(o.metadata);
}

export function nameOf(o: JsonObject): string {
  return String(meta(o).name ?? '');
}

export function namespaceOf(o: JsonObject): string {
  return String(meta(o).namespace ?? '');
}

export function uidOf(o: JsonObject): string {
  return String(meta(o).uid ?? '');
}

/** `namespace/name`, the key every namespaced controller queues. */
export function keyOf(o: JsonObject): string {
  return `${namespaceOf(o)}/${nameOf(o)}`;
}

export function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}

export function isDeleting(o: JsonObject): boolean {
  return Boolean(meta(o).deletionTimestamp);
}

export function ownerReferences(o: JsonObject): JsonObject[] {
  return arr(meta(o).ownerReferences).map(obj);
}

export function controllerRef(o: JsonObject): JsonObject | undefined {
  return ownerReferences(o).find((r) => r.controller === true);
}

/** The owner reference a controller puts on what it creates (controller and blockOwnerDeletion set). */
export function newControllerRef(owner: JsonObject, apiVersion: string, kind: string): JsonObject {
  return { apiVersion, kind, name: nameOf(owner), uid: uidOf(owner), controller: true, blockOwnerDeletion: true };
}

/** Keys of the controlling owner of `o` when it is of `kind` (same namespace). */
export function ownerKeys(o: JsonObject, kind: string): string[] {
  const ref = controllerRef(o);
  return ref && ref.kind === kind ? [`${namespaceOf(o)}/${String(ref.name)}`] : [];
}

export function isControlledBy(o: JsonObject, owner: JsonObject): boolean {
  return controllerRef(o)?.uid === uidOf(owner);
}

export function selectorMatches(selector: unknown, labels: unknown): boolean {
  return selectorMatcher(selector)(labels);
}

/** `selectorMatches` with the selector parsed once, for checking many objects. */
export function selectorMatcher(selector: unknown): (labels: unknown) => boolean {
  const parsed = fromLabelSelectorObject(obj(selector) as Parameters<typeof fromLabelSelectorObject>[0]);
  return (labels) => matchesLabels(parsed, obj(labels) as Record<string, string>);
}

export function condition(o: JsonObject, type: string): JsonObject | undefined {
  return arr(obj(o.status).conditions)
    .map(obj)
    .find((c) => c.type === type);
}

export function isPodReady(pod: JsonObject): boolean {
  return condition(pod, 'Ready')?.status === 'True';
}

/** Not terminating and not finished: what ReplicaSets and Jobs count as theirs. */
export function isPodActive(pod: JsonObject): boolean {
  const phase = obj(pod.status).phase;
  return !isDeleting(pod) && phase !== 'Succeeded' && phase !== 'Failed';
}

/**
 * Milliseconds until a ready pod counts as available (0: available now), or undefined when it is not
 * ready. A pod is available once it has been Ready for minReadySeconds (podutil.IsPodAvailable).
 */
export function msUntilAvailable(pod: JsonObject, minReadySeconds: number, now: number): number | undefined {
  const ready = condition(pod, 'Ready');
  if (ready?.status !== 'True') return undefined;
  if (minReadySeconds <= 0) return 0;
  const since = Date.parse(String(ready.lastTransitionTime ?? ''));
  if (Number.isNaN(since)) return 0;
  return Math.max(0, since + minReadySeconds * 1000 - now);
}

/**
 * intstr.GetScaledValueFromIntOrPercent: an int as is, a percentage of `total` rounded up or down.
 * Throws on a malformed string, as upstream does.
 */
export function scaledValue(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  if (v === undefined || v === null) return 0;
  const m = /^(\d+)%$/.exec(String(v));
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage: ${String(v)}`);
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** RFC 3339 seconds, as metav1.Time. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The HTTP status of an API error thrown by the in-process API, if any. */
export function statusCode(err: unknown): number | undefined {
  const c = (err as { code?: unknown } | undefined)?.code;
  return typeof c === 'number' ? c : undefined;
}
