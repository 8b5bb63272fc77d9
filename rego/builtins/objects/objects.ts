/**
 * object.get/keys/remove/filter/union/union_n/subset (OPA's topdown/object.go and subset.go); the
 * json.filter/remove and json.patch builtins live in json-paths.ts and json-patch.ts.
 */
import { OperandError, operandElementError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { RObject, RSet, compare, equal, keyOf, type Value } from '../../value.js';
import * as A from '../args.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const objectOfAny = T.object();
const keysType = T.anyOf(T.array(), T.set(), objectOfAny);
const collection = T.anyOf(objectOfAny, T.set(), T.array());

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  'object.get': { args: [objectOfAny, T.any, T.any], result: T.any },
  'object.keys': { args: [objectOfAny], result: T.set() },
  'object.remove': { args: [objectOfAny, keysType], result: T.any },
  'object.filter': { args: [objectOfAny, keysType], result: T.any },
  'object.union': { args: [objectOfAny, objectOfAny], result: T.any },
  'object.union_n': { args: [T.array(objectOfAny)], result: T.any },
  'object.subset': { args: [collection, collection], result: T.any },
};

/**
 * Follows `path` through objects (by key), arrays (by integer index) and sets (by member), as OPA's
 * Value.Find does; undefined when any step is missing.
 */
export function findPath(root: Value, path: readonly Value[]): Value | undefined {
  let cur: Value = root;
  for (const seg of path) {
    if (cur instanceof RObject) {
      const next = cur.get(seg);
      if (next === undefined) return undefined;
      cur = next;
    } else if (Array.isArray(cur)) {
      if (typeof seg !== 'number' || !Number.isInteger(seg) || seg < 0 || seg >= cur.length) return undefined;
      cur = cur[seg]!;
    } else if (cur instanceof RSet) {
      if (!cur.has(seg)) return undefined;
      cur = seg;
    } else {
      return undefined;
    }
  }
  return cur;
}

function getImpl(args: readonly Value[]): Value {
  const o = A.obj(args, 0);
  const key = A.any(args, 1);
  const dflt = A.any(args, 2);
  if (!Array.isArray(key)) return o.get(key) ?? dflt;
  if (key.length === 0) return o;
  return findPath(o, key) ?? dflt;
}

/** The keys named by an array, set or object (its keys), as OPA's getObjectKeysParam. */
function keyParam(args: readonly Value[]): RSet {
  const v = A.any(args, 1);
  if (Array.isArray(v)) return RSet.from(v);
  if (v instanceof RSet) return v;
  if (v instanceof RObject) return RSet.from(v.keys());
  throw operandError(2, ['object', 'set', 'array'], v);
}

function removeImpl(args: readonly Value[]): Value {
  const o = A.obj(args, 0);
  const drop = keyParam(args);
  const out = new RObject();
  o.forEachUnordered((k, v) => {
    if (!drop.has(k)) out.set(k, v);
  });
  return out;
}

function filterImpl(args: readonly Value[]): Value {
  const o = A.obj(args, 0);
  const keep = keyParam(args);
  const out = new RObject();
  keep.forEachUnordered((k) => {
    const v = o.get(k);
    if (v !== undefined) out.set(k, v);
  });
  return out;
}

/** Recursive merge where b wins, except that two objects under the same key merge. */
export function mergeWithOverwrite(a: RObject, b: RObject): RObject {
  const out = new RObject();
  a.forEachUnordered((k, v) => out.set(k, v));
  b.forEachUnordered((k, v) => {
    const prev = a.get(k);
    out.set(k, prev instanceof RObject && v instanceof RObject ? mergeWithOverwrite(prev, v) : v);
  });
  return out;
}

function unionImpl(args: readonly Value[]): Value {
  const a = A.obj(args, 0);
  const b = A.obj(args, 1);
  if (equal(a, b)) return a;
  return mergeWithOverwrite(a, b);
}

/** A mutable object used while folding object.union_n. */
class Draft {
  readonly slots = new Map<string, [Value, Value | Draft]>();

  static of(o: RObject): Draft {
    const d = new Draft();
    o.forEachUnordered((k, v) => d.slots.set(keyOf(k), [k, v instanceof RObject ? Draft.of(v) : v]));
    return d;
  }

