/**
 * Go's strconv.FormatFloat(v, fmt, prec, 64) for the formats sprintf needs: e E f F g G b x X.
 *
 * Decimal digits come from an exact expansion of the double (BigInt), rounded half-to-even at the
 * requested digit, which is what Go's decimal rounding does; the shortest form comes from JS's own
 * shortest round-trip digits, which are the same digits Go picks.
 */

/** Decimal digits `d` (no leading/trailing zeros, `''` for zero) with the point at `dp`: 0.d × 10^dp. */
interface Digits {
  d: string;
  dp: number;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** Mantissa and binary exponent: |v| = mant × 2^exp (mant < 2^53). */
function decompose(v: number): { mant: bigint; exp: number } {
  f64[0] = v;
  const bits = u64[0]!;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  if (e === 0) return { mant: frac, exp: -1074 };
  return { mant: frac | (1n << 52n), exp: e - 1075 };
}

function trimZeros(d: Digits): Digits {
  let n = d.d.length;
  while (n > 0 && d.d.charCodeAt(n - 1) === 48) n--;
  return n === d.d.length ? d : { d: d.d.slice(0, n), dp: d.dp };
}

/** Every digit of |v| exactly (a double is a dyadic rational, so the expansion is finite). */
function exactDigits(v: number): Digits {
  if (v === 0) return { d: '', dp: 0 };
  const { mant, exp } = decompose(v);
  if (exp >= 0) {
    const s = (mant << BigInt(exp)).toString();
    return trimZeros({ d: s, dp: s.length });
  }
  // mant / 2^k = mant × 5^k / 10^k
  const k = -exp;
  const s = (mant * 5n ** BigInt(k)).toString();
  return trimZeros({ d: s, dp: s.length - k });
}

/** The shortest digits that read back as v (JS and Go agree on these). */
function shortestDigits(v: number): Digits {
  if (v === 0) return { d: '', dp: 0 };
  const s = Math.abs(v).toExponential();
  const e = s.indexOf('e');
  const mant = s.slice(0, e).replace('.', '');
  return trimZeros({ d: mant, dp: Number(s.slice(e + 1)) + 1 });
}

/** Go's decimal.Round(nd): keep nd digits, rounding half to even on the exact value. */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd) - 48;
  let up: boolean;
  if (next === 5 && nd + 1 === x.d.length) up = nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  else up = next >= 5;
  if (!up) return trimZeros({ d: x.d.slice(0, nd), dp: x.dp });
  for (let i = nd - 1; i >= 0; i--) {
    const c = x.d.charCodeAt(i);
    if (c < 57) return { d: x.d.slice(0, i) + String.fromCharCode(c + 1), dp: x.dp };
  }
  // All nines (or nd == 0): becomes 1 with the point moved one place.
  return { d: '1', dp: x.dp + 1 };
}

function fmtE(neg: boolean, x: Digits, prec: number, ch: 'e' | 'E'): string {
  let out = neg ? '-' : '';
  out += x.d.length > 0 ? x.d[0] : '0';
  if (prec > 0) {
    out += '.';
    const frac = x.d.slice(1, Math.min(x.d.length, prec + 1));
    out += frac + '0'.repeat(prec - frac.length);
  }
  let exp = x.d.length === 0 ? 0 : x.dp - 1;
  const sign = exp < 0 ? '-' : '+';
  exp = Math.abs(exp);
  return `${out}${ch}${sign}${exp < 10 ? '0' : ''}${exp}`;
}

function fmtF(neg: boolean, x: Digits, prec: number): string {
  let out = neg ? '-' : '';
  if (x.dp > 0) {
    const m = Math.min(x.d.length, x.dp);
    out += x.d.slice(0, m) + '0'.repeat(x.dp - m);
  } else out += '0';
  if (prec > 0) {
    out += '.';
    for (let i = 1; i <= prec; i++) {
      const j = x.dp + i - 1;
      out += j >= 0 && j < x.d.length ? x.d[j] : '0';
    }
  }
  return out;
}

function fmtB(neg: boolean, v: number): string {
  const { mant, exp } = decompose(v);
  return `${neg ? '-' : ''}${mant}p${exp >= 0 ? '+' : ''}${exp}`;
}

const MASK64 = (1n << 64n) - 1n;

/** Hex float `-0x1.yyyyp±dd` (Go's fmtX). */
function fmtX(neg: boolean, v: number, prec: number, ch: 'x' | 'X'): string {
  f64[0] = v;
  const bits = u64[0]!;
  const e = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (e === 0) exp = -1022;
  else {
    mant |= 1n << 52n;
    exp = e - 1023;
  }
  if (mant === 0n) exp = 0;
  // Shift so the leading 1 (if any) sits at bit 60.
  mant <<= 8n;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = ch === 'X' ? '0123456789ABCDEF' : '0123456789abcdef';
  let out = `${neg ? '-' : ''}0${ch}${(mant >> 60n) & 1n}`;
  mant = (mant << 4n) & MASK64;
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & MASK64;
    }
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & MASK64;
    }
  }
  out += ch === 'X' ? 'P' : 'p';
  out += exp < 0 ? '-' : '+';
  const a = Math.abs(exp);
  return out + (a < 10 ? `0${a}` : String(a));
}

export type FloatFormat = 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'b' | 'x' | 'X';

/** strconv.FormatFloat(v, fmt, prec, 64); prec < 0 means the shortest representation. */
export function formatFloat(v: number, fmt: FloatFormat, prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const neg = v < 0 || Object.is(v, -0);
  if (fmt === 'b') return fmtB(neg, v);
  if (fmt === 'x' || fmt === 'X') return fmtX(neg, v, prec, fmt);
  const shortest = prec < 0;
  let x: Digits;
  let p = prec;
  const f = fmt === 'F' ? 'f' : fmt;
  if (shortest) {
    x = shortestDigits(v);
    if (f === 'e' || f === 'E') p = Math.max(x.d.length - 1, 0);
    else if (f === 'f') p = Math.max(x.d.length - x.dp, 0);
    else p = x.d.length;
  } else {
    const exact = exactDigits(v);
    if (f === 'e' || f === 'E') x = roundDigits(exact, p + 1);
    else if (f === 'f') x = roundDigits(exact, exact.dp + p);
    else {
      if (p === 0) p = 1;
      x = roundDigits(exact, p);
    }
  }
  if (f === 'e' || f === 'E') return fmtE(neg, x, p, f);
  if (f === 'f') return fmtF(neg, x, p);
  // %g: %e for large or small exponents, %f otherwise.
  let eprec = p;
  if (eprec > x.d.length && x.d.length >= x.dp) eprec = x.d.length;
  if (shortest) eprec = 6;
  const exp = x.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (p > x.d.length) p = x.d.length;
    return fmtE(neg, x, p - 1, f === 'g' ? 'e' : 'E');
  }
  if (p > x.dp) p = x.d.length;
  return fmtF(neg, x, Math.max(p - x.dp, 0));
}
