/**
 * The keywords of a schema object, read into its SubSchema as gojsonschema's parseSchema does:
 * types, object, array, number and string keywords, counts, const/enum and the combinators, with
 * the library's compile errors word for word.
 */
import { RObject, type Value } from '../../value.js';
import { canonicalJSON } from './values.js';
import {
  Draft4,
  Draft6,
  Draft7,
  Hybrid,
  JSON_TYPES,
  fail,
  invalidType,
  isMap,
  isNumber,
  getString,
  getSlice,
  count,
  rational,
  compileRegex,
  type SubSchema,
} from './schema.js';

/** What the keyword readers need from the compiler: sub-schemas compiled in place. */
export interface Compiling {
  readonly validatePatterns: boolean;
  child(property: string, parent: SubSchema, doc: Value): SubSchema;
}

/** Reads every keyword of schema object `m` into `s`, in gojsonschema's order. */
export function parseKeywords(c: Compiling, m: RObject, s: SubSchema): void {
  parseTypes(c, m, s);
  parseObjectKeywords(c, m, s);
  parseArrayKeywords(c, m, s);
  parseNumberKeywords(c, m, s);
  parseStringKeywords(c, m, s);
  parseCounts(c, m, s);
  parseValueKeywords(c, m, s);
  parseCombinators(c, m, s);
}

function parseTypes(c: Compiling, m: RObject, s: SubSchema): void {
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

function parseObjectKeywords(c: Compiling, m: RObject, s: SubSchema): void {
  const props = m.get('properties');
  if (props !== undefined) {
    if (!isMap(props)) fail('properties must be of type object');
    for (const [k, v] of (props as RObject).entries()) s.properties.push(c.child(k as string, s, v));
  }
  const ap = m.get('additionalProperties');
  if (ap !== undefined) {
    if (typeof ap === 'boolean') s.additionalProperties = ap;
    else if (isMap(ap)) s.additionalProperties = c.child('additionalProperties', s, ap);
    else invalidType('boolean/valid schema', 'additionalProperties');
  }
  const pp = m.get('patternProperties');
  if (pp !== undefined) {
    if (!isMap(pp)) invalidType('valid schema', 'patternProperties');
    for (const [k, v] of (pp as RObject).entries()) {
      const re = compileRegex(k as string);
      if (re === undefined) fail(`Invalid regex pattern '${k as string}'`);
      s.patternProperties.push({ source: k as string, re: re!, schema: c.child(k as string, s, v) });
    }
  }
  const pn = m.get('propertyNames');
  if (pn !== undefined && s.draft >= Draft6) {
    if (typeof pn !== 'boolean' && !isMap(pn)) invalidType('valid schema', 'patternProperties');
    s.propertyNames = c.child('propertyNames', s, pn);
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
        s.dependencies.set(k as string, c.child(k as string, s, v));
      } else fail('dependency must be of type schema or array of strings');
    }
  }
}

function parseArrayKeywords(c: Compiling, m: RObject, s: SubSchema): void {
  const items = m.get('items');
  if (items !== undefined) {
    if (Array.isArray(items)) {
      for (const it of items) {
        if (typeof it !== 'boolean' && !isMap(it)) invalidType('valid schema/array of schemas', 'items');
        s.items.push(c.child('items', s, it));
      }
      s.itemsSingle = false;
    } else if (typeof items === 'boolean' || isMap(items)) {
      s.items.push(c.child('items', s, items));
      s.itemsSingle = true;
    } else invalidType('valid schema/array of schemas', 'items');
  }
  const ai = m.get('additionalItems');
  if (ai !== undefined) {
    if (typeof ai === 'boolean') s.additionalItems = ai;
    else if (isMap(ai)) s.additionalItems = c.child('additionalItems', s, ai);
    else invalidType('boolean/valid schema', 'additionalItems');
  }
}

/** minimum/maximum and their exclusive forms, whose shape depends on the draft. */
function parseNumberKeywords(c: Compiling, m: RObject, s: SubSchema): void {
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

function parseStringKeywords(c: Compiling, m: RObject, s: SubSchema): void {
  s.minLength = count(m, 'minLength');
  s.maxLength = count(m, 'maxLength');
  if (s.minLength !== undefined && s.maxLength !== undefined && s.minLength > s.maxLength) {
    fail('minLength cannot be greater than maxLength');
  }
  const pattern = getString(m, 'pattern');
  if (pattern !== undefined && c.validatePatterns) {
    const re = compileRegex(pattern) ?? fail('pattern must be a valid regex');
    s.pattern = { source: pattern, re };
  }
  s.format = getString(m, 'format') ?? '';
}

function parseCounts(c: Compiling, m: RObject, s: SubSchema): void {
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
  if (contains !== undefined && s.draft >= Draft6) s.contains = c.child('contains', s, contains);
}

function parseValueKeywords(_c: Compiling, m: RObject, s: SubSchema): void {
  const constant = m.get('const');
  if (constant !== undefined && s.draft >= Draft6) s.constValue = canonicalJSON(constant);
  const en = getSlice(m, 'enum');
  s.enumPresent = m.has('enum');
  for (const v of en) {
    const text = canonicalJSON(v);
    if (s.enumValues.includes(text)) fail('enum items must be unique');
    s.enumValues.push(text);
  }
}

function parseCombinators(c: Compiling, m: RObject, s: SubSchema): void {
  for (const v of getSlice(m, 'oneOf')) s.oneOf.push(c.child('oneOf', s, v));
  for (const v of getSlice(m, 'anyOf')) s.anyOf.push(c.child('anyOf', s, v));
  for (const v of getSlice(m, 'allOf')) s.allOf.push(c.child('allOf', s, v));
  const not = m.get('not');
  if (not !== undefined) {
    if (typeof not !== 'boolean' && !isMap(not)) fail('not must be of an object');
    s.not = c.child('not', s, not);
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
    s[slot] = c.child(key, s, v);
  }
}
