/**
 * OPA's non-integer arithmetic, reproduced exactly. OPA keeps numbers as decimal text and computes on
 * Go `big.Float`s: operands are rounded to a 64-bit mantissa (not a double's 53), the operation is
 * rounded to 64 bits (nearest-even), and the result is printed as the shortest decimal that reads back
 * to the same 64-bit value. That is why `0.1 + 0.2` is `0.3` in OPA and 0.30000000000000004 in JS.
 *
 * A float here is `sign * mant * 2^exp` with a bigint mantissa; values are rebuilt from the shortest
 * decimal text of a JS number, which is what OPA would have parsed from a policy or JSON. Turning a
 * result back into a Rego number is in rego-number.ts.
 */

/** OPA's default `big.Float` precision, in mantissa bits. */
export const PREC64 = 64;
/** A double's precision: `big.NewFloat(x)` (e.g. product's accumulator) keeps 53 bits. */
export const PREC53 = 53;

export interface BigFloat {
  readonly neg: boolean;
  /** Magnitude; 0n for zero. */
  readonly mant: bigint;
  readonly exp: number;
}

const ZERO: BigFloat = { neg: false, mant: 0n, exp: 0 };

export function bitLength(x: bigint): number {
  if (x === 0n) return 0;
  const hex = x.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

/** Rounds mant*2^exp (plus a sticky remainder below it) to `prec` bits, nearest-even. */
function round(neg: boolean, mant: bigint, exp: number, prec: number, sticky = false): BigFloat {
  if (mant === 0n) return ZERO;
  const bl = bitLength(mant);
  if (bl <= prec) return { neg, mant, exp };
  const shift = bl - prec;
  let q = mant >> BigInt(shift);
  const rem = mant & ((1n << BigInt(shift)) - 1n);
  const half = 1n << BigInt(shift - 1);
  let e = exp + shift;
  if (rem > half || (rem === half && (sticky || (q & 1n) === 1n))) {
    q += 1n;
    // A carry out of the top bit (0b111…1 + 1) leaves an exact power of two.
    if (q >> BigInt(prec) !== 0n) {
      q >>= 1n;
      e++;
    }
  }
  return { neg, mant: q, exp: e };
}

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parses decimal text into its exact digits and power of ten: value = digits * 10^exp10. */
export function parseDecimal(text: string): { neg: boolean; digits: bigint; exp10: number } | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const int = m[2] ?? '';
  const frac = m[3] ?? '';
  if (int === '' && frac === '') return undefined;
  const e = m[4] === undefined ? 0 : Number(m[4]);
  if (!Number.isSafeInteger(e)) return undefined;
  return { neg: m[1] === '-', digits: BigInt(int + frac || '0'), exp10: e - frac.length };
}

/** Rounds the exact value digits*10^exp10 to a `prec`-bit float. */
function fromDecimalParts(neg: boolean, digits: bigint, exp10: number, prec: number): BigFloat {
  if (digits === 0n) return ZERO;
  if (exp10 >= 0) return round(neg, digits * 10n ** BigInt(exp10), 0, prec);
  const den = 10n ** BigInt(-exp10);
  // Scale so the quotient carries at least prec+2 bits; the remainder only decides ties.
  const s = Math.max(0, prec + 2 - (bitLength(digits) - bitLength(den)));
  const num = digits << BigInt(s);
  const q = num / den;
  return round(neg, q, -s, prec, num % den !== 0n);
}

export function fromDecimal(text: string, prec = PREC64): BigFloat {
  const d = parseDecimal(text);
  if (d === undefined) throw new Error(`invalid decimal ${text}`);
  return fromDecimalParts(d.neg, d.digits, d.exp10, prec);
}

/**
 * The float OPA would hold for a Rego number: integers exactly (then rounded to prec), other numbers
 * from their shortest decimal text — the literal a policy or JSON document would have contained.
 */
export function fromValue(n: number | bigint, prec = PREC64): BigFloat {
  if (typeof n === 'bigint') return round(n < 0n, n < 0n ? -n : n, 0, prec);
  if (Number.isInteger(n)) return round(n < 0, BigInt(Math.abs(n)), 0, prec);
  return fromDecimal(String(n), prec);
}

export function isZero(x: BigFloat): boolean {
  return x.mant === 0n;
}

function align(x: BigFloat, y: BigFloat): [bigint, bigint, number] {
  const e = Math.min(x.exp, y.exp);
  const a = x.mant << BigInt(x.exp - e);
  const b = y.mant << BigInt(y.exp - e);
  return [x.neg ? -a : a, y.neg ? -b : b, e];
}

export function add(x: BigFloat, y: BigFloat, prec = PREC64): BigFloat {
  if (isZero(x)) return round(y.neg, y.mant, y.exp, prec);
  if (isZero(y)) return round(x.neg, x.mant, x.exp, prec);
  const [a, b, e] = align(x, y);
  const s = a + b;
  return round(s < 0n, s < 0n ? -s : s, e, prec);
}

