/**
 * The element readers of Go's time.Parse: one layout element (a std chunk) read from the front of the
 * value into the parsed fields. Each returns the rest of the value and, when the element parsed but
 * its number is out of range, which field it was; text that does not parse throws Bad.
 */
import { LONG_DAYS, LONG_MONTHS } from './civil.js';
import { nextStdChunk, type Std, type StdCode } from './layout.js';
import {
  Bad,
  SHORT_DAYS,
  SHORT_MONTHS,
  atoi,
  getnum,
  getnum3,
  isDigit,
  isSep,
  lookup,
  parseNanoseconds,
  parseTimeZone,
  parseTzOffset,
  type Fields,
} from './parse-lex.js';

/** The rest of the value, and the name of an out-of-range field if any. */
export type Step = [rest: string, rangeErr?: string];

/**
 * Reads element `std` from the front of `value` into `f`. `layout` is the layout after the element
 * (a fractional second in the value is left for a fractional-second element that follows).
 */
export function parseElement(std: Std, value: string, f: Fields, layout: string): Step {
  return parseDate(std.code, value, f) ?? parseClock(std, value, f, layout) ?? parseZone(std.code, value, f);
}

/** Year, month, weekday and day elements; undefined for any other element. */
function parseDate(code: StdCode, value: string, f: Fields): Step | undefined {
  switch (code) {
    case 'year': {
      if (value.length < 2) throw new Bad();
      const y = atoi(value.slice(0, 2));
      f.year = y >= 69 ? y + 1900 : y + 2000;
      return [value.slice(2)];
    }
    case 'longYear':
      if (value.length < 4 || !isDigit(value, 0)) throw new Bad();
      f.year = atoi(value.slice(0, 4));
      return [value.slice(4)];
    case 'month':
    case 'longMonth': {
      const [m, rest] = lookup(code === 'month' ? SHORT_MONTHS : LONG_MONTHS, value);
      f.month = m + 1;
      return [rest];
    }
    case 'numMonth':
    case 'zeroMonth': {
      const [m, rest] = getnum(value, code === 'zeroMonth');
      f.month = m;
      return [rest, m <= 0 || m > 12 ? 'month' : undefined];
    }
    case 'weekDay':
      return [lookup(SHORT_DAYS, value)[1]];
    case 'longWeekDay':
      return [lookup(LONG_DAYS, value)[1]];
    case 'day':
    case 'underDay':
    case 'zeroDay': {
      if (code === 'underDay' && value[0] === ' ') value = value.slice(1);
      const [d, rest] = getnum(value, code === 'zeroDay');
      f.day = d;
      return [rest];
    }
    case 'underYearDay':
    case 'zeroYearDay': {
      for (let i = 0; i < 2; i++) if (code === 'underYearDay' && value[0] === ' ') value = value.slice(1);
      const [d, rest] = getnum3(value, code === 'zeroYearDay');
      f.yday = d;
      return [rest];
    }
    default:
      return undefined;
  }
}

/** Hour, minute, second, fraction and AM/PM elements; undefined for any other element. */
function parseClock(std: Std, value: string, f: Fields, layout: string): Step | undefined {
  switch (std.code) {
    case 'hour':
    case 'hour12':
    case 'zeroHour12': {
      const [h, rest] = getnum(value, std.code === 'zeroHour12');
      f.hour = h;
      return [rest, (std.code === 'hour' ? h >= 24 : h > 12) ? 'hour' : undefined];
    }
    case 'minute':
    case 'zeroMinute': {
      const [m, rest] = getnum(value, std.code === 'zeroMinute');
      f.min = m;
      return [rest, m >= 60 ? 'minute' : undefined];
    }
    case 'second':
    case 'zeroSecond':
      return parseSecond(std.code, value, f, layout);
    case 'PM':
    case 'pm': {
      if (value.length < 2) throw new Bad();
      const p = value.slice(0, 2);
      const [pm, am] = std.code === 'PM' ? ['PM', 'AM'] : ['pm', 'am'];
      if (p === pm) f.pm = true;
      else if (p === am) f.am = true;
      else throw new Bad();
      return [value.slice(2)];
    }
    case 'fracSecond0': {
      const nd = 1 + (std.digits ?? 0);
      if (value.length < nd) throw new Bad();
      f.nsec = parseNanoseconds(value, nd);
      return [value.slice(nd), f.nsec < 0 ? 'fractional second' : undefined];
    }
    case 'fracSecond9': {
      if (value.length < 2 || !isSep(value[0]) || !isDigit(value, 1)) return [value];
      let i = 0;
      while (i + 1 < value.length && isDigit(value, i + 1)) i++;
      f.nsec = parseNanoseconds(value, 1 + i);
      return [value.slice(1 + i)];
    }
    default:
      return undefined;
  }
}

/** Seconds, and a fractional second the layout does not spell out (Go accepts one after seconds). */
function parseSecond(code: StdCode, value: string, f: Fields, layout: string): Step {
  const [s, rest] = getnum(value, code === 'zeroSecond');
  f.sec = s;
  if (s >= 60) return [rest, 'second'];
  value = rest;
  if (value.length >= 2 && isSep(value[0]) && isDigit(value, 1)) {
    const next = nextStdChunk(layout).std?.code;
    if (next === 'fracSecond0' || next === 'fracSecond9') return [value];
    let n = 2;
    while (n < value.length && isDigit(value, n)) n++;
    f.nsec = parseNanoseconds(value, n);
    return [value.slice(n), f.nsec < 0 ? 'fractional second' : undefined];
  }
  return [value];
}

/** Zone offset and abbreviation elements (every element the other readers leave). */
function parseZone(code: StdCode, value: string, f: Fields): Step {
  switch (code) {
    case 'ISO8601TZ':
    case 'ISO8601ShortTZ':
    case 'ISO8601ColonTZ':
    case 'ISO8601SecondsTZ':
    case 'ISO8601ColonSecondsTZ':
      if (value[0] === 'Z') {
        f.utc = true;
        return [value.slice(1)];
      }
      return parseTzOffset(code, value, f);
    case 'NumTZ':
    case 'NumShortTZ':
    case 'NumColonTZ':
    case 'NumSecondsTz':
    case 'NumColonSecondsTZ':
      return parseTzOffset(code, value, f);
    case 'TZ': {
      if (value.startsWith('UTC')) {
        f.utc = true;
        return [value.slice(3)];
      }
      const n = parseTimeZone(value);
      if (n === 0) throw new Bad();
      f.zoneName = value.slice(0, n);
      return [value.slice(n)];
    }
    default:
      return [value];
  }
}
