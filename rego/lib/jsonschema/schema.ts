/**
 * A compiled JSON Schema (gojsonschema's subSchema) and the reading helpers the compiler shares:
 * draft detection, typed keyword reads with gojsonschema's errors, `$id` resolution and pattern
 * compilation with RE2 (Go's regexp syntax).
 */
import { RE2JS } from 're2js';
import { RObject, type Value } from '../../value.js';
import { parseRational, type Rational } from './values.js';

/** Draft versions; Hybrid is gojsonschema's default when "$schema" names no known draft. */
export const Draft4 = 4;
export const Draft6 = 6;
export const Draft7 = 7;
export const Hybrid = Number.MAX_SAFE_INTEGER;

export const JSON_TYPES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];

const DRAFT_URLS: Record<string, number> = {
  'http://json-schema.org/draft-04/schema': Draft4,
  'http://json-schema.org/draft-06/schema': Draft6,
  'http://json-schema.org/draft-07/schema': Draft7,
};

/** A schema compile failure; its message is gojsonschema's. */
export class SchemaError extends Error {}

export const fail = (msg: string): never => {
  throw new SchemaError(msg);
};

export interface SubSchema {
  property: string;
  draft: number;
  /** true/false schemas (draft 6+). */
  pass?: boolean;
  refSchema?: SubSchema;
  types: string[];
  properties: SubSchema[];
  patternProperties: { source: string; re: RE2JS; schema: SubSchema }[];
  additionalProperties: boolean | SubSchema;
  propertyNames?: SubSchema;
  dependencies: Map<string, string[] | SubSchema>;
  items: SubSchema[];
  itemsSingle: boolean;
  additionalItems: boolean | SubSchema;
  multipleOf?: Rational;
  minimum?: Rational;
  exclusiveMinimum?: Rational;
  maximum?: Rational;
  exclusiveMaximum?: Rational;
  minLength?: number;
  maxLength?: number;
  pattern?: { source: string; re: RE2JS };
  format: string;
  minProperties?: number;
  maxProperties?: number;
  required: string[];
  minItems?: number;
  maxItems?: number;
  uniqueItems: boolean;
  contains?: SubSchema;
  constValue?: string;
  enumValues: string[];
  enumPresent: boolean;
  oneOf: SubSchema[];
  anyOf: SubSchema[];
  allOf: SubSchema[];
  not?: SubSchema;
  ifSchema?: SubSchema;
  thenSchema?: SubSchema;
  elseSchema?: SubSchema;
}

export function newSchema(property: string, draft: number): SubSchema {
  return {
    property,
    draft,
    types: [],
    properties: [],
    patternProperties: [],
    additionalProperties: true,
    dependencies: new Map(),
    items: [],
    itemsSingle: false,
    additionalItems: true,
    format: '',
    required: [],
    uniqueItems: false,
    enumValues: [],
    enumPresent: false,
    oneOf: [],
    anyOf: [],
    allOf: [],
  };
}

export const invalidType = (expected: string, given: string): never =>
  fail(`Invalid type. Expected: ${expected}, given: ${given}`);

export const isMap = (v: Value | undefined): v is RObject => v instanceof RObject;
export const isNumber = (v: Value | undefined): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

export function getString(m: RObject, key: string): string | undefined {
  const v = m.get(key);
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : invalidType('string', key);
}

export function getSlice(m: RObject, key: string): Value[] {
  const v = m.get(key);
  if (v === undefined) return [];
  return Array.isArray(v) ? v : fail(`${key} must be of an array`);
}

/** A non-negative count keyword (minLength, maxItems …): gojsonschema's mustBeInteger. */
export function count(m: RObject, key: string): number | undefined {
  const v = m.get(key);
  if (v === undefined) return undefined;
  const n =
    typeof v === 'number' && Number.isInteger(v)
      ? v
      : typeof v === 'bigint' && v < 2n ** 63n && v >= -(2n ** 63n)
        ? Number(v)
        : undefined;
  if (n === undefined) return fail(`${key} must be of an integer`);
  if (n < 0) fail(`${key} must be greater than or equal to 0`);
  return n;
}

export function rational(v: Value): Rational | undefined {
  return isNumber(v) ? parseRational(String(v)) : undefined;
}

/** Go's RE2 via re2js; undefined when the pattern does not compile. */
export function compileRegex(source: string): RE2JS | undefined {
  try {
    return RE2JS.compile(source);
  } catch {
    return undefined;
  }
}

/** Resolves `id` against `base` like gojsonreference.Inherits (enough for local documents). */
export function resolveId(base: string, id: string): string {
  const norm = (s: string): string => (s.endsWith('#') ? s.slice(0, -1) : s);
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(id)) return norm(id);
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(base)) {
    try {
      return norm(new URL(id, base).href);
    } catch {
      return norm(id);
    }
  }
  if (id.startsWith('#')) return norm(base.replace(/#.*$/, '') + id);
  return norm(id);
}

/** The draft named by the root's "$schema", if any (gojsonschema's parseSchemaURL). */
export function detectDraft(doc: Value): number | undefined {
  if (typeof doc === 'boolean') return undefined;
  if (!isMap(doc)) return fail('schema is invalid');
  const s = doc.get('$schema');
  if (s === undefined) return undefined;
  if (typeof s !== 'string') return fail('$schema must be of type string');
  return DRAFT_URLS[resolveId('', s)];
}

/** Unescapes one JSON-pointer token (RFC 6901, after percent-decoding of the fragment). */
export function pointerToken(t: string): string {
  return t.replaceAll('~1', '/').replaceAll('~0', '~');
}
