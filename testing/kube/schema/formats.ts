/**
 * String formats the apiextensions server checks (go-openapi strfmt's default registry). Unknown
 * formats are accepted, as upstream does.
 */
import { isIP } from 'node:net';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAC =
  /^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{2}[:-]){7}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}([0-9A-Fa-f]{4})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DURATION_GO = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))*$/;
const DURATION_WORDS =
  /^\s*(\d+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|secs|min|mins|hr|hrs))+\s*$/i;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;
const BSON = /^[0-9a-fA-F]{24}$/;

function validDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function validUri(s: string): boolean {
  // Go's url.ParseRequestURI: an absolute URI or an absolute path.
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    const u = new URL(s);
    return u.protocol.length > 1;
  } catch {
    return false;
  }
}

function validCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(ip);
  return (family === 4 && Number(bits) <= 32) || (family === 6 && Number(bits) <= 128);
}

const CHECKS: Record<string, (s: string) => boolean> = {
  uri: validUri,
  email: (s) => EMAIL.test(s),
  hostname: (s) => HOSTNAME.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: validCidr,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  byte: (s) => BASE64.test(s),
  date: validDate,
  'date-time': (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  datetime: (s) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  duration: (s) => DURATION_GO.test(s) || DURATION_WORDS.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  bsonobjectid: (s) => BSON.test(s),
};

/** Whether `value` satisfies string format `format`; unknown formats always pass. */
export function checkFormat(format: string, value: string): boolean {
  const check = CHECKS[format];
  return check ? check(value) : true;
}
