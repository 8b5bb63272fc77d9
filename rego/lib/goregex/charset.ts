/**
 * Code-point sets for the RE2 → JS RegExp translation (translate.ts): RE2's named classes,
 * RE2 case folding restricted to what can be proved here, and emission as JS source WITHOUT the
 * `u` flag (V8's linear-time engine refuses `u` and `i`), so astral code points become explicit
 * surrogate pairs and a class never matches half of a pair.
 *
 * A set is a flat, sorted, merged list of inclusive ranges: [lo0, hi0, lo1, hi1, …].
 */

export type CharSet = readonly number[];

export const MAX_CP = 0x10ffff;

/** Thrown when a construct cannot be translated with certainty; the caller falls back to re2js. */
export class Untranslatable extends Error {}

export function normalize(pairs: readonly number[]): number[] {
  const list: [number, number][] = [];
  for (let i = 0; i < pairs.length; i += 2) list.push([pairs[i]!, pairs[i + 1]!]);
  list.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of list) {
    const n = out.length;
    if (n > 0 && lo <= out[n - 1]! + 1) out[n - 1] = Math.max(out[n - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

export function union(a: CharSet, b: CharSet): number[] {
  return normalize([...a, ...b]);
}

export function complement(a: CharSet): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < a.length; i += 2) {
    if (a[i]! > next) out.push(next, a[i]! - 1);
    next = a[i + 1]! + 1;
  }
  if (next <= MAX_CP) out.push(next, MAX_CP);
  return out;
}

export function intersect(a: CharSet, b: CharSet): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const lo = Math.max(a[i]!, b[j]!);
    const hi = Math.min(a[i + 1]!, b[j + 1]!);
    if (lo <= hi) out.push(lo, hi);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}

const r = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);

/** RE2's Perl classes (\d \s \w): ASCII only; \s is [\t\n\f\r ] (no \v, unlike JS). */
export const PERL: Record<string, CharSet> = {
  d: r('09'),
  s: normalize([9, 10, 12, 13, 32, 32]),
  w: r('09AZ__az'),
};

/** RE2's POSIX classes ([[:alpha:]] …), all ASCII. */
export const POSIX: Record<string, CharSet> = {
  alnum: r('09AZaz'),
  alpha: r('AZaz'),
  ascii: [0, 0x7f],
  blank: [9, 9, 32, 32],
  cntrl: [0, 0x1f, 0x7f, 0x7f],
  digit: r('09'),
  graph: r('!~'),
  lower: r('az'),
  print: r(' ~'),
  punct: r('!/:@[`{~'),
  space: [9, 13, 32, 32],
  upper: r('AZ'),
  word: r('09AZ__az'),
  xdigit: r('09AFaf'),
};

/** `.` without and with (?s). */
export const ANY_NOT_NL: CharSet = [0, 9, 11, MAX_CP];
export const ANY: CharSet = [0, MAX_CP];

/**
 * Non-ASCII code points whose simple case-folding orbit is only themselves (no case), in RE2's
 * tables: folding leaves them alone. Deliberately short; charset.test.ts checks every range
 * against re2js. Anything cased outside ASCII (é, µ, Greek …) under (?i) is left to re2js.
 */
export const CASELESS: CharSet = normalize([
  0xa0,
  0xa9,
  0xab,
  0xb4,
  0xb6,
  0xb9,
  0xbb,
  0xbf,
  0xd7,
  0xd7,
  0xf7,
  0xf7,
  0x2000,
  0x206f, // general punctuation: dashes, quotes, ellipsis, invisible spaces
  0x20a0,
  0x20bf, // currency
  0x2190,
  0x23ff, // arrows, maths, technical
  0x2500,
  0x27bf, // box drawing, shapes, symbols, dingbats
  0x3000,
  0x30ff, // CJK punctuation, hiragana, katakana
  0x4e00,
  0x9fff, // CJK unified ideographs
  0xac00,
  0xd7a3, // Hangul syllables
  0xfe30,
  0xfe4f,
  0xff01,
  0xff20,
  0xff3b,
  0xff40,
  0xff5b,
  0xff65, // fullwidth punctuation (no letters)
  0x1f300,
  0x1faff, // emoji and pictographs
]);

/** The two non-ASCII members of ASCII letters' orbits: K (Kelvin) ~ k, ſ (long s) ~ s. */
const KELVIN = 0x212a;
const LONG_S = 0x17f;

/**
 * RE2's (?i) closure of a set: every code point whose simple-fold orbit meets the set.
 * Proved only for ASCII, K, ſ and CASELESS; anything else is Untranslatable.
 */
