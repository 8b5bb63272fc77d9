/**
 * units.parse and units.parse_bytes (OPA's topdown/parse_units.go and parse_bytes.go). units.parse
 * multiplies exact rationals (with the milli factor taken from the double 0.001, as OPA does) and
 * prints non-integers with 10 decimals; units.parse_bytes multiplies 64-bit floats and truncates.
 */
import { BuiltinError } from '../../errors.js';
import { T } from '../../types.js';
import type { Value } from '../../value.js';
import * as A from '../args.js';
import * as F from '../../lib/bigfloat/index.js';
import type { BuiltinRegistry } from '../registry.js';

/** Digits allowed in a scientific-notation exponent (OPA's maxExponentDigits). */
const MAX_EXPONENT_DIGITS = 6;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * Splits "10.5e3KiB" into number text and unit (OPA's extractNumAndUnit); 'exponent' when the
 * exponent has more than six digits.
 */
export function splitNumberAndUnit(s: string): { num: string; unit: string } | 'exponent' {
  let cut = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!isDigit(c) && c !== '.' && c !== 'e' && c !== 'E' && c !== '+' && c !== '-') {
      cut = i;
      break;
    }
    if (c === 'e' || c === 'E') {
      const next = s[i + 1];
      if (next === undefined || (!isDigit(next) && next !== '+' && next !== '-')) {
        cut = i;
        break;
      }
      if (next === '+' || next === '-') i++;
      let end = i + 1;
      while (isDigit(s[end])) end++;
      if (end - (i + 1) > MAX_EXPONENT_DIGITS) return 'exponent';
    }
  }
  if (cut === -1) return { num: s, unit: '' };
  return { num: s.slice(0, cut), unit: s.slice(cut) };
}

const K = 1000n;
const decimalUnits: Record<string, bigint> = { k: K, m: K ** 2n, g: K ** 3n, t: K ** 4n, p: K ** 5n, e: K ** 6n };
const binaryUnits: Record<string, bigint> = {
  ki: 1n << 10n,
  mi: 1n << 20n,
  gi: 1n << 30n,
  ti: 1n << 40n,
  pi: 1n << 50n,
  ei: 1n << 60n,
};

/** The exact binary value of the double 0.001 as a fraction: OPA's `big.Rat.SetFloat64(0.001)`. */
const MILLI: readonly [bigint, bigint] = (() => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, 0.001);
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn) - 1075;
  const mant = (bits & ((1n << 52n) - 1n)) | (1n << 52n);
  return [mant, 1n << BigInt(-exp)];
})();

/** Multiplier of a units.parse unit: 'm' is milli and 'M' mega, everything else is case-insensitive. */
function unitFactor(unit: string): readonly [bigint, bigint] | undefined {
  if (unit === '') return [1n, 1n];
  if (unit === 'm') return MILLI;
  if (unit === 'M') return [decimalUnits.m!, 1n];
  const u = unit.toLowerCase();
  const f = decimalUnits[u] ?? binaryUnits[u];
  return f === undefined ? undefined : [f, 1n];
}

const RAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** big.Rat.SetString for decimal text: an exact fraction, or undefined. */
function parseRational(s: string): [bigint, bigint] | undefined {
  if (!RAT.test(s)) return undefined;
  const d = F.parseDecimal(s);
  if (d === undefined) return undefined;
  const n = d.neg ? -d.digits : d.digits;
  return d.exp10 >= 0 ? [n * 10n ** BigInt(d.exp10), 1n] : [n, 10n ** BigInt(-d.exp10)];
}

/** big.Rat.FloatString(10): ten decimals, the last rounded half away from zero. */
function floatString10(num: bigint, den: bigint): string {
  const neg = num < 0n;
  const a = neg ? -num : num;
  const scaled = a * 10n ** 10n;
  let q = scaled / den;
  if ((scaled % den) * 2n >= den) q += 1n;
  const s = q.toString().padStart(11, '0');
  return `${neg ? '-' : ''}${s.slice(0, -10)}.${s.slice(-10)}`;
}

function unitsParse(args: readonly Value[]): Value {
  const s = A.str(args, 0).replaceAll('"', '');
  const fail = (msg: string): never => {
    throw new BuiltinError(`units.parse: ${msg}`);
  };
  if (s.includes(' ')) fail('spaces not allowed in resource strings');
  const split = splitNumberAndUnit(s);
  if (split === 'exponent') return fail('exponent too large');
  if (split.num === '') fail('no amount provided');
  let unit = split.unit;
  if (unit.length > 1) unit = unit[0]! + unit.slice(1).toLowerCase();
  const factor = unitFactor(unit) ?? fail(`unit ${unit} not recognized`);
  const rat = parseRational(split.num) ?? fail('could not parse amount to a number');
  const num = rat[0] * factor[0];
  const den = rat[1] * factor[1];
  if (num % den === 0n) return normalize(num / den);
  return F.decimalToValue(floatString10(num, den))!;
}

function normalize(i: bigint): Value {
  return F.decimalToValue(i.toString())!;
}

function unitsParseBytes(args: readonly Value[]): Value {
  const s = A.str(args, 0).toLowerCase().replaceAll('"', '');
  const fail = (msg: string): never => {
    throw new BuiltinError(`units.parse_bytes: ${msg}`);
  };
  if (s.includes(' ')) fail('spaces not allowed in resource strings');
  const split = splitNumberAndUnit(s);
  if (split === 'exponent') return fail('exponent too large');
  if (split.num === '') fail('no byte amount provided');
  const u = split.unit.endsWith('b') ? split.unit.slice(0, -1) : split.unit;
  // "b" alone is not a unit, and "kb"/"kib" both allow the trailing b.
  const m = split.unit === '' ? 1n : split.unit === 'b' ? undefined : (decimalUnits[u] ?? binaryUnits[u]);
  if (m === undefined) return fail(`byte unit ${split.unit} not recognized`);
  if (!RAT.test(split.num)) fail('could not parse byte amount to a number');
  const x = F.mul(F.fromDecimal(split.num), F.fromBigInt(m));
  return normalize(F.trunc(x));
}

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'units.parse', args: [T.string], result: T.number }, unitsParse);
  r.add({ name: 'units.parse_bytes', args: [T.string], result: T.number }, unitsParseBytes);
}
