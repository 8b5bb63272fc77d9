/**
 * Core of Rego's value model: the value union, objects, sets and OPA's total order (numbers and the
 * order of numbers and strings are in value-scalar.ts). value.ts is the public surface and re-exports everything here.
 */
import { NumLit, compareNumbers, compareStrings, isNumber, numOf } from './value-scalar.js';

export type Value = null | boolean | number | bigint | string | NumLit | Value[] | RObject | RSet;

type Prim = null | boolean | number | bigint | string;

/** Up to this many keys, primitive keys are found by a scan of the keys instead of a Map. */
const SCAN_MAX = 8;

/**
 * Shared storage for RObject and RSet: insertion-ordered slots plus a lookup map. Primitive keys are
 * looked up directly (JS Map compares numbers/bigints by value); composite keys by a canonical string
 * kept in a second map so that they can never collide with a string key. NB: small collections (most
 * objects and sets, e.g. every input document) have no primitive-key Map: building one cost more than
 * the scans it saves.
 */
class Slots {
  readonly keys: Value[] = [];
  /** present once there are more than SCAN_MAX keys */
  private prim: Map<Prim, number> | undefined;
  /** some key is a NumLit (found by its value, so scans look through it) */
  private lits = false;
  private comp: Map<string, number> | undefined;
  /** order()'s answer; null: the insertion order is OPA's order */
  private sorted: number[] | null | undefined;
  /** the keys in OPA's order, when that is not the insertion order */
  private sortedKeys: Value[] | undefined;

  indexOf(k: Value): number {
    if (k === null || typeof k !== 'object') {
      if (this.prim === undefined) return this.lits ? scanLits(this.keys, k) : scan(this.keys, k);
      const i = this.prim.get(k);
      return i === undefined ? -1 : i;
    }
    if (k instanceof NumLit) return this.indexOf(k.n);
    if (this.comp === undefined) return -1;
    const i = this.comp.get(keyOf(k));
    return i === undefined ? -1 : i;
  }

  /** Returns the slot index and whether it was newly created. */
  insert(k: Value): number {
    const found = this.indexOf(k);
    if (found >= 0) return found;
    const i = this.keys.length;
    this.keys.push(k);
    if (k === null || typeof k !== 'object') {
      this.prim?.set(k, i);
    } else if (k instanceof NumLit) {
      this.lits = true;
      this.prim?.set(k.n, i);
    } else {
      (this.comp ??= new Map()).set(keyOf(k), i);
    }
    if (this.prim === undefined && this.keys.length > SCAN_MAX) this.prim = primIndex(this.keys);
    this.sorted = undefined;
    this.sortedKeys = undefined;
    return i;
  }

  /**
   * Slot indices in OPA's key order, or null when that is the insertion order (the usual case: no
   * array to allocate). Computed once, cached.
   */
  order(): number[] | null {
    if (this.sorted !== undefined) return this.sorted;
    const ks = this.keys;
    let inOrder = true;
    for (let i = 1; i < ks.length; i++) {
      if (compare(ks[i - 1]!, ks[i]!) > 0) {
        inOrder = false;
        break;
      }
    }
    this.sorted = inOrder ? null : sortedSlots(ks);
    return this.sorted;
  }

  /** The keys in OPA's order, not copied (cached). */
  ordered(): readonly Value[] {
    const o = this.order();
    return o === null ? this.keys : (this.sortedKeys ??= reordered(this.keys, o));
  }
}

/** Slot indices sorted by key. NB: a function of its own: its closures would cost order() a context per call. */
function sortedSlots(ks: readonly Value[]): number[] {
  return ks.map((_, i) => i).sort((a, b) => compare(ks[a]!, ks[b]!));
}

/** The index of primitive key k in keys, or -1: the match a Map makes (SameValueZero, so NaN finds NaN). */
function scan(keys: readonly Value[], k: Prim): number {
  for (let i = 0; i < keys.length; i++) {
    const x = keys[i];
    if (x === k || (x !== x && k !== k)) return i;
  }
  return -1;
}

/** scan() over keys some of which are NumLits, found by their value. */
function scanLits(keys: readonly Value[], k: Prim): number {
  for (let i = 0; i < keys.length; i++) {
    const x = keys[i];
    if (x === k || (x !== x && k !== k) || (x instanceof NumLit && x.n === k)) return i;
  }
  return -1;
}

/** The slots of the primitive keys (NumLits by their value). */
function primIndex(keys: readonly Value[]): Map<Prim, number> {
  const m = new Map<Prim, number>();
  for (let i = 0; i < keys.length; i++) {
    const x = keys[i]!;
    if (x === null || typeof x !== 'object') m.set(x, i);
    else if (x instanceof NumLit) m.set(x.n, i);
  }
  return m;
}

/** `src` in the order `o` (null: as it is), as a new array. */
function reordered<T>(src: readonly T[], o: number[] | null): T[] {
  if (o === null) return src.slice();
  const out = new Array<T>(o.length);
  for (let i = 0; i < o.length; i++) out[i] = src[o[i]!]!;
  return out;
}

/** A Rego object: keys may be any value; iteration is in OPA's sorted key order. */
export class RObject {
  private readonly slots = new Slots();
  private readonly vals: Value[] = [];

  static from(entries: Iterable<readonly [Value, Value]>): RObject {
    const o = new RObject();
    for (const [k, v] of entries) o.set(k, v);
    return o;
  }

  /** Construction only: later writes replace the value of an existing key. */
  set(k: Value, v: Value): this {
    const i = this.slots.insert(k);
    this.vals[i] = v;
    return this;
  }

