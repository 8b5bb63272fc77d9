/** Rules the update path applies: when generation moves, when a write is a no-op, what still holds a deletion. */
import type { ResourceType } from '../registry.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';

export function isEmpty(v: unknown): boolean {
  return !Array.isArray(v) || v.length === 0;
}

/** Namespaces carry their own finalizers in spec.finalizers. */
export function hasSpecFinalizers(type: ResourceType, o: JsonObject): boolean {
  return (
    type.group === '' && type.resource === 'namespaces' && !isEmpty(isObject(o.spec) ? o.spec.finalizers : undefined)
  );
}

function withoutKeys(o: JsonObject, keys: string[]): JsonObject {
  const c: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) c[k] = v;
  return c;
}

export function generationChanged(type: ResourceType, next: JsonObject, old: JsonObject): boolean {
  const rule = type.generation;
  if (rule === 'none') return false;
  if (rule === 'spec') return !jsonEqual(next.spec, old.spec);
  if (rule === 'all-but-metadata-status')
    return !jsonEqual(withoutKeys(next, ['metadata', 'status']), withoutKeys(old, ['metadata', 'status']));
  if (rule === 'all-but-metadata') return !jsonEqual(withoutKeys(next, ['metadata']), withoutKeys(old, ['metadata']));
  return rule(next, old);
}

/** A write is a no-op when nothing but resourceVersion and managedFields timestamps differ. */
export function sameObject(a: JsonObject, b: JsonObject): boolean {
  const norm = (o: JsonObject): JsonObject => {
    const m = { ...(isObject(o.metadata) ? o.metadata : {}) };
    delete m.resourceVersion;
    if (Array.isArray(m.managedFields))
      m.managedFields = m.managedFields.map((e) => (isObject(e) ? { ...e, time: undefined } : e));
    return { ...o, metadata: m };
  };
  return jsonEqual(JSON.parse(JSON.stringify(norm(a))), JSON.parse(JSON.stringify(norm(b))));
}
