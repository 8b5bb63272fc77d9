/**
 * Operations on OPA's types that the compile-time type checker needs (OPA's `types` package and
 * the unification rules of its checker): selecting into a type, the keys and values of a
 * collection type, and whether two types can describe the same value. `undefined` is OPA's nil
 * type: nothing is known yet (a var not bound so far).
 */
import { T, typeOfValue, typeString, unionOf, type Type } from '../types.js';
import type { Value } from '../value.js';

export type MaybeType = Type | undefined;

type ArrayT = Extract<Type, { kind: 'array' }>;
type ObjectT = Extract<Type, { kind: 'object' }>;

const isAny = (t: Type): boolean => t.kind === 'any' && t.of.length === 0;

/** A type still holding an unknown (nil) part: OPA unifies such a side structurally. */
export function hasNil(t: MaybeType): boolean {
  if (t === undefined) return true;
  switch (t.kind) {
    case 'array':
      return t.static.some(hasNil) || (t.dynamic !== undefined && hasNil(t.dynamic));
    case 'set':
      return hasNil(t.of);
    case 'object':
      return (
        t.static.some(([, v]) => hasNil(v)) ||
        (t.dynamic !== undefined && (hasNil(t.dynamic.key) || hasNil(t.dynamic.value)))
      );
    default:
      return false;
  }
}

/** OPA's Array.Select: the element at a position, or the dynamic element type. */
export function selectIndex(t: ArrayT, i: number): MaybeType {
  if (i >= 0 && i < t.static.length) return t.static[i];
  return i >= 0 ? t.dynamic : undefined;
}

/** OPA's Object.Select for a constant key: a static property, else the dynamic one if its key type fits. */
export function selectKey(t: ObjectT, key: Value): MaybeType {
  if (typeof key === 'string') {
    const hit = t.static.find(([k]) => k === key);
    if (hit) return hit[1];
  }
  return t.dynamic && contains(t.dynamic.key, typeOfValue(key)) ? t.dynamic.value : undefined;
}

/** OPA's types.Contains: `a` is `b`, or a union (or `any`) holding `b`. */
function contains(a: Type, b: Type): boolean {
  if (a.kind === 'any') return a.of.length === 0 || a.of.some((m) => typeString(m) === typeString(b));
  return typeString(a) === typeString(b);
}

/** OPA's types.Keys: the type of the keys of a collection (undefined for scalars). */
export function keysOf(t: Type): MaybeType {
  switch (t.kind) {
    case 'array':
      return T.number;
    case 'set':
      return t.of;
    case 'object': {
      const ks: Type[] = t.static.length > 0 ? [T.string] : [];
      if (t.dynamic) ks.push(t.dynamic.key);
      return ks.length > 0 ? unionOf(ks) : T.any;
    }
    case 'any':
      return isAny(t) ? T.any : unionOrUndefined(t.of.map(keysOf));
    default:
      return undefined;
  }
}

/** OPA's types.Values: the type of the elements of a collection (undefined for scalars). */
export function valuesOf(t: Type): MaybeType {
  switch (t.kind) {
    case 'array': {
      const vs = [...t.static, ...(t.dynamic ? [t.dynamic] : [])];
      return vs.length > 0 ? unionOf(vs) : T.any;
    }
    case 'set':
      return t.of;
    case 'object': {
      const vs = [...t.static.map(([, v]) => v), ...(t.dynamic ? [t.dynamic.value] : [])];
      return vs.length > 0 ? unionOf(vs) : T.any;
    }
    case 'any':
      return isAny(t) ? T.any : unionOrUndefined(t.of.map(valuesOf));
    default:
      return undefined;
  }
}

function unionOrUndefined(ts: MaybeType[]): MaybeType {
  const known = ts.filter((t): t is Type => t !== undefined);
  return known.length > 0 ? unionOf(known) : undefined;
}

/** Selecting one key into a type: a constant key picks a member, anything else all values. */
export function selectType(t: Type, key: Value | undefined): MaybeType {
  if (t.kind === 'any') {
    if (isAny(t)) return T.any;
    return unionOrUndefined(t.of.map((m) => selectType(m, key)));
  }
  if (key === undefined) return valuesOf(t);
  if (t.kind === 'array') return typeof key === 'number' && Number.isInteger(key) ? selectIndex(t, key) : undefined;
  if (t.kind === 'object') return selectKey(t, key);
  if (t.kind === 'set') {
    const k = typeOfValue(key);
    if (typeString(t.of) === typeString(k)) return t.of;
    return t.of.kind === 'any' && contains(t.of, k) ? k : undefined;
  }
  return undefined;
}

/** OPA's `unifies`: whether some value can have both types. Unions unify if any member does. */
export function unifies(a: MaybeType, b: MaybeType): boolean {
  if (a === undefined || b === undefined) return false;
  if (a.kind === 'any') return isAny(a) || a.of.some((m) => unifies(m, b));
  if (b.kind === 'any') return isAny(b) || b.of.some((m) => unifies(a, m));
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'array':
      return unifiesArrays(a, b as ArrayT);
    case 'object':
      return unifiesObjects(a, b as ObjectT);
    case 'set':
      return unifies(a.of, (b as Extract<Type, { kind: 'set' }>).of);
    default:
      return true;
  }
}

function unifiesArrays(a: ArrayT, b: ArrayT): boolean {
  const staticOk = (x: ArrayT, y: ArrayT): boolean => x.static.every((t, i) => unifies(t, selectIndex(y, i)));
  if (!staticOk(a, b) || !staticOk(b, a)) return false;
  return a.dynamic === undefined || b.dynamic === undefined || unifies(a.dynamic, b.dynamic);
}

function unifiesObjects(a: ObjectT, b: ObjectT): boolean {
  const staticOk = (x: ObjectT, y: ObjectT): boolean => x.static.every(([k, t]) => unifies(t, selectKey(y, k)));
  if (!staticOk(a, b) || !staticOk(b, a)) return false;
  return a.dynamic === undefined || b.dynamic === undefined || unifies(a.dynamic.value, b.dynamic.value);
}

const ORDER: Record<Type['kind'], number> = {
  null: 0,
  boolean: 1,
  number: 2,
  string: 3,
  array: 4,
  object: 5,
  set: 6,
  any: 7,
  function: 8,
};

/** OPA's rendering of a type (types.Sprint): union members in OPA's type order; unknown is `???`. */
export function showType(t: MaybeType): string {
  if (t === undefined) return '???';
  switch (t.kind) {
    case 'any': {
      if (t.of.length === 0) return 'any';
      const members = [...t.of].sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || (showType(a) < showType(b) ? -1 : 1));
      return `any<${members.map(showType).join(', ')}>`;
    }
    case 'array':
      return `array${t.static.length > 0 ? `<${t.static.map(showType).join(', ')}>` : ''}${t.dynamic ? `[${showType(t.dynamic)}]` : ''}`;
    case 'set':
      return `set[${showType(t.of)}]`;
    case 'object': {
      const props = t.static.length > 0 ? `<${t.static.map(([k, v]) => `${k}: ${showType(v)}`).join(', ')}>` : '';
      return `object${props}${t.dynamic ? `[${showType(t.dynamic.key)}: ${showType(t.dynamic.value)}]` : ''}`;
    }
    default:
      return typeString(t);
  }
}