  get(k: Value): Value | undefined {
    const i = this.slots.indexOf(k);
    return i < 0 ? undefined : this.vals[i];
  }

  has(k: Value): boolean {
    return this.slots.indexOf(k) >= 0;
  }

  get size(): number {
    return this.slots.keys.length;
  }

  keys(): Value[] {
    return this.slots.ordered().slice();
  }

  values(): Value[] {
    return reordered(this.vals, this.slots.order());
  }

  entries(): [Value, Value][] {
    const ks = this.slots.keys;
    const o = this.slots.order();
    const out = new Array<[Value, Value]>(ks.length);
    for (let i = 0; i < ks.length; i++) {
      const j = o === null ? i : o[i]!;
      out[i] = [ks[j]!, this.vals[j]!];
    }
    return out;
  }

  /** Iterates in insertion order without sorting — for callers whose result does not depend on order. */
  forEachUnordered(fn: (k: Value, v: Value) => void): void {
    const ks = this.slots.keys;
    for (let i = 0; i < ks.length; i++) fn(ks[i]!, this.vals[i]!);
  }
}

/** A Rego set; values() is in OPA's sorted order. */
export class RSet {
  private readonly slots = new Slots();

  static from(values: Iterable<Value>): RSet {
    const s = new RSet();
    for (const v of values) s.add(v);
    return s;
  }

  /** Construction only. */
  add(v: Value): this {
    this.slots.insert(v);
    return this;
  }

  has(v: Value): boolean {
    return this.slots.indexOf(v) >= 0;
  }

  get size(): number {
    return this.slots.keys.length;
  }

  values(): Value[] {
    return this.slots.ordered().slice();
  }

  /** values() without the copy, for iteration: the caller must not modify it. */
  valuesView(): readonly Value[] {
    return this.slots.ordered();
  }

  forEachUnordered(fn: (v: Value) => void): void {
    for (const v of this.slots.keys) fn(v);
  }
}

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set';

export function typeName(v: Value): TypeName {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    default:
      if (Array.isArray(v)) return 'array';
      if (v instanceof NumLit) return 'number';
      return v instanceof RObject ? 'object' : 'set';
  }
}

/** Rank of each type in OPA's total order. */
function rank(v: Value): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    default:
      if (Array.isArray(v)) return 4;
      if (v instanceof NumLit) return 2;
      return v instanceof RObject ? 5 : 6;
  }
}

/** OPA's total order: null < boolean < number < string < array < object < set. */
export function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 1:
      return a ? 1 : -1;
    case 2:
      return compareNumbers(numOf(a as number | bigint | NumLit), numOf(b as number | bigint | NumLit));
    case 3:
      return compareStrings(a as string, b as string);
    case 4: {
      const x = a as Value[];
      const y = b as Value[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 5: {
      const x = (a as RObject).entries();
      const y = (b as RObject).entries();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const ck = compare(x[i]![0], y[i]![0]);
        if (ck !== 0) return ck;
        const cv = compare(x[i]![1], y[i]![1]);
        if (cv !== 0) return cv;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    default: {
      const x = (a as RSet).values();
      const y = (b as RSet).values();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i]!, y[i]!);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
  }
}

export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ta = typeof a;
  const tb = typeof b;
  if (ta !== 'object' || tb !== 'object') {
    if ((ta === 'number' || ta === 'bigint') && (tb === 'number' || tb === 'bigint')) {
      return compareNumbers(a as number | bigint, b as number | bigint) === 0;
    }
    return (ta === 'object' || tb === 'object') && numLitEqual(a, b);
  }
  if (a instanceof NumLit || b instanceof NumLit) return numLitEqual(a, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i]!, b[i]!)) return false;
    return true;
  }
  if (a instanceof RObject) {
    if (!(b instanceof RObject) || a.size !== b.size) return false;
    let ok = true;
    a.forEachUnordered((k, v) => {
      if (!ok) return;
      const w = b.get(k);
      if (w === undefined || !equal(v, w)) ok = false;
    });
    return ok;
  }
  if (!(b instanceof RSet) || (a as RSet).size !== b.size) return false;
  let ok = true;
  (a as RSet).forEachUnordered((v) => {
    if (ok && !b.has(v)) ok = false;
  });
  return ok;
}

/** equal() when a or b is a NumLit: equal numbers, whatever their text (1.0 == 1). */
function numLitEqual(a: Value, b: Value): boolean {
  return isNumber(a) && isNumber(b) && compareNumbers(numOf(a), numOf(b)) === 0;
}

const keyCache = new WeakMap<object, string>();

/**
 * Canonical string for a composite value, equal for values that are equal (1 and 1.0 alike;
 * object and set members in sorted order). Used as a hash key; cached per composite.
 */
export function keyOf(v: Value): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return Number.isInteger(v) ? `i${v}` : `d${v}`;
    case 'bigint':
      return `i${v}`;
    case 'string':
      return JSON.stringify(v);
    default: {
      if (v instanceof NumLit) return keyOf(v.n);
      const hit = keyCache.get(v);
      if (hit !== undefined) return hit;
      let s: string;
      if (Array.isArray(v)) s = `[${v.map(keyOf).join(',')}]`;
      else if (v instanceof RObject)
        s = `{${v
          .entries()
          .map(([k, x]) => `${keyOf(k)}:${keyOf(x)}`)
          .join(',')}}`;
      else s = `<${v.values().map(keyOf).join(',')}>`;
      keyCache.set(v, s);
      return s;
    }
  }
}
