/**
 * Structural defaulting of custom resources: a property that is missing (or null while not nullable)
 * takes its schema `default`, top-down, so a defaulted object is then defaulted inside.
 */
import { deepClone, isObject, type JSONSchemaProps } from './types.js';

export function applyDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  if (schema.properties) {
    for (const [key, prop] of Object.entries(schema.properties)) {
      const current = value[key];
      const missing = current === undefined || (current === null && !prop.nullable);
      if (missing && prop.default !== undefined) value[key] = deepClone(prop.default);
    }
  }
  const additional = isObject(schema.additionalProperties)
    ? (schema.additionalProperties as JSONSchemaProps)
    : undefined;
  for (const key of Object.keys(value)) {
    const s = schema.properties?.[key] ?? additional;
    if (s) applyDefaults(value[key], s);
  }
}
