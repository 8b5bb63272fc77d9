/** Go's Time.Format over the layout chunks of layout.ts. */
import { LONG_DAYS, LONG_MONTHS, civilAt, floorDiv, type Civil } from './civil.js';
import { nextStdChunk, type Std, type StdCode } from './layout.js';
import type { Zone } from './zone.js';

/** Go's appendInt: decimal with at least `width` digits, sign before the padding. */
export function padInt(x: number, width: number): string {
  const s = String(Math.abs(x)).padStart(width, '0');
  return x < 0 ? `-${s}` : s;
}

function formatOffset(code: StdCode, offset: number): string {
  const iso = code.startsWith('ISO8601');
  if (offset === 0 && iso) return 'Z';
  let zone = Math.trunc(offset / 60);
  let abs = offset;
  let out = '+';
  if (zone < 0) {
    out = '-';
    zone = -zone;
    abs = -abs;
  }
  out += padInt(Math.floor(zone / 60), 2);
  const colon = code.includes('Colon');
  if (colon) out += ':';
  if (code !== 'NumShortTZ' && code !== 'ISO8601ShortTZ') out += padInt(zone % 60, 2);
  if (code.includes('Seconds')) {
    if (colon) out += ':';
    out += padInt(abs % 60, 2);
  }
  return out;
}

function formatNano(nanos: number, std: Std): string {
  const n = std.digits ?? 0;
  const trim = std.code === 'fracSecond9';
  if (trim && (n === 0 || nanos === 0)) return '';
  let digits = padInt(nanos, 9);
  if (n < 9) digits = digits.slice(0, n);
  if (trim) digits = digits.replace(/0+$/, '');
  return digits === '' ? '' : `${std.sep}${digits}`;
}

function formatStd(std: Std, t: Civil, offset: number, abbr: () => string): string {
  switch (std.code) {
    case 'year':
      return padInt(Math.abs(t.year) % 100, 2);
    case 'longYear':
      return padInt(t.year, 4);
    case 'month':
      return LONG_MONTHS[t.month - 1]!.slice(0, 3);
    case 'longMonth':
      return LONG_MONTHS[t.month - 1]!;
    case 'numMonth':
      return String(t.month);
    case 'zeroMonth':
      return padInt(t.month, 2);
    case 'weekDay':
      return LONG_DAYS[t.weekday]!.slice(0, 3);
    case 'longWeekDay':
      return LONG_DAYS[t.weekday]!;
    case 'day':
      return String(t.day);
    case 'underDay':
      return (t.day < 10 ? ' ' : '') + String(t.day);
    case 'zeroDay':
      return padInt(t.day, 2);
    case 'underYearDay':
      return (t.yearDay < 100 ? ' ' : '') + (t.yearDay < 10 ? ' ' : '') + String(t.yearDay);
    case 'zeroYearDay':
      return padInt(t.yearDay, 3);
    case 'hour':
      return padInt(t.hour, 2);
    case 'hour12':
      return String(t.hour % 12 === 0 ? 12 : t.hour % 12);
    case 'zeroHour12':
      return padInt(t.hour % 12 === 0 ? 12 : t.hour % 12, 2);
    case 'minute':
      return String(t.minute);
    case 'zeroMinute':
      return padInt(t.minute, 2);
    case 'second':
      return String(t.second);
    case 'zeroSecond':
      return padInt(t.second, 2);
    case 'PM':
      return t.hour >= 12 ? 'PM' : 'AM';
    case 'pm':
      return t.hour >= 12 ? 'pm' : 'am';
    case 'TZ': {
      const name = abbr();
      if (name !== '') return name;
      const zone = Math.trunc(offset / 60);
      const a = Math.abs(zone);
      return (zone < 0 ? '-' : '+') + padInt(Math.floor(a / 60), 2) + padInt(a % 60, 2);
    }
    case 'fracSecond0':
    case 'fracSecond9':
      return formatNano(t.nanosecond, std);
    default:
      return formatOffset(std.code, offset);
  }
}

/** Go's Time.Format of the instant `ns` in `zone`. */
export function formatTime(ns: bigint, zone: Zone, layout: string): string {
  const sec = floorDiv(ns, 1_000_000_000n);
  const offset = zone.offsetAt(sec);
  const t = civilAt(ns, offset);
  const abbr = (): string => zone.abbrAt(sec);
  let out = '';
  let rest = layout;
  for (;;) {
    const { prefix, std, suffix } = nextStdChunk(rest);
    out += prefix;
    if (!std) return out;
    out += formatStd(std, t, offset, abbr);
    rest = suffix;
  }
}
