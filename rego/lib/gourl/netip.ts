/** The error texts of Go's netip.ParseAddr, which url.Parse reports for bad bracketed hosts. */
import { quote } from '../gofmt/index.js';

/** netip.ParseAddr's error text for s, or undefined when s is an IP address. */
export function netipParseError(s: string): string | undefined {
  const fail = (msg: string, at = ''): string =>
    `ParseAddr(${quote(s)}): ${msg}${at === '' ? '' : ` (at ${quote(at)})`}`;
  for (const c of s) {
    if (c === '.') return ipv4Error(s, fail);
    if (c === ':') return ipv6Error(s, fail);
    if (c === '%') return fail('missing IPv6 address');
  }
  return fail('unable to parse IP');
}

type Fail = (msg: string, at?: string) => string;

function ipv4Error(part: string, fail: Fail): string | undefined {
  let val = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) return fail('IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) return fail('IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === part.length - 1 || part[i - 1] === '.')
        return fail('IPv4 field must have at least one digit', part.slice(i));
      if (dots === 3) return fail('IPv4 address too long');
      dots++;
      val = 0;
      digits = 0;
    } else return fail('unexpected character', part.slice(i));
  }
  return dots < 3 ? fail('IPv4 address too short') : undefined;
}

function ipv6Error(input: string, fail: Fail): string | undefined {
  let s = input;
  const pct = s.indexOf('%');
  if (pct >= 0) {
    if (pct === s.length - 1) return fail('zone must be a non-empty string');
    s = s.slice(0, pct);
  }
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return undefined;
  }
  let i = 0;
  while (i < 16) {
    const hex = /^[0-9A-Fa-f]*/.exec(s)![0];
    if (hex.length > 4) return fail('each colon-separated field must have at most 4 hex digits', s);
    if (hex.length === 0) return fail('each colon-separated field must have at least one digit', s);
    if (s[hex.length] === '.') {
      if (ellipsis < 0 && i !== 12)
        return fail('embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) return fail('too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const err = ipv4Error(s, fail);
      if (err !== undefined) return err;
      s = '';
      i += 4;
      break;
    }
    i += 2;
    s = s.slice(hex.length);
    if (s === '') break;
    if (s[0] !== ':') return fail('unexpected character, want colon', s);
    if (s.length === 1) return fail('colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return fail('multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return fail('trailing garbage after address', s);
  if (i < 16 && ellipsis < 0) return fail('address string too short');
  if (i === 16 && ellipsis >= 0) return fail('the :: must expand to at least one field of zeros', s);
  return undefined;
}
