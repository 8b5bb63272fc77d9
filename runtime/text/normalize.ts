/**
 * The form of a text the detectors read (the built-in policy pack through `input.normalized`, and output
 * redaction): every code point on its own is
 * - dropped when it is invisible: a format character (Cf: zero-width spaces and joiners, bidi controls, the soft
 *   hyphen), a default-ignorable one (variation selectors, Hangul fillers) or a combining mark (accents: "ïgnörë");
 * - a Unicode tag character (U+E0000–E007F) is dropped like the other invisible ones: a reader does not see it, so it
 *   must not break the visible value it sits in; the ASCII text tags spell (which some models read) is kept apart,
 *   by `hiddenTagText`, for the policy input's `decoded`;
 * - a decimal digit of any script (\p{Nd}: full-width, Arabic-Indic, Devanagari …) becomes the ASCII digit;
 * - a dash (\p{Pd}), a minus sign, or a dot or mark written between digit groups (middle dot, hyphenation point,
 *   katakana middle dot and prolonged sound mark) becomes "-", a space separator " ", a line or paragraph
 *   separator "\n";
 * - an enclosed digit or letter without a compatibility form (➀ ❶ ⓿ 🅰, enclosed.ts) becomes the ASCII it reads as;
 * - a look-alike of a Latin letter (Cyrillic "О", Greek "Α") or a typographic quote becomes ASCII (confusables.ts);
 * - anything else takes its compatibility decomposition (NFKD: full-width and mathematical letters, ligatures,
 *   circled and superscript digits), those rules applied to each part, then recomposed (NFC).
 * ASCII is never changed, and ASCII text is returned as it is after one check.
 * NB: per code point, not per string, so that every character of the result has one origin in the original (the
 * offset map output redaction needs to mask the original characters), and so that a text split anywhere between
 * code points normalizes to the normalized pieces joined (a stream).
 */
import { CONFUSABLES } from './confusables.js';
import { enclosedValue } from './enclosed.js';

const NON_ASCII = /[^\x00-\x7f]/;
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Mn}\p{Me}]$/u;
const DIGIT = /^\p{Nd}$/u;
const DASH = /^[\p{Pd}\u2212\u2796\u02d7\u207b\u208b\u00b7\u2027\u2219\u22c5\u30fb\u30fc]$/u;
const SPACE = /^\p{Zs}$/u;
const LINE = /^[\p{Zl}\p{Zp}]$/u;

/**
 * NB: a compatibility form longer than this is not taken (the Arabic ligature U+FDFA decomposes into 18
 * characters): an input would otherwise grow 18-fold between the size check and the detectors.
 */
const MAX_EXPANSION = 4;

/** Whether `text` holds a character outside ASCII: false means `normalize(text) === text`. */
export const hasNonAscii = (text: string): boolean => NON_ASCII.test(text);

/** The normalized form of `text` (the same string when it is ASCII). */
export function normalize(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  let out = '';
  for (const c of text) out += c.charCodeAt(0) < 0x80 ? c : fold(c);
  return out;
}

const TAG_LEAD = '\udb40';

/**
 * The ASCII text the Unicode tag characters of `text` spell (U+E0020–E007E, each the ASCII character 0xE0000 below
 * it), one string per run of them (other characters between tags end a run); [] when there are none. The
 * normalized text drops them: this is the hidden text some models still read.
 */
export function hiddenTagText(text: string): string[] {
  if (!text.includes(TAG_LEAD)) return [];
  const runs: string[] = [];
  let run = '';
  for (const c of text) {
    const cp = c.codePointAt(0)!;
    if (cp >= 0xe0020 && cp <= 0xe007e) run += String.fromCharCode(cp - 0xe0000);
    else if (cp >= 0xe0000 && cp <= 0xe007f) continue;
    else if (run !== '') {
      runs.push(run);
      run = '';
    }
  }
  if (run !== '') runs.push(run);
  return runs;
}

/** A normalized text with the origin of each of its UTF-16 units in the original. */
export interface Normalized {
  text: string;
  /**
   * `origins[j]`: the index in the original of the code point that unit `j` of `text` came from; absent when
   * `text` is the original (nothing changed). Several units may share an origin (a ligature), and original
   * characters that were dropped have none.
   */
  origins?: Int32Array;
}

