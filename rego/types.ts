/**
 * OPA's type language, used by builtin declarations and the compile-time checks (arity, argument
 * types of calls whose operands are known at compile time).
 */
import { NumLit, RObject, RSet, compareStrings, type Value } from './value.js';

export type Type =
  | { readonly kind: 'any'; readonly of: readonly Type[] } // `of` empty: any value
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'number' }
  | { readonly kind: 'string' }
  | { readonly kind: 'array'; readonly static: readonly Type[]; readonly dynamic?: Type }
  | { readonly kind: 'set'; readonly of: Type }
  | {
      readonly kind: 'object';
      readonly static: readonly (readonly [string, Type])[];
      readonly dynamic?: { readonly key: Type; readonly value: Type };
    }
  | { readonly kind: 'function'; readonly args: readonly Type[]; readonly result: Type; readonly variadic?: Type };

const any: Type = { kind: 'any', of: [] };
const string: Type = { kind: 'string' };
const number: Type = { kind: 'number' };
const boolean: Type = { kind: 'boolean' };
const nul: Type = { kind: 'null' };

/** Type constructors, named as in OPA's `types` package. */
export const T = {
  any,
  string,
  number,
  boolean,
  null: nul,
  /** array of any length whose elements have type `of` */
  array: (of: Type = any): Type => ({ kind: 'array', static: [], dynamic: of }),
  /** fixed-length array (tuple) */
  tuple: (...items: Type[]): Type => ({ kind: 'array', static: items }),
  set: (of: Type = any): Type => ({ kind: 'set', of }),
  /** object with keys of type `key` and values of type `value` */
  object: (key: Type = any, value: Type = any): Type => ({ kind: 'object', static: [], dynamic: { key, value } }),
  /** object with known properties (and optionally more of a dynamic type) */
  record: (props: Record<string, Type>, dynamic?: { key: Type; value: Type }): Type => ({
    kind: 'object',
    static: Object.entries(props).sort((a, b) => compareStrings(a[0], b[0])),
    ...(dynamic ? { dynamic } : {}),
  }),
  /** union; `anyOf()` with no members is `any` */
  anyOf: (...of: Type[]): Type => ({ kind: 'any', of }),
  fn: (args: Type[], result: Type, variadic?: Type): Type => ({
    kind: 'function',
    args,
    result,
    ...(variadic ? { variadic } : {}),
  }),
} as const;

/** Handy unions OPA uses often. */
export const Types = {
  setOfAny: T.set(),
  arrayOfAny: T.array(),
  objectOfAny: T.object(),
  collection: T.anyOf(T.array(), T.object(), T.set()),
  stringOrNumber: T.anyOf(string, number),
} as const;

/** OPA's rendering of a type, e.g. `array[string]`, `any<number, string>`, `object[string: any]`. */
export function typeString(t: Type): string {
  switch (t.kind) {
    case 'any':
      return t.of.length === 0 ? 'any' : `any<${t.of.map(typeString).join(', ')}>`;
    case 'array': {
      let s = 'array';
      if (t.static.length > 0) s += `<${t.static.map(typeString).join(', ')}>`;
      if (t.dynamic) s += `[${typeString(t.dynamic)}]`;
      return s;
    }
    case 'set':
      return `set[${typeString(t.of)}]`;
    case 'object': {
      let s = 'object';
      if (t.static.length > 0) s += `<${t.static.map(([k, v]) => `${k}: ${typeString(v)}`).join(', ')}>`;
      if (t.dynamic) s += `[${typeString(t.dynamic.key)}: ${typeString(t.dynamic.value)}]`;
      return s;
    }
    case 'function': {
      const args = t.args.map(typeString);
      if (t.variadic) args.push(`${typeString(t.variadic)}...`);
      return `(${args.join(', ')}) => ${typeString(t.result)}`;
    }
    default:
      return t.kind;
  }
}

/** The most precise type of a concrete value. */
export function typeOfValue(v: Value): Type {
  if (v === null) return nul;
  switch (typeof v) {
    case 'boolean':
      return boolean;
    case 'number':
    case 'bigint':
      return number;
    case 'string':
      return string;
    default:
      if (Array.isArray(v)) return T.tuple(...v.map(typeOfValue));
      if (v instanceof NumLit) return number;
      if (v instanceof RSet) return T.set(unionOf(v.values().map(typeOfValue)));
      return objectTypeOf(v);
  }
}

function objectTypeOf(o: RObject): Type {
  const props: [string, Type][] = [];
  const dynKeys: Type[] = [];
  const dynVals: Type[] = [];
  for (const [k, v] of o.entries()) {
    if (typeof k === 'string') props.push([k, typeOfValue(v)]);
    else {
      dynKeys.push(typeOfValue(k));
      dynVals.push(typeOfValue(v));
    }
  }
  return {
    kind: 'object',
    static: props,
    ...(dynKeys.length > 0 ? { dynamic: { key: unionOf(dynKeys), value: unionOf(dynVals) } } : {}),
  };
}

/** Union of types, flattening and de-duplicating; a single member stands alone. */
export function unionOf(ts: readonly Type[]): Type {
  const out: Type[] = [];
  for (const t of ts) {
    if (t.kind === 'any' && t.of.length === 0) return any;
    for (const m of t.kind === 'any' ? t.of : [t]) {
      if (!out.some((o) => typeString(o) === typeString(m))) out.push(m);
    }
  }
  if (out.length === 0) return any;
  return out.length === 1 ? out[0]! : { kind: 'any', of: out };
}

/**
 * Whether a value of type `actual` may be passed where `expected` is declared. Lenient like OPA's
 * checker: `any` on either side matches, unions match if any member can.
 */
export function assignable(expected: Type, actual: Type): boolean {
  if (expected.kind === 'any') {
    return expected.of.length === 0 || expected.of.some((e) => assignable(e, actual));
  }
  if (actual.kind === 'any') {
    return actual.of.length === 0 || actual.of.some((a) => assignable(expected, a));
  }
  if (expected.kind !== actual.kind) return false;
  switch (expected.kind) {
    case 'array': {
      const a = actual as Extract<Type, { kind: 'array' }>;
      const elem = (ts: Extract<Type, { kind: 'array' }>, i: number): Type | undefined => ts.static[i] ?? ts.dynamic;
      if (a.static.length > 0) {
        if (!expected.dynamic && expected.static.length !== a.static.length) return false;
        return a.static.every((t, i) => {
          const e = elem(expected, i);
          return e === undefined ? false : assignable(e, t);
        });
      }
      if (a.dynamic && expected.dynamic) return assignable(expected.dynamic, a.dynamic);
      return true;
    }
    case 'set':
      return assignable(expected.of, (actual as Extract<Type, { kind: 'set' }>).of);
    case 'object': {
      const a = actual as Extract<Type, { kind: 'object' }>;
      if (expected.dynamic) {
        for (const [, v] of a.static) {
          if (!assignable(expected.dynamic.key, string) || !assignable(expected.dynamic.value, v)) return false;
        }
        if (a.dynamic) {
          return assignable(expected.dynamic.key, a.dynamic.key) && assignable(expected.dynamic.value, a.dynamic.value);
        }
      }
      return true;
    }
    default:
      return true;
  }
}
