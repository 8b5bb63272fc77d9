/**
 * Path elements of structured-merge-diff, held in their FieldsV1 spelling (`f:name`, `k:{"name":"x"}`,
 * `v:"x"`, `i:0`), which is canonical here: list keys are sorted and JSON is compact. Also their order and
 * the way the apiserver prints a path.
 */
import { canonicalJson, isObject, type JsonObject } from './values.js';

export type PathElement = string;
export type Path = readonly PathElement[];

export function fieldPE(name: string): PathElement {
  return `f:${name}`;
}

/** The element of an associative-list item, from its key fields. */
export function keyPE(fields: Readonly<Record<string, unknown>>): PathElement {
  return `k:${canonicalJson(fields)}`;
}

export function valuePE(v: unknown): PathElement {
  return `v:${canonicalJson(v)}`;
}

export function indexPE(i: number): PathElement {
  return `i:${i}`;
}

export class FieldSetError extends Error {}

/** Validates a FieldsV1 key and returns its canonical spelling; undefined for unknown element types. */
export function parsePE(raw: string): PathElement | undefined {
  if (raw.length < 2) throw new FieldSetError(`key must be 2 characters long: ${raw}`);
  if (raw[1] !== ':') throw new FieldSetError(`missing colon: ${raw}`);
  const body = raw.slice(2);
  switch (raw[0]) {
    case 'f':
      return raw;
    case 'k': {
      const fields = parseJson(body, raw);
      if (!isObject(fields)) throw new FieldSetError(`key element is not a JSON object: ${raw}`);
      return keyPE(fields);
    }
    case 'v':
      return valuePE(parseJson(body, raw));
    case 'i':
      if (!/^-?\d+$/.test(body)) throw new FieldSetError(`invalid index: ${raw}`);
      return indexPE(Number(body));
    default:
      return undefined; // NB: like structured-merge-diff, element types from the future are dropped.
  }
}

function parseJson(text: string, raw: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new FieldSetError(`invalid JSON in path element: ${raw}`);
  }
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's PathElement order: fields, then keys, values and indices. */
export function comparePE(a: PathElement, b: PathElement): number {
  const ra = RANK[a[0]!] ?? 4;
  const rb = RANK[b[0]!] ?? 4;
  if (ra !== rb) return ra - rb;
  const x = a.slice(2);
  const y = b.slice(2);
  if (a[0] === 'f') return x < y ? -1 : x > y ? 1 : 0;
  if (a[0] === 'i') return Number(x) - Number(y);
  return compareValues(JSON.parse(x), JSON.parse(y));
}

function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ta = typeRank(a);
  const tb = typeRank(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  }
  if (isObject(a) && isObject(b)) {
    // Keys are sorted in canonical JSON, so this is FieldList.Compare: name, then value, pairwise.
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
      const c = compareValues(a[ka[i]!], b[kb[i]!]);
      if (c) return c;
    }
    return ka.length - kb.length;
  }
  return 0;
}

/** A path as the apiserver prints it in conflicts and errors: `.spec.containers[name="app"].image`. */
export function pathString(path: Path): string {
  let out = '';
  for (const pe of path) {
    const body = pe.slice(2);
    if (pe[0] === 'f') out += `.${body}`;
    else if (pe[0] === 'i') out += `[${body}]`;
    else if (pe[0] === 'v') out += `[=${body}]`;
    else {
      const fields = JSON.parse(body) as JsonObject;
      out += `[${Object.keys(fields)
        .sort()
        .map((k) => `${k}=${JSON.stringify(fields[k])}`)
        .join(',')}]`;
    }
  }
  return out;
}
