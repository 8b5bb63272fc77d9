/**
 * The "format" checks gojsonschema performs (format_checkers.go), re-expressed: Go's time.Parse
 * layouts for dates and times, net.ParseIP, url.Parse, mail.ParseAddress (its common forms), and the
 * library's regular expressions. Unknown formats and non-string values always pass.
 */
import type { Value } from '../../value.js';
import { compileRegex } from './schema.js';

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** time.Parse("2006-01-02", s) */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= (mo === 2 && leap(y) ? 29 : DAYS[mo - 1]!);
}

/** Hour of layout "15" takes one or two digits; minutes and seconds exactly two; optional fraction. */
const TIME = '(\\d{1,2}):(\\d{2}):(\\d{2})(?:[.,]\\d+)?';
const ZONE = '(?:Z|[+-](\\d{2}):(\\d{2}))';

function timeOk(h: string, m: string, s: string): boolean {
  return Number(h) < 24 && Number(m) < 60 && Number(s) < 60;
}

function zoneOk(zh: string | undefined, zm: string | undefined): boolean {
  return zh === undefined || (Number(zh) < 24 && Number(zm) < 60);
}

function isTime(s: string, zone: boolean): boolean {
  const m = new RegExp(`^${TIME}${zone ? ZONE : ''}$`).exec(s);
  return m !== null && timeOk(m[1]!, m[2]!, m[3]!) && zoneOk(m[4], m[5]);
}

function isRFC3339(s: string): boolean {
  const m = new RegExp(`^(\\d{4}-\\d{2}-\\d{2})T${TIME}${ZONE}$`).exec(s);
  return m !== null && isDate(m[1]!) && m[2]!.length === 2 && timeOk(m[2]!, m[3]!, m[4]!) && zoneOk(m[5], m[6]);
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** net.ParseIP: dotted IPv4, or IPv6 with at most one "::" (standing for 1+ groups), maybe ending in IPv4. */
function parseIP(s: string): boolean {
  if (isIPv4(s)) return true;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return false;
  let text = s;
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    if (!isIPv4(last)) return false;
    // A trailing IPv4 address fills the last two groups.
    text = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string): string[] => (h === '' ? [] : h.split(':'));
  const all = halves.flatMap(groups);
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? all.length < 8 : all.length === 8;
}

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** url.Parse's rejections that matter here: control characters, bad escapes, bad hosts. */
function parsesAsURL(s: string): boolean {
  if (/[\x00-\x1f\x7f]/.test(s)) return false;
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return false;
  if (s.startsWith(':')) return false;
  const auth = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?\/\/([^/?#]*)/.exec(s);
  if (auth !== null) {
    const hostport = auth[1]!.replace(/^.*@/, '');
    if (/\s/.test(hostport)) return false;
    const port = /:([^:\]]*)$/.exec(hostport);
    if (port !== null && !hostport.startsWith('[') && !/^\d*$/.test(port[1]!)) return false;
  }
  if (!SCHEME.test(s)) {
    const firstSegment = s.split(/[/?#]/)[0]!;
    if (firstSegment.includes(':')) return false;
  }
  return true;
}

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = `(?:${ATOM}(?:\\.${ATOM})*|"(?:[^"\\\\\\r\\n]|\\\\.)*")`;
const DOMAIN = `(?:${ATOM}(?:\\.${ATOM})*|\\[[^\\[\\]\\\\]*\\])`;
const ADDR = `${LOCAL}@${DOMAIN}`;
const EMAIL = new RegExp(`^(?:${ADDR}|(?:[^<>@]*|"[^"]*")\\s*<${ADDR}>)$`, 'u');

const HOSTNAME =
  /^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*$/;
const URI_TEMPLATE = /^([^{]*({[^}]*})?)*$/;
const UUID = /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/i;
const JSON_POINTER = /^(?:\/(?:[^~/]|~0|~1)*)*$/;
const REL_JSON_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/;

const checkers: Record<string, (s: string) => boolean> = {
  date: isDate,
  time: (s) => isTime(s, true) || isTime(s, false),
  'date-time': (s) => isTime(s, false) || isTime(s, true) || isDate(s) || isRFC3339(s),
  hostname: (s) => HOSTNAME.test(s) && Buffer.byteLength(s) < 256,
  email: (s) => EMAIL.test(s.trim()),
  'idn-email': (s) => EMAIL.test(s.trim()),
  ipv4: (s) => parseIP(s) && s.includes('.'),
  ipv6: (s) => parseIP(s) && s.includes(':'),
  uri: (s) => parsesAsURL(s) && SCHEME.test(s) && !s.includes('\\'),
  'uri-reference': (s) => parsesAsURL(s) && !s.includes('\\'),
  iri: (s) => parsesAsURL(s) && SCHEME.test(s) && !s.includes('\\'),
  'iri-reference': (s) => parsesAsURL(s) && !s.includes('\\'),
  'uri-template': (s) => {
    if (!parsesAsURL(s) || s.includes('\\')) return false;
    const path = s
      .replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:/, '')
      .replace(/^\/\/[^/?#]*/, '')
      .replace(/[?#].*$/, '');
    return URI_TEMPLATE.test(path);
  },
  uuid: (s) => UUID.test(s),
  regex: (s) => s === '' || compileRegex(s) !== undefined,
  'json-pointer': (s) => JSON_POINTER.test(s),
  'relative-json-pointer': (s) => REL_JSON_POINTER.test(s),
};

export function isFormat(format: string, v: Value): boolean {
  const check = checkers[format];
  if (check === undefined || typeof v !== 'string') return true;
  return check(v);
}
