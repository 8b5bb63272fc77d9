/**
 * Text hidden in base64 ("decode this and follow it: SWdub3JlIGFsbC…"): the runs of texts that look like base64
 * and decode to readable text, decoded. Bounded: the detectors read at most `maxRuns` decoded texts and
 * `maxChars` characters of them in all (a text past the budget is cut), whatever the input holds.
 */
import { normalize } from './normalize.js';

export interface DecodeLimits {
  /** @default 32 */
  maxRuns?: number;
  /** @default 16_384 */
  maxChars?: number;
}

/**
 * A run: 16 characters (12 bytes) at least, or 12 with padding after them (an SSN, 11 bytes, is 15 characters and
 * "="); a MIME line after it: 4 at least.
 */
const MIN_RUN = 16;
const MIN_PADDED = 12;
const MIN_LINE = 4;
const LINE_BREAKS = /\r?\n/;

/** The standard and the URL-safe alphabets (Node decodes both with 'base64'). */
const ALPHABET = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') ALPHABET[c.charCodeAt(0)] = 1;
const inAlphabet = (c: number) => c < 128 && ALPHABET[c] === 1;
const UPPER = /[A-Z]/;
const LOWER = /[a-z]/;
/** C0 and C1 controls other than tab and line breaks, and DEL: random bytes have them, text has not. */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The base64 runs of `texts` that decode to text (valid UTF-8 without control characters), normalized, in order;
 * a run found in several texts (a message and the conversation that holds it) is decoded once.
 */
export function decodeBase64Runs(texts: readonly string[], limits: DecodeLimits = {}): string[] {
  const maxRuns = limits.maxRuns ?? 32;
  let budget = limits.maxChars ?? 16_384;
  const out: string[] = [];
  let seen: Set<string> | undefined;
  for (const text of texts) {
    for (let span = nextRun(text, 0); span !== undefined; span = nextRun(text, span[1])) {
      if (out.length >= maxRuns || budget <= 0) return out;
      const run = text.slice(span[0], span[1]);
      if (seen?.has(run)) continue;
      (seen ??= new Set()).add(run);
      for (const decoded of decodeBlock(run)) {
        if (out.length >= maxRuns || budget <= 0) break;
        const kept = decoded.length > budget ? decoded.slice(0, budget) : decoded;
        budget -= kept.length;
        out.push(normalize(kept));
      }
    }
  }
  return out;
}

/** Every run of `text` that looks like base64 (decoded or not). */
export function findRuns(text: string): string[] {
  const out: string[] = [];
  for (let span = nextRun(text, 0); span !== undefined; span = nextRun(text, span[1])) {
    out.push(text.slice(span[0], span[1]));
  }
  return out;
}

/**
 * The next run at or after `from`, as [start, end): the longest stretch of alphabet characters, 16 at least (12 before
 * padding), with the
 * lines of a MIME block that follow it (MIME wraps base64 at 76 characters, PEM at 64) and its padding.
 * NB: a loop over the characters, not a regular expression: /[A-Za-z0-9+/_-]{16,}/ costs 12 µs per KB of prose in
 * V8 (it tries every start), and this runs on every request. Base64 inside a longer word is not found (nor is it
 * text a reader would take for base64).
 */
function nextRun(text: string, from: number): [number, number] | undefined {
  const n = text.length;
  // NB: skips ahead: a run of 12 that holds position i + 11 starts after i, or holds no character in [i, i + 11]
  for (let i = from; i + MIN_PADDED <= n;) {
    const probe = i + MIN_PADDED - 1;
    if (!inAlphabet(text.charCodeAt(probe))) {
      i = probe + 1;
      continue;
    }
    let start = probe;
    while (start > i && inAlphabet(text.charCodeAt(start - 1))) start--;
    let end = probe + 1;
    while (end < n && inAlphabet(text.charCodeAt(end))) end++;
    if (end - start < MIN_RUN && (end - start < MIN_PADDED || text.charCodeAt(end) !== 61)) {
      i = end + 1;
      continue;
    }
    for (;;) {
      let j = end;
      if (text.charCodeAt(j) === 13) j++;
      if (text.charCodeAt(j) !== 10) break;
      let k = ++j;
      while (k < n && inAlphabet(text.charCodeAt(k))) k++;
      if (k - j < MIN_LINE) break;
      end = k;
    }
    if (text.charCodeAt(end) === 61) end += text.charCodeAt(end + 1) === 61 ? 2 : 1;
    return [start, end];
  }
  return undefined;
}

/** A block of lines decodes whole (MIME), or else line by line (lines of text that merely look like base64). */
function decodeBlock(run: string): string[] {
  const whole = decodeRun(run.replace(/\r?\n/g, ''));
  if (whole !== undefined || !LINE_BREAKS.test(run)) return whole === undefined ? [] : [whole];
  const out: string[] = [];
  for (const line of run.split(LINE_BREAKS)) {
    const d = line.length >= MIN_RUN ? decodeRun(line) : undefined;
    if (d !== undefined) out.push(d);
  }
  return out;
}

function decodeRun(run: string): string | undefined {
  const body = run.replace(/=+$/, '');
  // a base64 length is never 1 modulo 4; text encoded in base64 mixes cases, an identifier or a hex digest does not
  if (body.length % 4 === 1 || !UPPER.test(body) || !LOWER.test(body)) return undefined;
  // NB: Node decodes both alphabets ("+/" and "-_") with 'base64'
  const bytes = Buffer.from(body, 'base64');
  let s: string;
  try {
    s = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  return s.length === 0 || CONTROL.test(s) ? undefined : s;
}
