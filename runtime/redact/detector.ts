/** One kind of sensitive value and how to find its spans. */
export interface Detector {
  /** The `<kind>` of `[REDACTED:<kind>]`. */
  kind: string;
  /** Global regex; the span redacted is capture group 1 when present, else the whole match. */
  pattern: RegExp;
  /** Extra check on the span (checksums, reserved values); `text` is the whole cell, for context words. */
  valid?: (span: string, text: string) => boolean;
  /** The part of the span to redact, or undefined for none (IBAN: the longest valid prefix). */
  refine?: (span: string) => string | undefined;
  /** Instead of `pattern`: [start, end) spans found by code (PEM blocks, where a lazy regex is quadratic). */
  spans?: (text: string) => [number, number][];
  /**
   * Upper bound of the characters one match can span, plus the lookaround context its pattern reads (at most 3
   * before, 2 after): the stream redactor (stream.ts) never holds back more than the largest of these.
   */
  maxLength: number;
  /**
   * Streaming hint: no match holds a character of this class (`space`: /\s/, `line`: \n, `delimiter`: whitespace,
   * quotes, `,`, `;`, brackets and `<>`) at an offset of
   * `breakAfter` or more from its start (tokens: 0; `password = value`: the label and separators). Lets the stream
   * redactor emit text before such a character instead of holding `maxLength` characters.
   */
  breaks?: { on: 'space' | 'line' | 'delimiter'; after: number };
  /**
   * Streaming hint, with `breaks`: how many characters past its end a match's pattern reads (a closing `\b` or
   * `(?![\w-])`: 1). With 1, a break in the last character already closes every match before it; absent, the
   * redactor assumes 2 and keeps the last two characters' breaks out of its reckoning.
   */
  lookahead?: 1;
  /**
   * Streaming hint: every match starts with a match of this global regex (`-----BEGIN `, `mysql`), at most
   * `head.length` characters long: text with no head in the last `maxLength` characters need not be held.
   */
  head?: {
    pattern: RegExp;
    length: number;
    /** the characters a head can begin with: an incomplete head at the end is held only from one of them */
    first?: RegExp;
    /**
     * Every head, as lower-case words (for case-insensitive heads): an incomplete head at the end is held only
     * where the text there is the beginning of one of them, rather than from any character `first` allows.
     */
    words?: readonly string[];
    /** Instead of `words`: matches (whole) any beginning of a head shorter than a head. */
    partial?: RegExp;
  };
  /**
   * `valid` reads context words anywhere in the text (SSN, Aadhaar, Azure SAS): in a stream, the context is only
   * the redactor's window, so a context word far from the number (or after it was sent) is not seen.
   */
  textContext?: true;
}

/** Matches nothing: the pattern of a detector that finds its spans with `spans`. */
export const NEVER = /(?!)/g;

export const digitsOf = (s: string) => s.replace(/[^0-9]/g, '');

/** Luhn: double every second digit from the right, subtract 9 from two-digit results. */
export function luhn(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let x = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
    sum += x;
  }
  return d.length > 0 && sum % 10 === 0;
}
