/**
 * Schemas of the built-in kinds, derived from @kubernetes/client-node's generated models (the upstream
 * OpenAPI document turned into classes with `attributeTypeMap`). They drive unknown-field detection for
 * `fieldValidation`, Go-style type checks on decode, and the OpenAPI v3 documents kubectl downloads.
 */
// NB: the package root pulls in undici 8, which does not load on Node 20; the models folder is pure data.
import * as models from '@kubernetes/client-node/dist/gen/models/all.js';
import type { JSONSchemaProps } from './types.js';

interface Attribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

interface ModelClass {
  getAttributeTypeMap(): Attribute[];
}

const registry = models as unknown as Record<string, ModelClass | undefined>;

/** Fields whose Go type is resource.Quantity: JSON accepts a string or a number. */
const QUANTITY_FIELDS = new Set([
  'limits',
  'requests',
  'capacity',
  'allocatable',
  'hard',
  'used',
  'sizeLimit',
  'overhead',
]);

const cache = new Map<string, JSONSchemaProps>();

/** True when client-node has a model class of that name (e.g. `V1Deployment`). */
export function hasModel(className: string): boolean {
  return typeof registry[className]?.getAttributeTypeMap === 'function';
}

/**
 * The schema of a model class. Nodes are shared and may be cyclic (JSONSchemaProps contains itself):
 * walkers follow the data, which is finite, never the schema alone.
 */
export function modelSchema(className: string): JSONSchemaProps {
  const hit = cache.get(className);
  if (hit) return hit;
  const cls = registry[className];
  if (!cls || typeof cls.getAttributeTypeMap !== 'function') throw new Error(`no client-node model named ${className}`);
  const node: JSONSchemaProps = { type: 'object', properties: {}, 'x-steward-model': className };
  cache.set(className, node); // before recursing, so cycles terminate
  for (const attr of cls.getAttributeTypeMap()) {
    node.properties![attr.baseName] = typeSchema(attr.type, attr.format, attr.baseName);
  }
  return node;
}

function typeSchema(type: string, format: string, fieldName: string): JSONSchemaProps {
  const quantity = QUANTITY_FIELDS.has(fieldName);
  if (type === 'string') {
    if (quantity) return quantitySchema();
    return format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
  }
  if (type === 'Date') return { type: 'string', format: format || 'date-time' };
  if (type === 'boolean') return { type: 'boolean' };
  if (type === 'number') {
    if (format === 'double' || format === 'float') return { type: 'number', format };
    return format ? { type: 'integer', format } : { type: 'integer' };
  }
  if (type === 'IntOrString') return { 'x-kubernetes-int-or-string': true };
  if (type === 'any') return { 'x-kubernetes-preserve-unknown-fields': true };
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return { type: 'array', items: typeSchema(array[1]!, format, '') };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    const value = quantity && map[1] === 'string' ? quantitySchema() : typeSchema(map[1]!, format, '');
    return { type: 'object', additionalProperties: value };
  }
  if (hasModel(type)) return modelSchema(type);
  // A type name client-node does not define: accept anything rather than reject valid objects.
  return { 'x-kubernetes-preserve-unknown-fields': true };
}

function quantitySchema(): JSONSchemaProps {
  return { 'x-kubernetes-int-or-string': true, 'x-steward-quantity': true };
}

/** The ObjectMeta schema every kind shares (CR schemas leave `metadata` open; the server does not). */
export function objectMetaSchema(): JSONSchemaProps {
  return modelSchema('V1ObjectMeta');
}
