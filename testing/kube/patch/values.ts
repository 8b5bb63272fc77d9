/**
 * JSON value helpers shared by the patch engines. Objects come from JSON.parse or YAML, so keys such as
 * `__proto__` are ordinary data: every write goes through `setOwn` to keep them that way.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(o: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Assigns a data property; `o[key] = v` would change the prototype when key is `__proto__`. */
export function setOwn(o: JsonObject, key: string, v: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value: v, writable: true, enumerable: true, configurable: true });
  else o[key] = v;
}

export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepClone) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, deepClone(v[k]));
    return out as T;
  }
  return v;
}

/** Structural equality of JSON values; object key order is ignored, array order is not. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
  return true;
}

/** JSON with object keys sorted, so equal values have one text (used for list keys and set values). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The name Go's encoding/json uses for a JSON value's kind in "cannot unmarshal X" messages. */
export function jsonKind(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, number, boolean
}

/**
 * Go's `%v` for a value decoded into interface{}: maps print as `map[k:v ...]` with sorted keys, slices
 * as `[a b]`, nil as `<nil>`. Error texts copied from the apiserver embed values this way.
 */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  // NB: %v of a float64 is %g with the shortest representation, exponent with at least two digits.
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}
