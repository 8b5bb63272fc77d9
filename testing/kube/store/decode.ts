/**
 * The decode stage of a write: what the real server does while turning a request body into an object
 * before any strategy runs — apiVersion/kind checks, Go-typed decoding of built-ins, pruning of unknown
 * fields with `fieldValidation` (Strict: 400, Warn: warning headers, Ignore), and for custom resources
 * the removal of non-nullable nulls and schema defaulting.
 */
import type { ResourceType } from '../registry.js';
import { applyDefaults } from '../schema/defaulting.js';
import { prune, pruneNonNullableNulls } from '../schema/prune.js';
import { childPath, indexPath, isObject, keyPath, type JSONSchemaProps, type JsonObject } from '../schema/types.js';
import { badRequest } from '../status-errors.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export function parseFieldValidation(v: string | null | undefined, fallback: FieldValidation): FieldValidation {
  if (v === null || v === undefined || v === '') return fallback;
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw badRequest(`fieldValidation ${v} is invalid. Valid values: Ignore, Warn, Strict`);
}

export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** The Go type name a field error mentions, for built-in decode errors. */
function goType(s: JSONSchemaProps): string {
  if (s['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  switch (s.type) {
    case 'integer':
      return s.format === 'int64' ? 'int64' : 'int32';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'array':
      return '[]interface {}';
    default:
      return s['x-steward-model']
        ? `v1.${String(s['x-steward-model']).replace(/^V1|^CoreV1|^EventsV1/, '')}`
        : 'map[string]interface {}';
  }
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v; // string, number, boolean
}

/**
 * Built-ins are decoded into Go structs: a JSON value of the wrong type is a 400 BadRequest
 * (`json: cannot unmarshal string into Go struct field ... of type int32`), not a 422.
 */
function checkGoTypes(v: unknown, s: JSONSchemaProps | undefined, path: string, kind: string): void {
  if (!s || v === null || v === undefined) return;
  const fail = (): never => {
    throw badRequest(
      `${kind} in version cannot be handled: json: cannot unmarshal ${jsonKind(v)} into Go struct field ${kind}.${path} of type ${goType(s)}`,
    );
  };
  if (s['x-kubernetes-int-or-string']) {
    if (typeof v !== 'string' && !(typeof v === 'number' && (Number.isInteger(v) || s['x-steward-quantity']))) fail();
    return;
  }
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.type) return;
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string') fail();
      return;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) fail();
      return;
    case 'number':
      if (typeof v !== 'number') fail();
      return;
    case 'boolean':
      if (typeof v !== 'boolean') fail();
      return;
    case 'array':
      if (!Array.isArray(v)) fail();
      (v as unknown[]).forEach((x, i) => checkGoTypes(x, s.items, indexPath(path, i), kind));
      return;
    case 'object': {
      if (!isObject(v)) fail();
      const o = v as JsonObject;
      const additional = isObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
      for (const [k, x] of Object.entries(o)) {
        const ps = s.properties?.[k];
        if (ps) checkGoTypes(x, ps, childPath(path, k), kind);
        else if (additional) checkGoTypes(x, additional, keyPath(path, k), kind);
      }
      return;
    }
  }
}

export interface Decoded {
  obj: JsonObject;
  warnings: string[];
}

/**
 * Decodes a request body for `type`. `body` is not modified. Throws 400 for malformed input and for
 * unknown fields under `Strict`.
 */
export function decodeBody(
  type: ResourceType,
  body: unknown,
  validation: FieldValidation,
  source: 'body' | 'patch' = 'body',
): Decoded {
  if (!isObject(body))
    throw badRequest(
      `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: expected an object`,
    );
  const apiVersion = apiVersionOf(type);
  const obj = JSON.parse(JSON.stringify(body)) as JsonObject;
  const bodyKind = typeof obj.kind === 'string' ? obj.kind : '';
  const bodyApiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  if (bodyKind && bodyKind !== type.kind) {
    throw badRequest(
      `${bodyKind} in version "${bodyApiVersion.split('/').pop() ?? ''}" cannot be handled as a ${type.kind}: no kind "${bodyKind}" is registered for version "${bodyApiVersion || apiVersion}"`,
    );
  }
  if (bodyApiVersion && bodyApiVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${bodyApiVersion}) does not match the expected API version (${apiVersion})`,
    );
  }
  obj.apiVersion = apiVersion;
  obj.kind = type.kind;
  if (obj.metadata !== undefined && obj.metadata !== null && !isObject(obj.metadata)) {
    throw badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: json: cannot unmarshal ${jsonKind(obj.metadata)} into Go struct field ${type.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  if (!isObject(obj.metadata)) obj.metadata = {};
  if (type.builtin) {
    try {
      checkGoTypes(obj, type.schema, '', type.kind);
    } catch (e) {
      // Re-word with the version, as transformDecodeError does.
      const msg = (e as Error).message.replace(`${type.kind} in version cannot be handled: `, '');
      throw badRequest(`${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: ${msg}`);
    }
  }
  const unknown = prune(obj, type.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, {
    resourceRoot: true,
  });
  const warnings: string[] = [];
  if (unknown.length && validation !== 'Ignore') {
    const msgs = unknown.map((p) => `unknown field "${p}"`);
    if (validation === 'Strict') {
      // A patched object is decoded without the "cannot be handled as" prefix (patch.go).
      const prefix =
        source === 'patch' ? '' : `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: `;
      throw badRequest(`${prefix}strict decoding error: ${msgs.join(', ')}`);
    }
    warnings.push(...msgs);
  }
  if (!type.builtin && type.schema) {
    pruneNonNullableNulls(obj, type.schema);
    applyDefaults(obj, type.schema);
  }
  return { obj, warnings };
}