  toValue(): RObject {
    const out = new RObject();
    for (const [k, v] of this.slots.values()) out.set(k, v instanceof Draft ? v.toValue() : v);
    return out;
  }
}

/**
 * Folds `other` into `into`, where `into` holds the later (winning) objects: new keys are added, two
 * objects merge, and once a non-object has shadowed an object that object is frozen, so no earlier
 * object can merge into it (OPA's mergewithOverwriteInPlace).
 */
function mergeInto(into: Draft, other: RObject, frozen: Set<Draft>): void {
  other.forEachUnordered((k, v) => {
    const kk = keyOf(k);
    const slot = into.slots.get(kk);
    if (slot === undefined) {
      into.slots.set(kk, [k, v instanceof RObject ? Draft.of(v) : v]);
      return;
    }
    const cur = slot[1];
    if (cur instanceof Draft && v instanceof RObject) {
      if (!frozen.has(cur)) mergeInto(cur, v, frozen);
    } else if (cur instanceof Draft) {
      frozen.add(cur);
    }
  });
}

function unionNImpl(args: readonly Value[]): Value {
  const list = A.arr(args, 0);
  const acc = new Draft();
  const frozen = new Set<Draft>();
  for (let i = list.length - 1; i >= 0; i--) {
    const o = list[i]!;
    if (!(o instanceof RObject)) throw operandElementError(1, list as Value[], o, 'object');
    mergeInto(acc, o, frozen);
  }
  return acc.toValue();
}

// ---------------------------------------------------------------------------------------------
// object.subset

function objectSubset(sup: RObject, sub: RObject): boolean {
  for (const [k, subV] of sub.entries()) {
    const supV = sup.get(k);
    if (supV === undefined) return false;
    if (equal(subV, supV)) continue;
    if (supV instanceof RObject && subV instanceof RObject) {
      if (!objectSubset(supV, subV)) return false;
    } else if (supV instanceof RSet && subV instanceof RSet) {
      if (!setSubset(supV, subV)) return false;
    } else if (Array.isArray(supV) && Array.isArray(subV)) {
      if (!arraySubset(supV, subV)) return false;
    } else {
      return false;
    }
  }
  return true;
}

function setSubset(sup: RSet, sub: RSet): boolean {
  let ok = true;
  sub.forEachUnordered((v) => {
    if (ok && !sup.has(v)) ok = false;
  });
  return ok;
}

/** `sub` occurs contiguously, in order, within `sup`. */
function arraySubset(sup: readonly Value[], sub: readonly Value[]): boolean {
  if (sub.length > sup.length) return false;
  outer: for (let start = 0; start + sub.length <= sup.length; start++) {
    for (let j = 0; j < sub.length; j++) {
      if (compare(sup[start + j]!, sub[j]!) !== 0) continue outer;
    }
    return true;
  }
  return false;
}

/**
 * NB: OPA counts matching array elements down from the set's size and stops at zero, so duplicates
 * in the array count more than once and an empty array is never a superset — reproduced as is.
 */
function arraySetSubset(sup: readonly Value[], sub: RSet): boolean {
  let unmatched = sub.size;
  for (const v of sup) {
    if (sub.has(v)) unmatched--;
    if (unmatched === 0) return true;
  }
  return false;
}

function subsetImpl(args: readonly Value[]): Value {
  const sup = A.any(args, 0);
  const sub = A.any(args, 1);
  if (sup instanceof RObject && sub instanceof RObject) return objectSubset(sup, sub);
  if (sup instanceof RSet && sub instanceof RSet) return setSubset(sup, sub);
  if (Array.isArray(sup) && Array.isArray(sub)) return arraySubset(sup, sub);
  if (Array.isArray(sup) && sub instanceof RSet) return arraySetSubset(sup, sub);
  throw new OperandError('both arguments object.subset must be of the same type or array and set');
}

const impls: Record<string, BuiltinImpl> = {
  'object.get': getImpl,
  'object.keys': (args) => RSet.from(A.obj(args, 0).keys()),
  'object.remove': removeImpl,
  'object.filter': filterImpl,
  'object.union': unionImpl,
  'object.union_n': unionNImpl,
  'object.subset': subsetImpl,
};

export function register(r: BuiltinRegistry): void {
  for (const [name, decl] of Object.entries(decls)) r.add({ name, ...decl }, impls[name]!);
}
