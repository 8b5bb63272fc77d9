/**
 * Arithmetic (plus, minus, mul, div, rem, abs, round, ceil, floor), numbers.range[_step], rand.intn
 * and to_number, following OPA's topdown/arithmetic.go, numbers.go and casts.go: integers are exact
 * at any size, everything else goes through OPA's 64-bit big.Float (lib/bigfloat).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { BuiltinError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { RSet, isNumber, normNum, numOf, type NumLit, type Value } from '../../value.js';
import * as A from '../args.js';
import * as F from '../../lib/bigfloat/index.js';
import { toNumberImpl } from './to-number.js';
import { MAX_RESULT_ELEMENTS, chargeElements } from '../limits.js';
import type { BuiltinContext, BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

export type Num = number | bigint;
/** An arithmetic result: a float keeps OPA's text where it is not the double's own (F.toNumber). */
type Result = number | bigint | NumLit;

const N = T.number;
const numOrSet = T.anyOf(N, T.set());

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  plus: { args: [N, N], result: N, infix: '+' },
  minus: { args: [numOrSet, numOrSet], result: numOrSet, infix: '-' },
  mul: { args: [N, N], result: N, infix: '*' },
  div: { args: [N, N], result: N, infix: '/' },
  rem: { args: [N, N], result: N, infix: '%' },
  abs: { args: [N], result: N },
  round: { args: [N], result: N },
  ceil: { args: [N], result: N },
  floor: { args: [N], result: N },
  'numbers.range': { args: [N, N], result: T.array(N) },
  'numbers.range_step': { args: [N, N, N], result: T.array(N) },
  'rand.intn': { args: [T.string, N], result: N, nondeterministic: true },
  to_number: { args: [T.anyOf(N, T.string, T.boolean, T.null)], result: N },
};

// ---------------------------------------------------------------------------------------------
// Exact integer arithmetic with a float fallback, as opPlus/opMinus/opMultiply do.

export function isIntegral(n: Num): boolean {
  return typeof n === 'bigint' || Number.isInteger(n);
}

function big(n: Num): bigint {
  return typeof n === 'bigint' ? n : BigInt(n);
}

/**
 * Binary floats with at most 10 fraction bits below 2^40 are exactly their shortest decimal, so when
 * the double result of two of them is exact too, OPA's 64-bit result is the same number.
 */
function dyadic(n: number): boolean {
  return Math.abs(n) < 2 ** 40 && Number.isInteger(n * 1024);
}

/** Sums and differences of such values fit 51 bits; products only while the scaled product is safe. */
const sumExact = (a: number, b: number): boolean => dyadic(a) && dyadic(b);
const productExact = (a: number, b: number): boolean =>
  dyadic(a) && dyadic(b) && Number.isSafeInteger(a * 1024 * (b * 1024));

/**
 * Whether a fraction prints as OPA prints it: `String(r)` is r's exact decimal expansion (so it is
 * Go's 64-bit shortest text too: r has no more fraction bits than the text has digits), and Go's %g
 * does not switch to an exponent (below 1e-4, from 1e6 on). Otherwise the float path makes the text.
 */
function printsAsOPA(r: number): boolean {
  const m = Math.abs(r);
  if (m < 1e-4 || m >= 1e6) return false;
  const s = String(r);
  return Number.isInteger(r * 2 ** (s.length - s.indexOf('.') - 1));
}

type FloatOp = (x: F.BigFloat, y: F.BigFloat) => F.BigFloat;

function arith(
  a: Num,
  b: Num,
  exact: (x: bigint, y: bigint) => bigint,
  fast: (x: number, y: number) => number,
  fastIsExact: (x: number, y: number) => boolean,
  float: FloatOp,
): Result {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b)) {
      const r = fast(a, b);
      return Number.isSafeInteger(r) ? r : normNum(exact(BigInt(a), BigInt(b)));
    }
    if (fastIsExact(a, b)) {
      const r = fast(a, b);
      if (Number.isInteger(r) || printsAsOPA(r)) return normNum(r);
    }
  } else if (isIntegral(a) && isIntegral(b)) {
    return normNum(exact(big(a), big(b)));
  }
  return F.toNumber(float(F.fromValue(a), F.fromValue(b)));
}

