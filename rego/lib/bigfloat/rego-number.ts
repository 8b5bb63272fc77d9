/**
 * big.Float results as Rego numbers (OPA's FloatToNumber) and decimal text as OPA keeps it
 * (json.Number). NB: the one part of this library that knows Rego values: results are the value
 * model's normalised numbers (number | bigint, or a NumLit keeping text a double cannot).
 */
import { normNum, numberValue, type NumLit } from '../../value.js';
import { PREC64, parseDecimal, shortestDecimal, type BigFloat } from './float.js';

/**
 * The Rego number OPA's FloatToNumber yields: the shortest decimal at `prec` bits, read back as an
 * exact integer when it is one, else as the nearest double.
 */
export function toValue(x: BigFloat, prec = PREC64): number | bigint {
  const { digits, exp10 } = shortestDecimal(x, prec);
  if (exp10 >= 0) {
    const i = digits * 10n ** BigInt(exp10);
    return normNum(x.neg ? -i : i);
  }
  const n = Number(`${x.neg ? '-' : ''}${digits}e${exp10}`);
  return normNum(n);
}

/**
 * The Rego number OPA's FloatToNumber yields, with its text: an integer in full (`f.Text('f', -1)`),
 * anything else as Go's `%g` at the shortest precision (`f.Text('g', -1)`), which switches to an
 * exponent below 1e-4 and from 1e6 on: `1234567.5` is `1.2345675e+06`. The text is kept (a NumLit)
 * where it is not the double's own, e.g. the 64-bit digits of `1 / 3`.
 */
export function toNumber(x: BigFloat, prec = PREC64): number | bigint | NumLit {
  const { digits, exp10 } = shortestDecimal(x, prec);
  if (exp10 >= 0) return toValue(x, prec);
  let ds = digits.toString();
  let e10 = exp10;
  // NB: a rounded-up shortest decimal can end in zeros (9.99… → 10); Go's digits never do.
  while (ds.length > 1 && ds.endsWith('0')) {
    ds = ds.slice(0, -1);
    e10++;
  }
  const text = gText(x.neg, ds, e10);
  return numberValue(text, normNum(Number(text)));
}

/** Go's `%g` of the decimal `digits × 10^exp10` at the shortest precision (big.Float.Text('g', -1)). */
function gText(neg: boolean, ds: string, exp10: number): string {
  const sign = neg ? '-' : '';
  const e = ds.length + exp10 - 1;
  if (e < -4 || e >= 6) {
    const a = Math.abs(e);
    return `${sign}${ds[0]}${ds.length > 1 ? `.${ds.slice(1)}` : ''}e${e < 0 ? '-' : '+'}${a < 10 ? `0${a}` : a}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${ds}`;
  return `${sign}${ds.slice(0, e + 1).padEnd(e + 1, '0')}${ds.length > e + 1 ? `.${ds.slice(e + 1)}` : ''}`;
}

/**
 * A Rego number from decimal text as OPA keeps it (json.Number): integral text stays exact, anything
 * else becomes the nearest double. Returns undefined for text that is not a decimal number.
 */
export function decimalToValue(text: string): number | bigint | undefined {
  const d = parseDecimal(text);
  if (d === undefined) return undefined;
  if (d.digits === 0n) return 0;
  // Integral when the fraction is all zeros: strip trailing zeros into the exponent first.
  let digits = d.digits;
  let exp10 = d.exp10;
  while (exp10 < 0 && digits % 10n === 0n) {
    digits /= 10n;
    exp10++;
  }
  if (exp10 >= 0 && exp10 <= 400) {
    const i = digits * 10n ** BigInt(exp10);
    return normNum(d.neg ? -i : i);
  }
  const n = Number(text);
  return Number.isFinite(n) ? normNum(n) : undefined;
}
