/**
 * The OpenAPI v3 schema subset that CRDs (apiextensions.k8s.io/v1 JSONSchemaProps) carry. Built-in kinds get
 * the same shape from `builtin-schemas.ts`, so pruning, unknown-field detection and validation are one code path.
 */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  example?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
  /** Set on built-in schemas only: the client-node model class, used to name OpenAPI components. */
  'x-steward-model'?: string;
  /** Set on built-in schemas only: a Go-decoded quantity (string or number). */
  'x-steward-quantity'?: boolean;
}

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Appends a property name to a dotted path the way field.Path renders it. */
export function childPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}

export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

/** The schema of a map value or object property, or undefined when the field is unknown. */
export function propertySchema(schema: JSONSchemaProps, name: string): JSONSchemaProps | undefined {
  if (schema.properties && Object.prototype.hasOwnProperty.call(schema.properties, name))
    return schema.properties[name];
  if (isObject(schema.additionalProperties)) return schema.additionalProperties as JSONSchemaProps;
  return undefined;
}

/** Whether a node keeps fields that its schema does not name. */
export function preservesUnknown(schema: JSONSchemaProps): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
}

/** Deep equality for JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) {
    if (!Object.prototype.hasOwnProperty.call(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  }
  return true;
}

export function deepClone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
