/** Collection access as OPA does it: index/key lookup and iteration in OPA's order. */
import { RObject, RSet, type Value } from '../value.js';

/** `v[key]`: array index (integer), object key, or set membership (yields the member). */
export function lookup(v: Value, key: Value): Value | undefined {
  if (Array.isArray(v)) {
    if (typeof key === 'number' && Number.isInteger(key) && key >= 0 && key < v.length) return v[key];
    return undefined;
  }
  if (v instanceof RObject) return v.get(key);
  if (v instanceof RSet) return v.has(key) ? key : undefined;
  return undefined;
}

/**
 * Calls `fn(key, value)` for each element (arrays: index; objects: sorted keys; sets: member,
 * member) until it returns true. Returns whether it stopped.
 */
export function iterate(v: Value, fn: (key: Value, value: Value) => boolean): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (fn(i, v[i]!)) return true;
    return false;
  }
  if (v instanceof RObject) {
    for (const [k, x] of v.entries()) if (fn(k, x)) return true;
    return false;
  }
  if (v instanceof RSet) {
    for (const x of v.valuesView()) if (fn(x, x)) return true;
    return false;
  }
  return false;
}
