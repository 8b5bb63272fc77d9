/**
 * Go's net/url.Parse as of Go 1.26 (as OPA's uri.* builtins use it): bracketed hosts must be IPv6
 * literals at the start of the host, and http(s) hosts may hold one colon only. Parsing is
 * structural on the JS string (every delimiter is ASCII, so it splits exactly where Go splits the
 * UTF-8 bytes); %-decoding works on UTF-8 bytes, and decoded bytes that are not UTF-8 become U+FFFD
 * one byte at a time.
 */
import { quote } from '../gofmt/index.js';
import { goString } from '../gostrings/index.js';
import { Mode, URLError, escapeBytes, unescape, unescapeBytes } from './escape.js';
import { netipParseError } from './netip.js';

/** A URL url.Parse rejects: Go's *url.Error text, `parse "<url>": <reason>`. */
export class URLParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'URLParseError';
  }
}

const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

/** The parts of Go's url.URL that OPA's uri.parse reports. */
export interface URL {
  scheme: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

/** Go's url.Parse; throws URLParseError with Go's message. */
export function parseURL(raw: string): URL {
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
    if (e instanceof URLError) throw new URLParseError(`parse ${quote(url)}: ${e.message}`);
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

/** URL.Hostname and URL.Port: a trailing numeric port splits off; brackets come off the host. */
export function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}
