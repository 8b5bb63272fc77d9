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
