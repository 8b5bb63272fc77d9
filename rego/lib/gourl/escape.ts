/**
 * net/url's percent-encoding for url.Parse: unescaping per component (path, host, zone, userinfo,
 * fragment) on UTF-8 bytes, with Go's errors, and escaping to tell whether a path needs RawPath.
 */
import { quote } from '../gofmt/index.js';
import { goString } from '../gostrings/index.js';

/** A net/url error; the message is Go's, without the `parse "<url>": ` wrapper. */
export class URLError extends Error {}

export const enum Mode {
  Path,
  Host,
  Zone,
  UserPassword,
  Fragment,
}

const ALNUM = /^[0-9A-Za-z]$/;

/** Go's shouldEscape, for the modes Parse uses. */
function shouldEscape(c: number, mode: Mode): boolean {
  const ch = String.fromCharCode(c);
  if (c < 0x80 && ALNUM.test(ch)) return false;
  if ((mode === Mode.Host || mode === Mode.Zone) && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    if (mode === Mode.Path) return ch === '?';
    if (mode === Mode.UserPassword) return '@/?:'.includes(ch);
    if (mode === Mode.Fragment) return false;
  }
  if (mode === Mode.Fragment && '!()*'.includes(ch)) return false;
  return true;
}

const encoder = new TextEncoder();

/** utf8.DecodeRune: [code point, width], or [-1, 1] for a byte that starts no valid sequence. */
function decodeRune(b: Uint8Array, i: number): [number, number] {
  const c = b[i]!;
  if (c < 0x80) return [c, 1];
  const [n, min] =
    c >= 0xc2 && c <= 0xdf
      ? [2, 0x80]
      : c >= 0xe0 && c <= 0xef
        ? [3, 0x800]
        : c >= 0xf0 && c <= 0xf4
          ? [4, 0x10000]
          : [0, 0];
  if (n === 0 || i + n > b.length) return [-1, 1];
  let cp = c & (0xff >> (n + 1));
  for (let k = 1; k < n; k++) {
    const d = b[i + k]!;
    if ((d & 0xc0) !== 0x80) return [-1, 1];
    cp = (cp << 6) | (d & 0x3f);
  }
  return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? [-1, 1] : [cp, n];
}

/** strconv.Quote of a byte string that may not be UTF-8: stray bytes print as \xNN. */
function quoteBytes(b: Uint8Array): string {
  let body = '';
  for (let i = 0; i < b.length;) {
    const [cp, n] = decodeRune(b, i);
    body += cp < 0 ? `\\x${b[i]!.toString(16).padStart(2, '0')}` : quote(String.fromCodePoint(cp)).slice(1, -1);
    i += n;
  }
  return `"${body}"`;
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const unhex = (c: number): number => (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);

/** Go's unescape: the decoded bytes, or a URLError for bad escapes and bad host bytes. */
export function unescapeBytes(text: string, mode: Mode): Uint8Array {
  const s = encoder.encode(text);
  const out: number[] = [];
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === 0x25) {
      if (i + 2 >= s.length || !isHex(s[i + 1]!) || !isHex(s[i + 2]!)) {
        throw new URLError(`invalid URL escape ${quoteBytes(s.subarray(i, i + 3))}`);
      }
      const v = (unhex(s[i + 1]!) << 4) | unhex(s[i + 2]!);
      const pct25 = s[i + 1] === 0x32 && s[i + 2] === 0x35;
      if (
        (mode === Mode.Host && unhex(s[i + 1]!) < 8 && !pct25) ||
        (mode === Mode.Zone && !pct25 && v !== 0x20 && shouldEscape(v, Mode.Host))
      ) {
        throw new URLError(`invalid URL escape ${quoteBytes(s.subarray(i, i + 3))}`);
      }
      out.push(v);
      i += 3;
      continue;
    }
    if ((mode === Mode.Host || mode === Mode.Zone) && c < 0x80 && shouldEscape(c, mode)) {
      throw new URLError(`invalid character ${quote(String.fromCharCode(c))} in host name`);
    }
    out.push(c);
    i++;
  }
  return Uint8Array.from(out);
}

export const unescape = (text: string, mode: Mode): string => goString(unescapeBytes(text, mode));

/** Go's escape of decoded bytes, to tell whether Path needs RawPath. */
export function escapeBytes(b: Uint8Array, mode: Mode): string {
  let out = '';
  for (const c of b)
    out += shouldEscape(c, mode) ? `%${c.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(c);
  return out;
}