export function fold(set: CharSet): number[] {
  const out = [...set];
  const ascii = intersect(set, [0x41, 0x5a, 0x61, 0x7a]);
  for (let i = 0; i < ascii.length; i += 2) {
    const lo = ascii[i]!;
    const hi = ascii[i + 1]!;
    const delta = lo <= 0x5a ? 32 : -32;
    out.push(lo + delta, hi + delta);
  }
  const has = (cp: number): boolean => intersect(set, [cp, cp]).length > 0;
  if (has(0x4b) || has(0x6b) || has(KELVIN)) out.push(0x4b, 0x4b, 0x6b, 0x6b, KELVIN, KELVIN);
  if (has(0x53) || has(0x73) || has(LONG_S)) out.push(0x53, 0x53, 0x73, 0x73, LONG_S, LONG_S);
  const proved = union(CASELESS, [0, 0x7f, KELVIN, KELVIN, LONG_S, LONG_S]);
  if (intersect(set, complement(proved)).length > 0) throw new Untranslatable('case folding outside ASCII');
  return normalize(out);
}

const SURROGATE_LO = 0xd800;
const SURROGATE_HI = 0xdfff;

/** One code unit as JS RegExp source (no `u` flag): alphanumerics bare, the rest escaped. */
export function unit(c: number): string {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f) {
    return String.fromCharCode(c);
  }
  return c < 0x100 ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
}

function classBody(set: CharSet): string {
  let s = '';
  for (let i = 0; i < set.length; i += 2) {
    const lo = set[i]!;
    const hi = set[i + 1]!;
    s += hi === lo ? unit(lo) : hi === lo + 1 ? unit(lo) + unit(hi) : `${unit(lo)}-${unit(hi)}`;
  }
  return s;
}

function unitClass(set: CharSet): string {
  return set.length === 2 && set[0] === set[1] ? unit(set[0]!) : `[${classBody(set)}]`;
}

/** Astral ranges as alternatives of (high surrogate class)(low surrogate class), grouped by high. */
function astralAlternatives(set: CharSet): string[] {
  const lows = new Map<number, number[]>();
  for (let i = 0; i < set.length; i += 2) {
    for (let cp = set[i]!; cp <= set[i + 1]!;) {
      const hi = 0xd800 + ((cp - 0x10000) >> 10);
      const blockEnd = 0x10000 + ((hi - 0xd800 + 1) << 10) - 1;
      const end = Math.min(blockEnd, set[i + 1]!);
      const list = lows.get(hi) ?? [];
      list.push(0xdc00 + ((cp - 0x10000) & 0x3ff), 0xdc00 + ((end - 0x10000) & 0x3ff));
      lows.set(hi, list);
      cp = end + 1;
    }
  }
  const out: string[] = [];
  let runStart = -1;
  let runKey = '';
  let prev = -1;
  const flush = (): void => {
    if (runStart < 0) return;
    out.push(unitClass([runStart, prev]) + unitClass(normalize(lows.get(runStart)!)));
  };
  for (const hi of [...lows.keys()].sort((a, b) => a - b)) {
    const key = classBody(normalize(lows.get(hi)!));
    if (hi === prev + 1 && key === runKey) {
      prev = hi;
      continue;
    }
    flush();
    runStart = hi;
    runKey = key;
    prev = hi;
  }
  flush();
  return out;
}

export interface Emitted {
  readonly src: string;
  /** true when the source is one JS atom a quantifier can follow directly */
  readonly atomic: boolean;
}

/**
 * Emitted sources by set: most patterns repeat a few sets (`.`, `\S`, negated classes), and a set reaching past
 * the BMP costs one surrogate class per 1,024 code points to emit (tens of ms of start-up, warming the pack up).
 */
const EMITTED = new Map<string, Emitted>();
const EMITTED_MAX = 512;

/**
 * JS source (no `u` flag) matching exactly one code point of the set in a well-formed UTF-16
 * string. Surrogate code points are dropped: well-formed input has none on their own, and the
 * pair alternatives only ever match a whole pair, so no match starts or ends inside one.
 */
export function emitSet(set: CharSet): Emitted {
  const key = set.join(',');
  let emitted = EMITTED.get(key);
  if (!emitted) {
    emitted = emitUncached(set);
    if (EMITTED.size >= EMITTED_MAX) EMITTED.clear();
    EMITTED.set(key, emitted);
  }
  return emitted;
}

function emitUncached(set: CharSet): Emitted {
  const bmp = intersect(set, [0, SURROGATE_LO - 1, SURROGATE_HI + 1, 0xffff]);
  const astral = intersect(set, [0x10000, MAX_CP]);
  const parts: string[] = [];
  if (bmp.length > 0) parts.push(unitClass(bmp));
  parts.push(...astralAlternatives(astral));
  if (parts.length === 0) return { src: '[]', atomic: true };
  if (parts.length === 1) return { src: parts[0]!, atomic: bmp.length > 0 };
  return { src: `(?:${parts.join('|')})`, atomic: true };
}
