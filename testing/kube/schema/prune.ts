/**
 * Pruning: the server drops every field its schema does not declare (structural pruning for custom
 * resources, Go struct decoding for built-ins) and, when asked, reports their paths so that
 * `fieldValidation=Strict|Warn` can reject or warn with `unknown field "<path>"`.
 */
import {
  childPath,
  indexPath,
  isObject,
  keyPath,
  preservesUnknown,
  type JSONSchemaProps,
  type JsonObject,
} from './types.js';
import { objectMetaSchema } from './builtin.js';

export interface PruneOptions {
  /** The root is a whole resource: apiVersion, kind and metadata are always allowed there. */
  resourceRoot: boolean;
}

/**
 * Removes unknown fields from `value` in place and returns their paths, in document order.
 * `path` is the path of `value` itself ('' at the root).
 */
export function prune(value: unknown, schema: JSONSchemaProps | undefined, opts: PruneOptions, path = ''): string[] {
  const unknown: string[] = [];
  walk(value, schema, path, opts.resourceRoot, unknown);
  return unknown;
}

function walk(
  value: unknown,
  schema: JSONSchemaProps | undefined,
  path: string,
  resourceRoot: boolean,
  unknown: string[],
): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return;
    for (let i = 0; i < value.length; i++) walk(value[i], items, indexPath(path, i), false, unknown);
    return;
  }
  if (!isObject(value)) return;
  const embedded = resourceRoot || schema['x-kubernetes-embedded-resource'] === true;
  if (embedded) pruneMetadata(value, path, unknown);
  const keep = preservesUnknown(schema);
  const props = schema.properties;
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const key of Object.keys(value)) {
    if (embedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const child = value[key];
    if (props && Object.prototype.hasOwnProperty.call(props, key)) {
      walk(child, props[key], childPath(path, key), false, unknown);
    } else if (additional) {
      walk(child, additional, keyPath(path, key), false, unknown);
    } else if (keep) {
      // NB: preserved subtrees are not pruned, but a nested schema under them still is (none here).
      continue;
    } else {
      delete value[key];
      unknown.push(childPath(path, key));
    }
  }
}

/** ObjectMeta is decoded as a Go struct even inside custom resources: unknown keys are dropped. */
function pruneMetadata(obj: JsonObject, path: string, unknown: string[]): void {
  const meta = obj.metadata;
  if (!isObject(meta)) return;
  walk(meta, objectMetaSchema(), childPath(path, 'metadata'), false, unknown);
}

/**
 * Drops `null` values whose schema is neither nullable nor defaulted (the server does the same before
 * validating custom resources, so `field: null` means "unset" rather than a type error).
 */
export function pruneNonNullableNulls(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) pruneNonNullableNulls(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const s = schema.properties?.[key] ?? additional;
    if (!s) continue;
    if (child === null) {
      if (!s.nullable && s.default === undefined) delete value[key];
      continue;
    }
    pruneNonNullableNulls(child, s);
  }
}
