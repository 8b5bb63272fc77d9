/**
 * Rego's value model — the public surface shared by the engine and every builtin family.
 * Composite values are never mutated after construction (RObject.set / RSet.add are for building).
 */
import { RObject, RSet, type Value } from './value-core.js';
import { NumLit, normNum } from './value-scalar.js';
import { toJSONText } from './value-text.js';

export { RObject, RSet, typeName, compare, equal, keyOf } from './value-core.js';
export {
  NumLit,
  numberValue,
  hasIntText,
  numOf,
  normNum,
  isNumber,
  isInteger,
  compareNumbers,
  compareStrings,
} from './value-scalar.js';
export type { Value, TypeName } from './value-core.js';
export { parseJSON, JSONParseError } from './value-json.js';
export { toJSONText, toRegoText, quoteGo, type JSONTextOptions } from './value-text.js';

/** Converts plain JSON-ish JS data (objects, arrays, Maps, Sets) to Rego values. */
export function fromJS(x: unknown): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'boolean':
    case 'string':
      return x;
    case 'number':
      if (!Number.isFinite(x)) throw new TypeError(`cannot convert ${x} to a Rego number`);
      return normNum(x);
    case 'bigint':
      return normNum(x);
    case 'object': {
      if (Array.isArray(x)) return x.map(fromJS);
      if (x instanceof RObject || x instanceof RSet || x instanceof NumLit) return x;
      if (x instanceof Set) return RSet.from([...x].map(fromJS));
      if (x instanceof Map) {
        const o = new RObject();
        for (const [k, v] of x) o.set(fromJS(k), fromJS(v));
        return o;
      }
      const o = new RObject();
      for (const k of Object.keys(x)) {
        const v = (x as Record<string, unknown>)[k];
        if (v !== undefined) o.set(k, fromJS(v));
      }
      return o;
    }
    default:
      throw new TypeError(`cannot convert ${typeof x} to a Rego value`);
  }
}

export type JSValue = null | boolean | number | bigint | string | JSValue[] | { [k: string]: JSValue };

/**
 * Converts to plain JS: sets become arrays in sorted order, objects plain objects. Non-string object
 * keys are rendered as their JSON text, as OPA does when it serializes such objects.
 */
export function toJS(v: Value): JSValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(toJS);
  if (v instanceof NumLit) return v.n;
  if (v instanceof RSet) return v.values().map(toJS);
  const out: { [k: string]: JSValue } = {};
  for (const [k, val] of v.entries()) out[typeof k === 'string' ? k : toJSONText(k)] = toJS(val);
  return out;
}
