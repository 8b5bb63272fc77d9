/**
 * GraphQL AST nodes (lib/graphql) as the Rego objects OPA returns: gqlparser's structs after a JSON
 * round trip, which drops `Position`, nulls and empty collections but keeps "", false and 0.
 */
import { RObject, type Value } from '../../value.js';

// Keys that exist on the TS nodes but not on the Go structs.
const INTERNAL = new Set(['kind', 'Position']);

/**
 * Converts a node to OPA's Rego object: Position and internal keys dropped, null values and empty
 * arrays/objects dropped (recursively), other zero values ("" , false, 0) kept.
 */
export function toRego(node: unknown): Value | undefined {
  if (node === null || node === undefined) return undefined;
  if (Array.isArray(node)) {
    const out: Value[] = [];
    for (const x of node) {
      const v = toRego(x);
      if (v === undefined) continue;
      if ((Array.isArray(v) && v.length === 0) || (v instanceof RObject && v.size === 0)) continue;
      out.push(v);
    }
    return out;
  }
  if (typeof node === 'object') {
    const o = new RObject();
    for (const [k, x] of Object.entries(node as Record<string, unknown>)) {
      if (INTERNAL.has(k)) continue;
      const v = toRego(x);
      if (v === undefined) continue;
      if ((Array.isArray(v) && v.length === 0) || (v instanceof RObject && v.size === 0)) continue;
      o.set(k, v);
    }
    return o;
  }
  return node as Value;
}
