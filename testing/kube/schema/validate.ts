/**
 * Validation of a custom resource against its structural schema, with kube-openapi's checks and the
 * apiextensions server's translation into field errors (kubeOpenAPIResultToFieldErrors), so messages
 * match the real server word for word: `spec.replicas: Invalid value: "string": spec.replicas in body
 * must be of type integer: "string"`.
 */
import { RE2JS } from 're2js';
import { fieldErrors, type FieldError } from '../status-errors.js';
import { checkFormat } from './formats.js';
import { childPath, indexPath, isObject, jsonEqual, keyPath, type JSONSchemaProps, type JsonObject } from './types.js';

const patternCache = new Map<string, RE2JS | null>();

function compilePattern(p: string): RE2JS | null {
  if (!patternCache.has(p)) {
    let re: RE2JS | null = null;
    try {
      re = RE2JS.compile(p);
    } catch {
      re = null; // CRD validation rejects bad patterns at creation; be lenient here.
    }
    patternCache.set(p, re);
  }
  return patternCache.get(p)!;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v; // string, boolean, object
}

/** Go's %v for a float64 (strconv 'g', shortest): exponent form from 1e+06 up or below 1e-04. */
export function goFloat(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21 || exp >= 6) {
    const [mant, e] = n.toExponential().split('e');
    const sign = e!.startsWith('-') ? '-' : '+';
    const digits = e!.replace(/^[-+]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(n);
}

export function validateSchema(value: unknown, schema: JSONSchemaProps, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  node(value, schema, path, errs);
  return errs;
}

function typesOf(schema: JSONSchemaProps): string[] {
  if (schema['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return schema.type ? [schema.type] : [];
}

function node(value: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const types = typesOf(s);
  if (value === null) {
    if (types.length && !s.nullable) {
      errs.push(fieldErrors.typeInvalid(path, 'null', `${path} in body must be of type ${types.join(',')}: "null"`));
    }
    return;
  }
  if (types.length) {
    const actual = jsonType(value);
    const ok = types.includes(actual) || (actual === 'integer' && types.includes('number'));
    if (!ok) {
      errs.push(
        fieldErrors.typeInvalid(path, actual, `${path} in body must be of type ${types.join(',')}: "${actual}"`),
      );
      return;
    }
  }
  if (s.enum && s.enum.length && !s.enum.some((e) => jsonEqual(e, value))) {
    const allowed = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    errs.push(fieldErrors.notSupported(path, value, allowed));
  }
  if (typeof value === 'string') stringChecks(value, s, path, errs);
  else if (typeof value === 'number') numberChecks(value, s, path, errs);
  else if (Array.isArray(value)) arrayChecks(value, s, path, errs);
  else if (isObject(value)) objectChecks(value, s, path, errs);
  composition(value, s, path, errs);
}

function stringChecks(v: string, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  // NB: lengths count runes (Go utf8.RuneCountInString), not UTF-16 units.
  const len = [...v].length;
  if (s.maxLength !== undefined && len > s.maxLength) errs.push(fieldErrors.tooLong(path, s.maxLength));
  if (s.minLength !== undefined && len < s.minLength) {
    errs.push(fieldErrors.invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re && !re.matcher(v).find())
      errs.push(fieldErrors.invalid(path, v, `${path} in body should match '${s.pattern}'`));
  }
  if (s.format && !checkFormat(s.format, v)) {
    errs.push(fieldErrors.typeInvalid(path, v, `${path} in body must be of type ${s.format}: ${JSON.stringify(v)}`));
  }
}

function numberChecks(v: number, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9)
      errs.push(fieldErrors.invalid(path, v, `${path} in body should be a multiple of ${goFloat(s.multipleOf)}`));
  }
  if (s.maximum !== undefined) {
    const bad = s.exclusiveMaximum ? v >= s.maximum : v > s.maximum;
    const word = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
    if (bad) errs.push(fieldErrors.invalid(path, v, `${path} in body should be ${word} ${goFloat(s.maximum)}`));
  }
  if (s.minimum !== undefined) {
    const bad = s.exclusiveMinimum ? v <= s.minimum : v < s.minimum;
    const word = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
    if (bad) errs.push(fieldErrors.invalid(path, v, `${path} in body should be ${word} ${goFloat(s.minimum)}`));
  }
}

function arrayChecks(v: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.items) for (let i = 0; i < v.length; i++) node(v[i], s.items, indexPath(path, i), errs);
  if (s.minItems !== undefined && v.length < s.minItems) {
    errs.push(fieldErrors.invalid(path, v.length, `${path} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(fieldErrors.tooMany(path, v.length, s.maxItems));
  if (s.uniqueItems && hasDuplicate(v))
    errs.push(fieldErrors.invalid(path, '', `${path} in body shouldn't contain duplicates`));
  listType(v, s, path, errs);
}

function hasDuplicate(v: unknown[]): boolean {
  for (let i = 0; i < v.length; i++) for (let j = i + 1; j < v.length; j++) if (jsonEqual(v[i], v[j])) return true;
  return false;
}

/** x-kubernetes-list-type: set items and map keys must be unique (apiextensions validateListSetsAndMaps). */
function listType(v: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const kind = s['x-kubernetes-list-type'];
  if (kind === 'set') {
    for (let i = 0; i < v.length; i++) {
      if (v.slice(0, i).some((x) => jsonEqual(x, v[i]))) errs.push(fieldErrors.duplicate(indexPath(path, i), v[i]));
    }
  } else if (kind === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen: JsonObject[] = [];
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (!isObject(item)) continue;
      const k: JsonObject = {};
      for (const key of keys) if (item[key] !== undefined) k[key] = item[key];
      if (seen.some((x) => jsonEqual(x, k))) errs.push(fieldErrors.duplicate(indexPath(path, i), k));
      seen.push(k);
    }
  }
}

function objectChecks(v: JsonObject, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const count = Object.keys(v).length;
  if (s.maxProperties !== undefined && count > s.maxProperties)
    errs.push(fieldErrors.tooMany(path, s.maxProperties, -1));
  if (s.minProperties !== undefined && count < s.minProperties) {
    errs.push(
      fieldErrors.invalid(path, s.minProperties, `${path} in body should have at least ${s.minProperties} properties`),
    );
  }
  for (const req of s.required ?? []) {
    if (v[req] === undefined) errs.push(fieldErrors.required(childPath(path, req)));
  }
  if (s['x-kubernetes-embedded-resource']) embedded(v, path, errs);
  const additional = isObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
  for (const [key, child] of Object.entries(v)) {
    const ps = s.properties?.[key];
    if (ps) node(child, ps, childPath(path, key), errs);
    else if (additional) node(child, additional, keyPath(path, key), errs);
  }
}

/** x-kubernetes-embedded-resource: apiVersion and kind must be set (metadata is validated as ObjectMeta). */
function embedded(v: JsonObject, path: string, errs: FieldError[]): void {
  if (typeof v.apiVersion !== 'string' || v.apiVersion === '')
    errs.push(fieldErrors.required(childPath(path, 'apiVersion'), 'must not be empty'));
  if (typeof v.kind !== 'string' || v.kind === '')
    errs.push(fieldErrors.required(childPath(path, 'kind'), 'must not be empty'));
}

function composition(value: unknown, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const at = path || '.';
  for (const sub of s.allOf ?? []) node(value, sub, path, errs);
  if (s.anyOf && s.anyOf.length) {
    const passing = s.anyOf.some((sub) => validateSchema(value, sub, path).length === 0);
    if (!passing) errs.push(fieldErrors.invalid(path, '', `${at} in body must validate at least one schema (anyOf)`));
  }
  if (s.oneOf && s.oneOf.length) {
    const n = s.oneOf.filter((sub) => validateSchema(value, sub, path).length === 0).length;
    if (n !== 1)
      errs.push(fieldErrors.invalid(path, '', `${at} in body must validate one and only one schema (oneOf)`));
  }
  if (s.not && validateSchema(value, s.not, path).length === 0) {
    errs.push(fieldErrors.invalid(path, '', `${at} in body must not validate the schema (not)`));
  }
}
