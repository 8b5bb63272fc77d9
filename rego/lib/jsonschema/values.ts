/**
 * Value helpers for JSON Schema validation: documents in JSON shape (as OPA hands them to
 * gojsonschema after ast.JSON), exact rationals for numeric keywords (big.Rat), the float64-normalized
 * JSON text gojsonschema compares const/enum/uniqueItems with, and Go's %v of a big.Float.
 */
import { NumLit, RObject, RSet, type Value } from '../../value.js';
import { marshalJSON, quoteJSON } from '../gojson/index.js';
import * as F from '../bigfloat/index.js';

/** num/den with den > 0. */
export type Rational = readonly [bigint, bigint];

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function parseRational(text: string): Rational | undefined {
  const d = F.parseDecimal(text);
  if (d === undefined) return undefined;
  const n = d.neg ? -d.digits : d.digits;
  const r: Rational = d.exp10 >= 0 ? [n * 10n ** BigInt(d.exp10), 1n] : [n, 10n ** BigInt(-d.exp10)];
  const g = gcd(r[0], r[1]);
  return g > 1n ? [r[0] / g, r[1] / g] : r;
}

export function ratOfNumber(n: number | bigint): Rational {
  return parseRational(String(n))!;
}

export function cmpRational(a: Rational, b: Rational): number {
  const l = a[0] * b[1];
  const r = b[0] * a[1];
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Whether a / b is an integer (gojsonschema's multipleOf test). */
export function isMultiple(a: Rational, b: Rational): boolean {
  return (a[0] * b[1]) % (a[1] * b[0]) === 0n;
}

/** Go's %v of big.Float(SetRat(r)): shortest 'g' formatting, exponent from 1e+06 / below 1e-04. */
export function formatRational(r: Rational): string {
  const prec = Math.max(F.PREC64, F.bitLength(r[0] < 0n ? -r[0] : r[0]), F.bitLength(r[1]));
  const x = F.quo(F.fromBigInt(r[0], prec), F.fromBigInt(r[1], prec), prec);
  if (F.isZero(x)) return '0';
  const { digits, exp10 } = F.shortestDecimal(x, prec);
  const ds = digits.toString();
  const exp = ds.length - 1 + exp10;
  const sign = x.neg ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const mant = ds.length > 1 ? `${ds[0]}.${ds.slice(1)}` : ds;
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp10 >= 0) return sign + ds + '0'.repeat(exp10);
  const point = ds.length + exp10;
  return point > 0 ? `${sign}${ds.slice(0, point)}.${ds.slice(point)}` : `${sign}0.${'0'.repeat(-point)}${ds}`;
}

/**
 * The document gojsonschema sees for a Rego value: ast.JSON turns sets into sorted arrays and
 * non-string object keys into their JSON text (a later duplicate key wins, as in a Go map).
 */
export function toJSONDoc(v: Value): Value {
  if (v === null || typeof v !== 'object') return v;
  // gojsonschema reads numbers by value (json.Number through big.Rat): 1.0 is an integer to it.
  if (v instanceof NumLit) return v.n;
  if (Array.isArray(v)) return v.map(toJSONDoc);
  if (v instanceof RSet) return v.values().map(toJSONDoc);
  const out = new RObject();
  for (const [k, x] of v.entries()) out.set(typeof k === 'string' ? k : marshalJSON(k), toJSONDoc(x));
  return out;
}

/**
 * gojsonschema's marshalWithoutNumber: JSON text after a round trip through float64, so 1.0 and 1
 * agree and big integers lose their low digits exactly as they do there.
 */
export function canonicalJSON(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return String(Number(v));
    case 'string':
      return quoteJSON(v);
    default:
      if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
      if (v instanceof RSet) return `[${v.values().map(canonicalJSON).join(',')}]`;
      return `{${(toJSONDoc(v) as RObject)
        .entries()
        .map(([k, x]) => `${quoteJSON(k as string)}:${canonicalJSON(x)}`)
        .join(',')}}`;
  }
}
