/**
 * uri.parse and uri.is_valid (OPA v1/topdown/uri.go, new in OPA 1.20): Go's net/url.Parse as of
 * Go 1.26 — bracketed hosts must be IPv6 literals at the start of the host, and http(s) hosts may
 * hold one colon only. Parsing is structural on the JS string (every delimiter is ASCII, so it
 * splits exactly where Go splits the UTF-8 bytes); %-decoding works on UTF-8 bytes, and decoded
 * bytes that are not UTF-8 become U+FFFD one byte at a time, as OPA's JSON output does.
 */
import { BuiltinError } from '../errors.js';
import { T } from '../types.js';
import { RObject, type Value } from '../value.js';
import { str } from './args.js';
import { goString } from './encoding-utf8.js';
import type { BuiltinImpl, BuiltinRegistry } from './registry.js';
import { quote } from './sprintf-quote.js';

const decls = {
  'uri.parse': { args: [T.string], result: T.object(T.string, T.string) },
  'uri.is_valid': { args: [T.string], result: T.boolean },
};

/** A net/url error; the message is Go's, without the `parse "<url>": ` wrapper. */
class URLError extends Error {}

const enum Mode {
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
function unescapeBytes(text: string, mode: Mode): Uint8Array {
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

const unescape = (text: string, mode: Mode): string => goString(unescapeBytes(text, mode));

/** Go's escape of decoded bytes, to tell whether Path needs RawPath. */
function escapeBytes(b: Uint8Array, mode: Mode): string {
  let out = '';
  for (const c of b)
    out += shouldEscape(c, mode) ? `%${c.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(c);
  return out;
}

const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

interface URL {
  scheme: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

/** Go's url.Parse; throws BuiltinError with Go's message. */
function parseURL(raw: string): URL {
  const hash = raw.indexOf('#');
  const head = hash < 0 ? raw : raw.slice(0, hash);
  const url = wrap(head, () => parseHead(head));
  if (hash >= 0) url.fragment = wrap(raw, () => unescape(raw.slice(hash + 1), Mode.Fragment));
  return url;
}

function wrap<R>(url: string, f: () => R): R {
  try {
    return f();
  } catch (e) {
    if (e instanceof URLError) throw new BuiltinError(`parse ${quote(url)}: ${e.message}`);
    throw e;
  }
}

function parseHead(raw: string): URL {
  const url: URL = { scheme: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '' };
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '*') return { ...url, path: '*', rawPath: '*' };
  const m = /^([A-Za-z][A-Za-z0-9+.-]*)?:/.exec(raw);
  if (m !== null && m[1] === undefined) throw new URLError('missing protocol scheme');
  url.scheme = m === null ? '' : m[1]!.toLowerCase();
  let rest = m === null ? raw : raw.slice(m[0].length);
  const q = rest.indexOf('?');
  if (q >= 0) {
    url.rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') return url; // opaque: scheme:opaque
    if (rest.split('/', 1)[0]!.includes(':')) throw new URLError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    url.host = parseAuthority(url.scheme, authority);
  }
  const pathBytes = unescapeBytes(rest, Mode.Path);
  url.path = goString(pathBytes);
  url.rawPath = escapeBytes(pathBytes, Mode.Path) === rest ? url.path : rest;
  return url;
}

function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new URLError('net/url: invalid userinfo');
    // Only validated: OPA reports no user or password.
    const colon = userinfo.indexOf(':');
    unescape(colon < 0 ? userinfo : userinfo.slice(0, colon), Mode.UserPassword);
    if (colon >= 0) unescape(userinfo.slice(colon + 1), Mode.UserPassword);
  }
  return host;
}

function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new URLError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new URLError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${quote(colonPort)} after host`);
    const name = host.slice(1, close);
    const zone = name.indexOf('%25');
    const addr =
      zone < 0
        ? unescape(name, Mode.Host)
        : unescape(name.slice(0, zone), Mode.Host) + unescape(name.slice(zone), Mode.Zone);
    const err = netipParseError(addr);
    if (err !== undefined) throw new URLError(`invalid host: ${err}`);
    if (/^[0-9.]+$/.test(addr)) throw new URLError('invalid IP-literal'); // a parsed IPv4 address
    return `[${addr}]${colonPort}`;
  }
  let colon = host.indexOf(':');
  if (colon >= 0) {
    // NB: only http(s) hosts are held to one colon (go.dev/issue/75223, 78077).
    if (scheme !== 'http' && scheme !== 'https') colon = host.lastIndexOf(':');
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${quote(colonPort)} after host`);
  }
  return unescape(host, Mode.Host);
}

/** netip.ParseAddr's error text for s, or undefined when s is an IP address. */
function netipParseError(s: string): string | undefined {
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

/** URL.Hostname and URL.Port: a trailing numeric port splits off; brackets come off the host. */
function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

const uriParse: BuiltinImpl = (args) => {
  const u = parseURL(str(args, 0));
  const [hostname, port] = splitHostPort(u.host);
  const out = new RObject();
  const put = (k: string, v: string): void => {
    if (v !== '') out.set(k, v);
  };
  put('scheme', u.scheme);
  put('hostname', hostname);
  put('port', port);
  if (u.path !== '') {
    out.set('path', u.path);
    out.set('raw_path', u.rawPath);
  }
  put('raw_query', u.rawQuery);
  put('fragment', u.fragment);
  return out;
};

// Non-strings and "" are simply not valid (no type error), as in OPA.
const uriIsValid: BuiltinImpl = (args): Value => {
  const s = args[0];
  if (typeof s !== 'string' || s === '') return false;
  try {
    parseURL(s);
    return true;
  } catch (e) {
    if (e instanceof BuiltinError) return false;
    throw e;
  }
};

export function register(r: BuiltinRegistry): void {
  r.add({ name: 'uri.parse', ...decls['uri.parse'] }, uriParse);
  r.add({ name: 'uri.is_valid', ...decls['uri.is_valid'] }, uriIsValid);
}