export function plus(a: Num, b: Num): Result {
  return arith(
    a,
    b,
    (x, y) => x + y,
    (x, y) => x + y,
    sumExact,
    (x, y) => F.add(x, y),
  );
}

export function minus(a: Num, b: Num): Result {
  return arith(
    a,
    b,
    (x, y) => x - y,
    (x, y) => x - y,
    sumExact,
    (x, y) => F.sub(x, y),
  );
}

export function mul(a: Num, b: Num): Result {
  return arith(
    a,
    b,
    (x, y) => x * y,
    (x, y) => x * y,
    productExact,
    (x, y) => F.mul(x, y),
  );
}

function isZeroNum(n: Num): boolean {
  return typeof n === 'bigint' ? n === 0n : n === 0;
}

/** Division is exact only for integers that divide; everything else is a 64-bit float quotient. */
export function div(a: Num, b: Num): Result {
  if (isZeroNum(b)) throw new BuiltinError('divide by zero');
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b) && a % b === 0) {
    return normNum(a / b);
  }
  return F.toNumber(F.quo(F.fromValue(a), F.fromValue(b)));
}

/** Remainder with the dividend's sign (Go's % and big.Int.Rem); integers only. */
export function rem(a: Num, b: Num): Num {
  if (!isIntegral(a) || !isIntegral(b)) throw new BuiltinError('modulo on floating-point number');
  if (isZeroNum(b)) throw new BuiltinError('modulo by zero');
  if (typeof a === 'number' && typeof b === 'number') return normNum(a % b);
  return normNum(big(a) % big(b));
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function smallInt(n: Num): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX;
}

/** abs: ints in the int32 window directly, anything else through a 64-bit float. */
function unary(n: Num, small: (x: number) => number, float: (x: F.BigFloat) => F.BigFloat): Result {
  if (smallInt(n)) return normNum(small(n));
  // Safe integers survive the 64-bit float exactly; only bigints can be rounded there.
  if (typeof n === 'number' && Number.isInteger(n)) return normNum(small(n));
  return F.toNumber(float(F.fromValue(n)));
}

const HALF = F.fromDecimal('0.5');

export function abs(n: Num): Result {
  return unary(n, Math.abs, F.abs);
}

/**
 * round/ceil/floor: ints in the int32 window as they are, anything else as a 64-bit float whose
 * integral result OPA re-widens (big.Float.SetInt), so the integer comes out exactly.
 */
function toInteger(n: Num, fromFloat: (x: F.BigFloat) => bigint): Num {
  if (typeof n === 'number' && Number.isInteger(n)) return n;
  return normNum(fromFloat(F.fromValue(n)));
}

/** Half away from zero: truncate x ± 0.5. */
export function round(n: Num): Num {
  return toInteger(n, (x) => F.trunc(x.neg ? F.sub(x, HALF) : F.add(x, HALF)));
}

/**
 * NB: OPA decides ceil/floor by the sign of the *truncated* value, whose zero is never negative, so
 * ceil(-0.5) is 1 and floor(-0.5) is 0 in OPA. Reproduced deliberately: results must match OPA's.
 */
export function ceil(n: Num): Num {
  return toInteger(n, (x) => {
    const i = F.trunc(x);
    return i < 0n || F.isInt(x) ? i : i + 1n;
  });
}

export function floor(n: Num): Num {
  return toInteger(n, (x) => {
    const i = F.trunc(x);
    return i >= 0n || F.isInt(x) ? i : i - 1n;
  });
}

// ---------------------------------------------------------------------------------------------
// Builtin wrappers.

function binary(op: (a: Num, b: Num) => Result): BuiltinImpl {
  return (args) => op(A.num(args, 0), A.num(args, 1));
}

function unaryImpl(op: (a: Num) => Result): BuiltinImpl {
  return (args) => op(A.num(args, 0));
}

