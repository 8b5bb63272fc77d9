/**
 * Compiling a JSON Schema the way OPA's vendored gojsonschema does (internal/gojsonschema/schema.go):
 * the same keywords per draft (4, 6, 7, or the default "hybrid" that accepts all of them), the same
 * compile errors word for word, local `$ref`s and `$id`s resolved within the document. Remote
 * references are refused: Rego evaluation does no I/O.
 */
import { RE2JS } from 're2js';
import { RObject, type Value } from '../value.js';
import { canonicalJSON, parseRational, type Rational } from './jsonschema-values.js';

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

const fail = (msg: string): never => {
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

function newSchema(property: string, draft: number): SubSchema {
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

const invalidType = (expected: string, given: string): never =>
  fail(`Invalid type. Expected: ${expected}, given: ${given}`);

const isMap = (v: Value | undefined): v is RObject => v instanceof RObject;
const isNumber = (v: Value | undefined): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

function getString(m: RObject, key: string): string | undefined {
  const v = m.get(key);
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : invalidType('string', key);
}

function getSlice(m: RObject, key: string): Value[] {
  const v = m.get(key);
  if (v === undefined) return [];
  return Array.isArray(v) ? v : fail(`${key} must be of an array`);
}

/** A non-negative count keyword (minLength, maxItems …): gojsonschema's mustBeInteger. */
function count(m: RObject, key: string): number | undefined {
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

function rational(v: Value): Rational | undefined {
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
function resolveId(base: string, id: string): string {
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
function detectDraft(doc: Value): number | undefined {
  if (typeof doc === 'boolean') return undefined;
  if (!isMap(doc)) return fail('schema is invalid');
  const s = doc.get('$schema');
  if (s === undefined) return undefined;
  if (typeof s !== 'string') return fail('$schema must be of type string');
  return DRAFT_URLS[resolveId('', s)];
}

/** Unescapes one JSON-pointer token (RFC 6901, after percent-decoding of the fragment). */
function pointerToken(t: string): string {
  return t.replaceAll('~1', '/').replaceAll('~0', '~');
}

class Compiler {
  /** Documents by canonical reference: "" is the root, plus every "$id" found within. */
  private readonly pool = new Map<string, Value>();
  private readonly refCache = new Map<string, SubSchema>();

  constructor(
    private readonly root: Value,
    private readonly validatePatterns: boolean,
  ) {
    this.collectIds(root, '', true);
  }

  private collectIds(doc: Value, base: string, isRoot: boolean): void {
    if (isRoot) this.pool.set(base, doc);
    if (Array.isArray(doc)) {
      for (const x of doc) this.collectIds(x, base, false);
      return;
    }
    if (!isMap(doc)) return;
    let here = base;
    const id = doc.get('$id') ?? doc.get('id');
    if (typeof id === 'string') {
      here = resolveId(base, id);
      if (!this.pool.has(here)) this.pool.set(here, doc);
    }
    for (const [k, v] of doc.entries()) {
      if (k === 'const' || k === 'enum') continue;
      this.collectIds(v, here, false);
    }
  }

  /** gojsonschema's schemaPool.GetDocument for references within this document. */
  private lookup(ref: string): Value {
    const exact = this.pool.get(ref);
    if (exact !== undefined) return exact;
    const hash = ref.indexOf('#');
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    const doc = this.pool.get(base);
    if (doc === undefined) {
      if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(ref)) fail(`Reference ${ref} must be canonical`);
      return fail(`remote reference ${ref} cannot be loaded: Rego evaluation performs no network access`);
    }
    if (fragment === '') return doc;
    if (!fragment.startsWith('/')) return fail(`JSON pointer must be empty or start with a "/"`);
    let cur: Value = doc;
    for (const raw of fragment.slice(1).split('/')) {
      const tok = pointerToken(decodeURIComponent(raw));
      if (isMap(cur)) {
        const next = cur.get(tok);
        if (next === undefined) return fail(`Object has no key '${tok}'`);
        cur = next;
      } else if (Array.isArray(cur)) {
        const i = /^(0|[1-9]\d*)$/.test(tok) ? Number(tok) : NaN;
        if (!(i >= 0 && i < cur.length)) return fail(`Invalid array index '${tok}'`);
        cur = cur[i]!;
      } else {
        return fail(`Invalid token reference '${tok}'`);
      }
    }
    return cur;
  }

  compile(): SubSchema {
    const draft = detectDraft(this.root) ?? Hybrid;
    const root = newSchema('(root)', draft);
    this.parse(this.root, root);
    return root;
  }

  private child(property: string, parent: SubSchema, doc: Value): SubSchema {
    const s = newSchema(property, parent.draft);
    this.parse(doc, s);
    return s;
  }

  private parse(doc: Value, s: SubSchema): void {
    if (s.draft >= Draft6 && typeof doc === 'boolean') {
      s.pass = doc;
      return;
    }
    if (!isMap(doc)) return fail('Expected: valid schema, given: Invalid JSON');
    const m = doc;
    const keyId = s.draft === Draft4 ? 'id' : s.draft === Hybrid && m.has('id') ? 'id' : '$id';
    getString(m, keyId);

    const defs = m.get('definitions');
    if (defs !== undefined) {
      if (!isMap(defs)) invalidType('array of schemas', 'definitions');
      for (const v of (defs as RObject).values()) {
        if (typeof v !== 'boolean' && !isMap(v)) invalidType('array of schemas', 'definitions');
        this.child('definitions', s, v);
      }
    }
    getString(m, 'title');
    getString(m, 'description');

    const ref = getString(m, '$ref');
    if (ref !== undefined) {
      const key = resolveId('', ref);
      const cached = this.refCache.get(key);
      if (cached === undefined) {
        const target = newSchema('$ref', s.draft);
        this.refCache.set(key, target);
        const refDoc = this.lookup(key);
        if (typeof refDoc !== 'boolean' && !isMap(refDoc)) fail('valid schema must be of type object');
        this.parse(refDoc, target);
        s.refSchema = target;
        return;
      }
      s.refSchema = cached;
    }

    this.parseTypes(m, s);
    this.parseObjectKeywords(m, s);
    this.parseArrayKeywords(m, s);
    this.parseNumberKeywords(m, s);
    this.parseStringKeywords(m, s);
    this.parseCounts(m, s);
    this.parseValueKeywords(m, s);
    this.parseCombinators(m, s);
  }

  private parseTypes(m: RObject, s: SubSchema): void {
    const t = m.get('type');
    if (t === undefined) return;
    const add = (name: string): void => {
      if (!JSON_TYPES.includes(name)) {
        fail(
          `has a primitive type that is NOT VALID -- given: /${name}/ Expected valid values are:[${JSON_TYPES.join(' ')}]`,
        );
      }
      if (s.types.includes(name)) fail(`${name} type is duplicated`);
      s.types.push(name);
    };
    if (typeof t === 'string') add(t);
    else if (Array.isArray(t)) {
      for (const x of t) {
        if (typeof x !== 'string') invalidType('type', 'string/array of strings');
        add(x as string);
      }
    } else invalidType('type', 'string/array of strings');
  }

  private parseObjectKeywords(m: RObject, s: SubSchema): void {
    const props = m.get('properties');
    if (props !== undefined) {
      if (!isMap(props)) fail('properties must be of type object');
      for (const [k, v] of (props as RObject).entries()) s.properties.push(this.child(k as string, s, v));
    }
    const ap = m.get('additionalProperties');
    if (ap !== undefined) {
      if (typeof ap === 'boolean') s.additionalProperties = ap;
      else if (isMap(ap)) s.additionalProperties = this.child('additionalProperties', s, ap);
      else invalidType('boolean/valid schema', 'additionalProperties');
    }
    const pp = m.get('patternProperties');
    if (pp !== undefined) {
      if (!isMap(pp)) invalidType('valid schema', 'patternProperties');
      for (const [k, v] of (pp as RObject).entries()) {
        const re = compileRegex(k as string);
        if (re === undefined) fail(`Invalid regex pattern '${k as string}'`);
        s.patternProperties.push({ source: k as string, re: re!, schema: this.child(k as string, s, v) });
      }
    }
    const pn = m.get('propertyNames');
    if (pn !== undefined && s.draft >= Draft6) {
      if (typeof pn !== 'boolean' && !isMap(pn)) invalidType('valid schema', 'patternProperties');
      s.propertyNames = this.child('propertyNames', s, pn);
    }
    const deps = m.get('dependencies');
    if (deps !== undefined) {
      if (!isMap(deps)) fail('dependencies must be of type object');
      for (const [k, v] of (deps as RObject).entries()) {
        if (Array.isArray(v)) {
          const names: string[] = [];
          for (const x of v) {
            if (typeof x !== 'string') fail('dependency must be of type schema or array of strings');
            names.push(x as string);
          }
          if (names.length > 0) s.dependencies.set(k as string, names);
        } else if (typeof v === 'boolean' || isMap(v)) {
          s.dependencies.set(k as string, this.child(k as string, s, v));
        } else fail('dependency must be of type schema or array of strings');
      }
    }
  }

  private parseArrayKeywords(m: RObject, s: SubSchema): void {
    const items = m.get('items');
    if (items !== undefined) {
      if (Array.isArray(items)) {
        for (const it of items) {
          if (typeof it !== 'boolean' && !isMap(it)) invalidType('valid schema/array of schemas', 'items');
          s.items.push(this.child('items', s, it));
        }
        s.itemsSingle = false;
      } else if (typeof items === 'boolean' || isMap(items)) {
        s.items.push(this.child('items', s, items));
        s.itemsSingle = true;
      } else invalidType('valid schema/array of schemas', 'items');
    }
    const ai = m.get('additionalItems');
    if (ai !== undefined) {
      if (typeof ai === 'boolean') s.additionalItems = ai;
      else if (isMap(ai)) s.additionalItems = this.child('additionalItems', s, ai);
      else invalidType('boolean/valid schema', 'additionalItems');
    }
  }

  /** minimum/maximum and their exclusive forms, whose shape depends on the draft. */
  private parseNumberKeywords(m: RObject, s: SubSchema): void {
    const mo = m.get('multipleOf');
    if (mo !== undefined) {
      const r = rational(mo) ?? invalidType('number', 'multipleOf');
      if (r[0] <= 0n) fail('multipleOf must be strictly greater than 0');
      s.multipleOf = r;
    }
    const bound = (key: 'minimum' | 'maximum'): void => {
      const v = m.get(key);
      if (v !== undefined) s[key] = rational(v) ?? fail(`${key} must be of a number`);
    };
    const exclusive = (key: 'exclusiveMinimum' | 'exclusiveMaximum', base: 'minimum' | 'maximum'): void => {
      const v = m.get(key);
      if (v === undefined) return;
      const fromBool = (b: boolean): void => {
        if (s[base] === undefined) fail(`${key} cannot be used without ${base}`);
        if (b) {
          s[key] = s[base];
          s[base] = undefined;
        }
      };
      if (s.draft === Draft4) {
        if (typeof v !== 'boolean') invalidType('boolean', key);
        fromBool(v as boolean);
      } else if (s.draft === Hybrid) {
        if (typeof v === 'boolean') fromBool(v);
        else if (isNumber(v)) s[key] = rational(v);
        else invalidType('boolean/number', key);
      } else {
        if (!isNumber(v)) invalidType('number', key);
        s[key] = rational(v);
      }
    };
    bound('minimum');
    exclusive('exclusiveMinimum', 'minimum');
    bound('maximum');
    exclusive('exclusiveMaximum', 'maximum');
  }

  private parseStringKeywords(m: RObject, s: SubSchema): void {
    s.minLength = count(m, 'minLength');
    s.maxLength = count(m, 'maxLength');
    if (s.minLength !== undefined && s.maxLength !== undefined && s.minLength > s.maxLength) {
      fail('minLength cannot be greater than maxLength');
    }
    const pattern = getString(m, 'pattern');
    if (pattern !== undefined && this.validatePatterns) {
      const re = compileRegex(pattern) ?? fail('pattern must be a valid regex');
      s.pattern = { source: pattern, re };
    }
    s.format = getString(m, 'format') ?? '';
  }

  private parseCounts(m: RObject, s: SubSchema): void {
    s.minProperties = count(m, 'minProperties');
    s.maxProperties = count(m, 'maxProperties');
    if (s.minProperties !== undefined && s.maxProperties !== undefined && s.minProperties > s.maxProperties) {
      fail('minProperties cannot be greater than maxProperties');
    }
    for (const r of getSlice(m, 'required')) {
      if (typeof r !== 'string') invalidType('string', 'required');
      if (s.required.includes(r as string)) fail('required items must be unique');
      s.required.push(r as string);
    }
    s.minItems = count(m, 'minItems');
    s.maxItems = count(m, 'maxItems');
    const ui = m.get('uniqueItems');
    if (ui !== undefined) {
      if (typeof ui !== 'boolean') fail('uniqueItems must be of a boolean');
      s.uniqueItems = ui as boolean;
    }
    const contains = m.get('contains');
    if (contains !== undefined && s.draft >= Draft6) s.contains = this.child('contains', s, contains);
  }

  private parseValueKeywords(m: RObject, s: SubSchema): void {
    const c = m.get('const');
    if (c !== undefined && s.draft >= Draft6) s.constValue = canonicalJSON(c);
    const en = getSlice(m, 'enum');
    s.enumPresent = m.has('enum');
    for (const v of en) {
      const text = canonicalJSON(v);
      if (s.enumValues.includes(text)) fail('enum items must be unique');
      s.enumValues.push(text);
    }
  }

  private parseCombinators(m: RObject, s: SubSchema): void {
    for (const v of getSlice(m, 'oneOf')) s.oneOf.push(this.child('oneOf', s, v));
    for (const v of getSlice(m, 'anyOf')) s.anyOf.push(this.child('anyOf', s, v));
    for (const v of getSlice(m, 'allOf')) s.allOf.push(this.child('allOf', s, v));
    const not = m.get('not');
    if (not !== undefined) {
      if (typeof not !== 'boolean' && !isMap(not)) fail('not must be of an object');
      s.not = this.child('not', s, not);
    }
    if (s.draft < Draft7) return;
    for (const [key, slot] of [
      ['if', 'ifSchema'],
      ['then', 'thenSchema'],
      ['else', 'elseSchema'],
    ] as const) {
      const v = m.get(key);
      if (v === undefined) continue;
      if (typeof v !== 'boolean' && !isMap(v)) fail(`${key} must be of an object`);
      s[slot] = this.child(key, s, v);
    }
  }
}

/** Compiles a schema document (already JSON-shaped); throws SchemaError with gojsonschema's text. */
export function compileSchema(doc: Value, validatePatterns = true): SubSchema {
  return new Compiler(doc, validatePatterns).compile();
}
