/**
 * time.parse_duration_ns: Go's time.ParseDuration grammar (`[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`) with
 * OPA's extra units d (24h), w (7d) and y (365d). Values are exact int64 nanoseconds.
 */
import { TimeError } from './errors.js';
import { goQuote } from './parse-lex.js';

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n], // micro sign
  ['\u03bcs', 1_000n], // Greek mu
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
  ['d', 86_400_000_000_000n],
  ['w', 604_800_000_000_000n],
  ['y', 31_536_000_000_000_000n],
]);

const LIMIT = 1n << 63n;

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Parses a duration string; throws TimeError with Go's message on bad input or overflow. */
export function parseDuration(orig: string): bigint {
  const invalid = (): TimeError => new TimeError(`time: invalid duration ${goQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let d = 0n;
  while (s !== '') {
    const c0 = s.charCodeAt(0);
    if (!(s[0] === '.' || isDigitCode(c0))) throw invalid();
    // Integer part.
    let i = 0;
    let v = 0n;
    while (i < s.length && isDigitCode(s.charCodeAt(i))) {
      if (v > LIMIT / 10n) throw invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > LIMIT) throw invalid();
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // Fraction: digits beyond what fits are ignored, as Go's leadingFraction does.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (j < s.length && isDigitCode(s.charCodeAt(j))) {
        if (!overflow) {
          const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (f > (LIMIT - 1n) / 10n || y > LIMIT) overflow = true;
          else {
            f = y;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid();
    // Unit: everything up to the next digit or dot.
    let k = 0;
    while (k < s.length && s[k] !== '.' && !isDigitCode(s.charCodeAt(k))) k++;
    if (k === 0) throw new TimeError(`time: missing unit in duration ${goQuote(orig)}`);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS.get(u);
    if (unit === undefined) {
      throw new TimeError(`time: unknown unit ${goQuote(u)} in duration ${goQuote(orig)}`);
    }
    if (v > LIMIT / unit) throw invalid();
    v *= unit;
    if (f > 0n) {
      // NB: Go computes the fraction in float64 (nanosecond-accurate up to hours); so do we.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) throw invalid();
    }
    d += v;
    if (d > LIMIT) throw invalid();
  }
  if (neg) return -d;
  if (d > LIMIT - 1n) throw invalid();
  return d;
}