/** `-` on numbers or sets (set difference); OPA's builtinMinus error order. */
function minusImpl(args: readonly Value[]): Value {
  const [a, b] = [A.any(args, 0), A.any(args, 1)];
  const an = isNumber(a);
  const bn = isNumber(b);
  if (an && bn) return minus(numOf(a), numOf(b));
  if (a instanceof RSet && b instanceof RSet) return setDiff(a, b);
  if (!an && !(a instanceof RSet)) throw operandError(1, ['number', 'set'], a);
  if (bn) throw operandError(2, 'set', b);
  throw operandError(2, 'number', b);
}

export function setDiff(a: RSet, b: RSet): RSet {
  const out = new RSet();
  a.forEachUnordered((v) => {
    if (!b.has(v)) out.add(v);
  });
  return out;
}

/**
 * Inclusive range from x to y (descending when x > y) in steps of `step`. Its size is checked and
 * charged before it is built (OPA stops only at cancellation).
 */
export function range(ctx: BuiltinContext, x: bigint, y: bigint, step: bigint): Value[] {
  const len = (x <= y ? y - x : x - y) / step + 1n;
  const n = len > BigInt(MAX_RESULT_ELEMENTS) ? Infinity : Number(len);
  chargeElements(ctx, n);
  const out: Value[] = new Array<Value>(n);
  const d = x <= y ? step : -step;
  if (Number.isSafeInteger(Number(x)) && Number.isSafeInteger(Number(y)) && Number.isSafeInteger(Number(step))) {
    const xs = Number(x);
    const ds = Number(d);
    for (let i = 0; i < n; i++) {
      if ((i & 0xffff) === 0xffff) ctx.checkDeadline();
      out[i] = xs + i * ds;
    }
    return out;
  }
  let v = x;
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0xffff) ctx.checkDeadline();
    out[i] = normNum(v);
    v += d;
  }
  return out;
}

function rangeImpl(args: readonly Value[], ctx: BuiltinContext): Value {
  return range(ctx, A.bigint(args, 0), A.bigint(args, 1), 1n);
}

function rangeStepImpl(args: readonly Value[], ctx: BuiltinContext): Value {
  const x = A.bigint(args, 0);
  const y = A.bigint(args, 1);
  const step = A.bigint(args, 2);
  if (step <= 0n) throw new BuiltinError('numbers.range_step: step must be a positive integer');
  return range(ctx, x, y, step);
}

/** Uniform integer in [0, n): node's randomInt covers n < 2^48, larger bounds use rejection sampling. */
function randomBelow(n: number): number {
  if (n <= 2 ** 48) return randomInt(n);
  const bound = BigInt(n);
  const limit = (1n << 64n) - ((1n << 64n) % bound);
  for (;;) {
    const r = randomBytes(8).readBigUInt64BE();
    if (r < limit) return Number(r % bound);
  }
}

/** Memoised per evaluation by (string, |n|), so repeated calls agree as they do in OPA. */
function randIntnImpl(args: readonly Value[], ctx: BuiltinContext): Value {
  const s = A.str(args, 0);
  let n = A.int(args, 1);
  if (n === 0) return 0;
  if (n < 0) n = -n;
  const key = `rand.intn:${s}-${n}`;
  const hit = ctx.cache.get(key);
  if (typeof hit === 'number') return hit;
  const r = randomBelow(n);
  ctx.cache.set(key, r);
  return r;
}

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  plus: binary(plus),
  minus: minusImpl,
  mul: binary(mul),
  div: binary(div),
  rem: binary(rem),
  abs: unaryImpl(abs),
  round: unaryImpl(round),
  ceil: unaryImpl(ceil),
  floor: unaryImpl(floor),
  'numbers.range': rangeImpl,
  'numbers.range_step': rangeStepImpl,
  'rand.intn': randIntnImpl,
  to_number: toNumberImpl,
};

export function register(r: BuiltinRegistry): void {
  for (const [name, decl] of Object.entries(decls)) r.add({ name, ...decl }, impls[name]!);
}
