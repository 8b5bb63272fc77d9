/**
 * Aggregates (count, sum, product, max, min, sort, deprecated any/all) and membership (`in`), after
 * OPA's topdown/aggregates.go: integer sums and products are exact at any size, other numbers go
 * through OPA's big.Float accumulators.
 */
import { operandElementError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { NumLit, RObject, RSet, compare, equal, normNum, type Value } from '../../value.js';
import * as A from '../args.js';
import * as F from '../../lib/bigfloat/index.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const collection = T.anyOf(T.set(), T.array());
const numbers = T.anyOf(T.set(T.number), T.array(T.number));

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  count: { args: [T.anyOf(T.set(), T.array(), T.object(), T.string)], result: T.number },
  sum: { args: [numbers], result: T.number },
  product: { args: [numbers], result: T.number },
  max: { args: [collection], result: T.any },
  min: { args: [collection], result: T.any },
  sort: { args: [T.anyOf(T.array(), T.set())], result: T.array() },
  any: { args: [collection], result: T.boolean, deprecated: true },
  all: { args: [collection], result: T.boolean, deprecated: true },
};

const memberDecls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  'internal.member_2': { args: [T.any, T.any], result: T.boolean, infix: 'in' },
  'internal.member_3': { args: [T.any, T.any, T.any], result: T.boolean, infix: 'in' },
};

/** Elements of an array or set, or OPA's `one of {set, array}` operand error. */
function elements(v: Value): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  throw operandError(1, ['set', 'array'], v);
}

function countImpl(args: readonly Value[]): Value {
  const v = A.any(args, 0);
  if (typeof v === 'string') {
    let n = 0;
    for (const _ of v) n++;
    return n;
  }
  if (Array.isArray(v)) return v.length;
  if (v instanceof RObject || v instanceof RSet) return v.size;
  throw operandError(1, ['array', 'object', 'set', 'string'], v);
}

/** Exact integer fold, or undefined when an element is not an integer (OPA's exactIntAccumulate). */
function exactFold(xs: readonly Value[], init: bigint, op: (a: bigint, b: bigint) => bigint): Value | undefined {
  let acc = init;
  for (let x of xs) {
    if (x instanceof NumLit) x = x.n;
    if (typeof x === 'bigint') acc = op(acc, x);
    else if (typeof x === 'number' && Number.isInteger(x)) acc = op(acc, BigInt(x));
    else return undefined;
  }
  return normNum(acc);
}

/** Float fold with OPA's accumulator precision; non-numbers raise the element error. */
function floatFold(
  container: Value,
  xs: readonly Value[],
  init: F.BigFloat,
  prec: number,
  op: (a: F.BigFloat, b: F.BigFloat, prec: number) => F.BigFloat,
): Value {
  let acc = init;
  for (let x of xs) {
    if (x instanceof NumLit) x = x.n;
    if (typeof x !== 'number' && typeof x !== 'bigint') throw operandElementError(1, container, x, 'number');
    acc = op(acc, F.fromValue(x), prec);
  }
  return F.toNumber(acc, prec);
}

function sumImpl(args: readonly Value[]): Value {
  const v = A.any(args, 0);
  const xs = elements(v);
  let fast = 0;
  let ok = true;
  for (const x of xs) {
    if (typeof x !== 'number' || !Number.isInteger(x)) {
      ok = false;
      break;
    }
    fast += x;
  }
  if (ok && Number.isSafeInteger(fast)) return fast;
  const exact = exactFold(xs, 0n, (a, b) => a + b);
  if (exact !== undefined) return exact;
  // NB: OPA's sum accumulator starts at precision 0, i.e. takes the operands' 64 bits.
  return floatFold(v, xs, F.fromBigInt(0n), F.PREC64, F.add);
}

function productImpl(args: readonly Value[]): Value {
  const v = A.any(args, 0);
  const xs = elements(v);
  const exact = exactFold(xs, 1n, (a, b) => a * b);
  if (exact !== undefined) return exact;
  // NB: OPA's product accumulator is big.NewFloat(1), which keeps a double's 53-bit precision.
  return floatFold(v, xs, F.fromBigInt(1n, F.PREC53), F.PREC53, F.mul);
}

function maxImpl(args: readonly Value[]): Value | undefined {
  const xs = elements(A.any(args, 0));
  if (xs.length === 0) return undefined;
  let m: Value = xs[0] as Value;
  for (const x of xs) if (compare(m, x) <= 0) m = x;
  return m;
}

function minImpl(args: readonly Value[]): Value | undefined {
  const xs = elements(A.any(args, 0));
  if (xs.length === 0) return undefined;
  let m: Value = xs[0] as Value;
  for (const x of xs) if (compare(m, x) >= 0) m = x;
  return m;
}

function sortImpl(args: readonly Value[]): Value {
  const v = A.any(args, 0);
  if (v instanceof RSet) return v.values();
  if (Array.isArray(v)) return [...v].sort(compare);
  throw operandError(1, ['set', 'array'], v);
}

function anyAllOperand(v: Value): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  throw operandError(1, ['array', 'set'], v);
}

function anyImpl(args: readonly Value[]): Value {
  return anyAllOperand(A.any(args, 0)).some((x) => x === true);
}

function allImpl(args: readonly Value[]): Value {
  return anyAllOperand(A.any(args, 0)).every((x) => x === true);
}

/** `x in c`: set membership, or equality with an array element or object value; false otherwise. */
export function member2(x: Value, c: Value): boolean {
  if (c instanceof RSet) return c.has(x);
  if (Array.isArray(c)) return c.some((e) => equal(e, x));
  if (c instanceof RObject) {
    let found = false;
    c.forEachUnordered((_, v) => {
      if (!found && equal(v, x)) found = true;
    });
    return found;
  }
  return false;
}

/** `k, v in c`: the element at key/index k equals v (for sets, k is the element and must equal v). */
export function member3(k: Value, v: Value, c: Value): boolean {
  if (c instanceof RSet) return c.has(k) && equal(k, v);
  if (c instanceof RObject) {
    const got = c.get(k);
    return got !== undefined && equal(got, v);
  }
  if (Array.isArray(c)) {
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= c.length) return false;
    return equal(c[k]!, v);
  }
  return false;
}

const impls: Record<string, BuiltinImpl> = {
  count: countImpl,
  sum: sumImpl,
  product: productImpl,
  max: maxImpl,
  min: minImpl,
  sort: sortImpl,
  any: anyImpl,
  all: allImpl,
  'internal.member_2': (args) => member2(A.any(args, 0), A.any(args, 1)),
  'internal.member_3': (args) => member3(A.any(args, 0), A.any(args, 1), A.any(args, 2)),
};

export function register(r: BuiltinRegistry): void {
  for (const [name, decl] of Object.entries(decls)) r.add({ name, ...decl }, impls[name]!);
  // NB: `in` may already be provided by the evaluator's own registration (runtime/runtime.ts); do not clash.
  for (const [name, decl] of Object.entries(memberDecls)) {
    if (!r.has(name)) r.add({ name, ...decl, internal: true }, impls[name]!);
  }
}
