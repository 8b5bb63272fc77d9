/**
 * Scalars in Rego's value model: numbers — plain JS numbers (bigints beyond 2^53), and NumLit where
 * OPA's behaviour depends on a literal's text — and the order of numbers and of strings.
 * value.ts is the public surface and re-exports these.
 */
import type { Value } from './value-core.js';

/**
 * A number that keeps its literal text, as OPA's json.Number does, where OPA's behaviour depends on
 * it: `1.0` prints as `1.0`, and `1e3` or `-1e9` are not integers to builtins that take an int
 * (OPA's IntOperand parses the text with json.Number.Int64). It equals, compares and hashes as its
 * value `n` (1.0 == 1, `{1.0: "a"}[1]`). NB: made only when the text differs from `String(n)`, so
 * every ordinary number stays a plain JS number (or a bigint beyond 2^53) and the fast paths stay.
 */
export class NumLit {
  constructor(
    /** the literal text, e.g. `1.0`, `1e3`, `-0` */
    readonly text: string,
    /** the exact value: an integer within ±(2^53−1) or a double as number, a larger integer as bigint */
    readonly n: number | bigint,
  ) {}
}

/** The value of a number literal `text` whose exact value is `n`: plain when the text is canonical. */
export function numberValue(text: string, n: number | bigint): number | bigint | NumLit {
  return String(n) === text ? n : new NumLit(text, n);
}

/**
 * Whether OPA's json.Number.Int64 parses the literal's text (IntOperand and friends): `-0` does,
 * `1.0` and `1e3` do not, although their values are integers.
 */
export function hasIntText(v: NumLit): boolean {
  return /^-?\d+$/.test(v.text);
}

/** The numeric value of a number (a literal's value, or the number itself). */
export function numOf(v: number | bigint | NumLit): number | bigint {
  return typeof v === 'object' ? v.n : v;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

/** Normalizes a numeric result: integers within ±(2^53−1) as number, larger integers as bigint. */
export function normNum(x: number | bigint): number | bigint {
  if (typeof x === 'bigint') return x <= MAX_SAFE && x >= MIN_SAFE ? Number(x) : x;
  if (Number.isInteger(x) && !Number.isSafeInteger(x)) return BigInt(x);
  return Object.is(x, -0) ? 0 : x;
}

export function isNumber(v: Value | undefined): v is number | bigint | NumLit {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof NumLit;
}

/** True for integer values (number without fraction, bigint, or a literal such as 1.0 or 1e3). */
export function isInteger(v: Value | undefined): v is number | bigint | NumLit {
  if (v instanceof NumLit) v = v.n;
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
}

export function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  // Mixed: a non-integer double is below 2^53 in magnitude, so comparing as doubles cannot tie wrongly;
  // an integer double compares exactly as a bigint.
  const x = typeof a === 'number' ? a : (b as number);
  if (Number.isInteger(x)) {
    const ba = typeof a === 'bigint' ? a : BigInt(a);
    const bb = typeof b === 'bigint' ? b : BigInt(b as number);
    return ba < bb ? -1 : ba > bb ? 1 : 0;
  }
  const na = Number(a);
  const nb = Number(b);
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/**
 * Compares strings by Unicode code point (Go compares UTF-8 bytes, which orders the same way).
 * NB: JS `<` compares UTF-16 units, which misorders U+E000..U+FFFF against astral characters.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800 && cb >= 0xd800) {
      ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
      cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
    }
    return ca < cb ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
