/**
 * The low-level readers of Go's time.Parse: digits, names, literal text, zone abbreviations and
 * numeric offsets. Each consumes a prefix of the value and returns the rest, or throws Bad.
 */
import { LONG_DAYS, LONG_MONTHS } from './civil.js';

export const SHORT_MONTHS = LONG_MONTHS.map((m) => m.slice(0, 3));
export const SHORT_DAYS = LONG_DAYS.map((d) => d.slice(0, 3));

/** Go's time.quote: ASCII printable kept, everything else as \x escapes of its UTF-8 bytes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    } else {
      if (ch === '"' || ch === '\\') out += '\\';
      out += ch;
    }
  }
  return out + '"';
}

export class Bad extends Error {}

export function isDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Go's getnum: one or two digits; `fixed` requires two. */
export function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigit(s, 0)) throw new Bad();
  if (!isDigit(s, 1)) {
    if (fixed) throw new Bad();
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

/** Go's getnum3: one to three digits; `fixed` requires three. */
export function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigit(s, i); i++) n = n * 10 + (s.charCodeAt(i) - 48);
  if (i === 0 || (fixed && i !== 3)) throw new Bad();
  return [n, s.slice(i)];
}

/** Go's atoi: optional sign, then only digits. */
export function atoi(s: string): number {
  const m = /^([+-]?)(\d+)$/.exec(s);
  if (!m) throw new Bad();
  const v = Number(m[2]);
  return m[1] === '-' ? -v : v;
}

/** Case-insensitive prefix match against a name table; returns the index. */
export function lookup(tab: readonly string[], val: string): [number, string] {
  for (let i = 0; i < tab.length; i++) {
    const v = tab[i]!;
    if (val.length >= v.length && val.slice(0, v.length).toLowerCase() === v.toLowerCase()) {
      return [i, val.slice(v.length)];
    }
  }
  throw new Bad();
}

function cutspace(s: string): string {
  let i = 0;
  while (s[i] === ' ') i++;
  return s.slice(i);
}

/** Go's skip: consume the literal `prefix` from `value`; a space matches any run of spaces. */
export function skip(value: string, prefix: string): string {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') throw new Bad();
      prefix = cutspace(prefix);
      value = cutspace(value);
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) throw new Bad();
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

function parseSignedOffset(value: string): number {
  const sign = value[0];
  if (sign !== '-' && sign !== '+') return 0;
  const m = /^\d+/.exec(value.slice(1));
  if (!m || Number(m[0]) > 12) return 0;
  return 1 + m[0].length;
}

/** Go's parseTimeZone: length of a plausible zone abbreviation at the start of `value`, or 0. */
export function parseTimeZone(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) return value.length === 3 ? 3 : 3 + parseSignedOffset(value.slice(3));
  if (value[0] === '+' || value[0] === '-') return parseSignedOffset(value);
  let n = 0;
  while (n < 6 && n < value.length && value[n]! >= 'A' && value[n]! <= 'Z') n++;
  switch (n) {
    case 5:
      return value[4] === 'T' ? 5 : 0;
    case 4:
      return value[3] === 'T' || value.startsWith('WITA') ? 4 : 0;
    case 3:
      return 3;
    default:
      return 0;
  }
}

export function isSep(c: string | undefined): boolean {
  return c === '.' || c === ',';
}

/** Go's parseNanoseconds: `value[0]` is the separator, `n` counts it; a negative value is a range error. */
export function parseNanoseconds(value: string, n: number): number {
  if (!isSep(value[0])) throw new Bad();
  const ns = atoi(value.slice(1, Math.min(n, 10)));
  // The scale counts from the clipped width, as Go's does.
  return ns < 0 ? -1 : ns * 10 ** (10 - Math.min(n, 10));
}

export interface Fields {
  year: number;
  month: number;
  day: number;
  yday: number;
  hour: number;
  min: number;
  sec: number;
  nsec: number;
  pm: boolean;
  am: boolean;
  utc: boolean;
  zoneOffset: number | undefined;
  zoneName: string;
}

export function parseTzOffset(code: string, value: string, f: Fields): [string, string | undefined] {
  let sign: string;
  let hh: string;
  let mm = '00';
  let ss = '00';
  if (code === 'ISO8601ColonTZ' || code === 'NumColonTZ') {
    if (value.length < 6 || value[3] !== ':') throw new Bad();
    [sign, hh, mm, value] = [value[0]!, value.slice(1, 3), value.slice(4, 6), value.slice(6)];
  } else if (code === 'NumShortTZ' || code === 'ISO8601ShortTZ') {
    if (value.length < 3) throw new Bad();
    [sign, hh, value] = [value[0]!, value.slice(1, 3), value.slice(3)];
  } else if (code === 'ISO8601ColonSecondsTZ' || code === 'NumColonSecondsTZ') {
    if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw new Bad();
    [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), value.slice(4, 6), value.slice(7, 9), value.slice(9)];
  } else if (code === 'ISO8601SecondsTZ' || code === 'NumSecondsTz') {
    if (value.length < 7) throw new Bad();
    [sign, hh, mm, ss, value] = [value[0]!, value.slice(1, 3), value.slice(3, 5), value.slice(5, 7), value.slice(7)];
  } else {
    if (value.length < 5) throw new Bad();
    [sign, hh, mm, value] = [value[0]!, value.slice(1, 3), value.slice(3, 5), value.slice(5)];
  }
  const h = getnum(hh, true)[0];
  const m = getnum(mm, true)[0];
  const s = getnum(ss, true)[0];
  // Go compares with > so that offsets of exactly 24h/60m/60s pass.
  let rangeErr: string | undefined;
  if (h > 24) rangeErr = 'time zone offset hour';
  if (m > 60) rangeErr = 'time zone offset minute';
  if (s > 60) rangeErr = 'time zone offset second';
  let off = (h * 60 + m) * 60 + s;
  if (sign === '-') off = -off;
  else if (sign !== '+') throw new Bad();
  f.zoneOffset = off;
  return [value, rangeErr];
}
