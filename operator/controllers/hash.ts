import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal values hash equally whatever order their keys were built in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** A short, stable hash of JSON values (annotations; not a security boundary). */
export function hashOf(...values: unknown[]): string {
  const h = createHash('sha256');
  for (const v of values) h.update(canonicalJson(v)).update('\u0000');
  return h.digest('hex').slice(0, 16);
}