export function neg(x: BigFloat): BigFloat {
  return isZero(x) ? x : { neg: !x.neg, mant: x.mant, exp: x.exp };
}

export function sub(x: BigFloat, y: BigFloat, prec = PREC64): BigFloat {
  return add(x, neg(y), prec);
}

export function mul(x: BigFloat, y: BigFloat, prec = PREC64): BigFloat {
  return round(x.neg !== y.neg, x.mant * y.mant, x.exp + y.exp, prec);
}

/** x / y; the caller rejects a zero divisor. */
export function quo(x: BigFloat, y: BigFloat, prec = PREC64): BigFloat {
  if (isZero(x)) return ZERO;
  const s = Math.max(0, prec + 2 - (bitLength(x.mant) - bitLength(y.mant)));
  const num = x.mant << BigInt(s);
  const q = num / y.mant;
  return round(x.neg !== y.neg, q, x.exp - y.exp - s, prec, num % y.mant !== 0n);
}

export function abs(x: BigFloat): BigFloat {
  return x.neg ? neg(x) : x;
}

/** Truncates toward zero (Go's `Float.Int`). */
export function trunc(x: BigFloat): bigint {
  if (x.exp >= 0) {
    const m = x.mant << BigInt(x.exp);
    return x.neg ? -m : m;
  }
  const m = x.mant >> BigInt(-x.exp);
  return x.neg ? -m : m;
}

export function fromBigInt(i: bigint, prec = PREC64): BigFloat {
  return round(i < 0n, i < 0n ? -i : i, 0, prec);
}

export function isInt(x: BigFloat): boolean {
  if (x.exp >= 0 || x.mant === 0n) return true;
  return (x.mant & ((1n << BigInt(-x.exp)) - 1n)) === 0n;
}

export function cmp(x: BigFloat, y: BigFloat): number {
  const [a, b] = align(x, y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A rational num/den (den > 0) for exact comparisons. */
type Ratio = readonly [bigint, bigint];

function ratioOfBinary(mant: bigint, exp: number): Ratio {
  return exp >= 0 ? [mant << BigInt(exp), 1n] : [mant, 1n << BigInt(-exp)];
}

function ratioOfDecimal(digits: bigint, exp10: number): Ratio {
  return exp10 >= 0 ? [digits * 10n ** BigInt(exp10), 1n] : [digits, 10n ** BigInt(-exp10)];
}

function cmpRatio(a: Ratio, b: Ratio): number {
  const l = a[0] * b[1];
  const r = b[0] * a[1];
  return l < r ? -1 : l > r ? 1 : 0;
}

/**
 * Shortest decimal d (digits * 10^exp10) that rounds back to |x| at precision `prec`: the bounds are
 * x ± half an ulp, inclusive when the mantissa is even (math/big's roundShortest). When both the
 * truncated and the rounded-up candidate of a length fit, the nearer one wins (ties to even).
 */
export function shortestDecimal(x: BigFloat, prec: number): { digits: bigint; exp10: number } {
  if (isZero(x)) return { digits: 0n, exp10: 0 };
  // Normalize so that the mantissa has prec+1 bits: its lsb is then half an ulp.
  let m = x.mant;
  let e = x.exp;
  const s = bitLength(m) - (prec + 1);
  if (s < 0) {
    m <<= BigInt(-s);
    e += s;
  } else if (s > 0) {
    m >>= BigInt(s);
    e += s;
  }
  const lower = ratioOfBinary(m - 1n, e);
  const upper = ratioOfBinary(m + 1n, e);
  const inclusive = (m & 2n) === 0n;
  const fits = (r: Ratio): boolean => {
    const lo = cmpRatio(r, lower);
    const hi = cmpRatio(r, upper);
    return inclusive ? lo >= 0 && hi <= 0 : lo > 0 && hi < 0;
  };
  // Exact decimal digits of |x|.
  let digits: string;
  let exp10: number;
  if (x.exp >= 0) {
    digits = (x.mant << BigInt(x.exp)).toString();
    exp10 = 0;
  } else {
    digits = (x.mant * 5n ** BigInt(-x.exp)).toString();
    exp10 = x.exp;
  }
  const trimmed = digits.replace(/0+$/, '');
  exp10 += digits.length - trimmed.length;
  digits = trimmed;
  for (let n = 1; n < digits.length; n++) {
    const e10 = exp10 + (digits.length - n);
    const down = BigInt(digits.slice(0, n));
    const up = down + 1n;
    const okDown = fits(ratioOfDecimal(down, e10));
    const okUp = fits(ratioOfDecimal(up, e10));
    if (okDown && okUp) {
      const rest = digits.slice(n);
      const half = '5'.padEnd(rest.length, '0');
      const c = rest < half ? -1 : rest > half ? 1 : 0;
      const pickUp = c > 0 || (c === 0 && (down & 1n) === 1n);
      return { digits: pickUp ? up : down, exp10: e10 };
    }
    if (okDown) return { digits: down, exp10: e10 };
    if (okUp) return { digits: up, exp10: e10 };
  }
  return { digits: BigInt(digits), exp10 };
}