/** `normalize(text)` with the offset map. */
export function normalizeMapped(text: string): Normalized {
  if (!NON_ASCII.test(text)) return { text };
  let out = '';
  let origins: Int32Array = new Int32Array(text.length + 16);
  let n = 0;
  let changed = false;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const original = cp < 0x80 ? text[i]! : text.slice(i, i + width);
    const c = cp < 0x80 ? original : fold(original);
    if (c !== original) changed = true;
    if (n + c.length > origins.length) origins = grow(origins, n + c.length);
    for (let k = 0; k < c.length; k++) origins[n++] = i;
    out += c;
    i += width;
  }
  return changed ? { text: out, origins: origins.subarray(0, n) } : { text };
}

/**
 * The original [start, end) that the normalized span [start, end) came from: from the first character of the
 * span's first origin to the last character of its last one (dropped characters inside are covered).
 */
export function originalSpan(original: string, n: Normalized, start: number, end: number): [number, number] {
  if (!n.origins) return [start, end];
  if (end <= start) {
    const at = originOf(original, n, start);
    return [at, at];
  }
  const last = n.origins[end - 1]!;
  return [n.origins[start]!, last + (original.codePointAt(last)! > 0xffff ? 2 : 1)];
}

/** Where normalized position `j` falls in the original: the origin of unit `j`, or the original's end past the last. */
export function originOf(original: string, n: Normalized, j: number): number {
  if (!n.origins) return j;
  return j < n.origins.length ? n.origins[j]! : original.length;
}

function grow(a: Int32Array, min: number): Int32Array {
  const b = new Int32Array(Math.max(min, a.length * 2));
  b.set(a);
  return b;
}

/**
 * Folded code points: every one of the Basic Multilingual Plane in a table filled as they are met, the others in a
 * map. NB: bounded by the code space, not by the texts seen: a text of tens of thousands of distinct characters
 * (which a cache of recent ones would keep missing, at a microsecond each) costs that once per process.
 */
const bmp: (string | undefined)[] = new Array<string | undefined>(0x10000);
const astral = new Map<number, string>();

/** The normalized form of one non-ASCII code point (a string of one or two UTF-16 units). */
function fold(c: string): string {
  const cp = c.codePointAt(0)!;
  if (unchanged(cp)) return c;
  if (cp < 0x10000) return (bmp[cp] ??= foldUncached(c, cp));
  let f = astral.get(cp);
  if (f === undefined) astral.set(cp, (f = foldUncached(c, cp)));
  return f;
}

/**
 * Code points that normalize to themselves, without looking: the CJK ideographs (not the compatibility ones) and
 * Hangul syllables, the unassigned planes 4 to 13, and the private-use planes 15 and 16.
 */
function unchanged(cp: number): boolean {
  return (
    (cp >= 0x3400 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0x20000 && cp < 0xe0000 && (cp < 0x2f800 || cp > 0x2fa1f)) ||
    cp >= 0xf0000
  );
}

function foldUncached(c: string, cp: number): string {
  if (cp >= 0xe0000 && cp <= 0xe007f) return '';
  const direct = mapOne(c, cp);
  if (direct !== undefined) return direct;
  const parts = c.normalize('NFKD');
  if (parts === c) return c;
  let out = '';
  for (const p of parts) {
    const code = p.codePointAt(0)!;
    out += code < 0x80 ? p : (mapOne(p, code) ?? p);
  }
  // NB: recomposed, so that a Hangul syllable (decomposed into jamo, none of them a mark) stays one syllable
  out = out.normalize('NFC');
  return out.length > MAX_EXPANSION ? c : out;
}

/** The rules that map a code point directly, or undefined. */
function mapOne(c: string, cp: number): string | undefined {
  if (INVISIBLE.test(c)) return '';
  if (DIGIT.test(c)) return String(digitValue(cp));
  if (DASH.test(c)) return '-';
  if (SPACE.test(c)) return ' ';
  if (LINE.test(c)) return '\n';
  return CONFUSABLES.get(cp) ?? enclosedValue(cp);
}

/**
 * The value of a decimal digit. Unicode encodes every set of decimal digits as ten contiguous code points from
 * zero to nine (a stability guarantee), and adjacent sets (the mathematical digits) each start at their zero: the
 * value is the distance from the start of the contiguous run of digits, modulo ten.
 */
function digitValue(cp: number): number {
  let start = cp;
  while (start > 0 && DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}
