/**
 * Go's time.Parse(layout, value) with Go's error texts ("parsing time ... as ...: cannot parse ...").
 * Parsing runs with Local = UTC, so zone abbreviations other than UTC get offset 0 unless they are
 * "GMT+h", exactly as Go does on a UTC host.
 */
import { BuiltinError } from '../errors.js';
import { LONG_DAYS, LONG_MONTHS, NS_PER_SEC, daysBeforeMonth, daysIn, isLeap, unixFromCivil } from './time-civil.js';
import { nextStdChunk } from './time-layout.js';
import {
  Bad,
  SHORT_DAYS,
  SHORT_MONTHS,
  atoi,
  getnum,
  getnum3,
  goQuote,
  isDigit,
  isSep,
  lookup,
  parseNanoseconds,
  parseTimeZone,
  parseTzOffset,
  skip,
  type Fields,
} from './time-parse-lex.js';

export { goQuote };

function parseError(layout: string, value: string, elem: string, valueElem: string, message = ''): BuiltinError {
  if (message !== '') return new BuiltinError(`parsing time ${goQuote(value)}${message}`);
  return new BuiltinError(
    `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElem)} as ${goQuote(elem)}`,
  );
}

/**
 * Parses `value` by Go `layout`; returns Unix nanoseconds. Throws BuiltinError with Go's message.
 */
export function parseTime(layout: string, value: string): bigint {
  const aLayout = layout;
  const aValue = value;
  const f: Fields = {
    year: 0,
    month: -1,
    day: -1,
    yday: -1,
    hour: 0,
    min: 0,
    sec: 0,
    nsec: 0,
    pm: false,
    am: false,
    utc: false,
    zoneOffset: undefined,
    zoneName: '',
  };
  for (;;) {
    const { prefix, std, suffix } = nextStdChunk(layout);
    const stdStr = layout.slice(prefix.length, layout.length - suffix.length);
    try {
      value = skip(value, prefix);
    } catch {
      throw parseError(aLayout, aValue, prefix, value);
    }
    if (!std) {
      if (value.length !== 0) throw parseError(aLayout, aValue, '', value, `: extra text: ${goQuote(value)}`);
      break;
    }
    layout = suffix;
    const hold = value;
    let rangeErr: string | undefined;
    try {
      switch (std.code) {
        case 'year': {
          if (value.length < 2) throw new Bad();
          const y = atoi(value.slice(0, 2));
          value = value.slice(2);
          f.year = y >= 69 ? y + 1900 : y + 2000;
          break;
        }
        case 'longYear':
          if (value.length < 4 || !isDigit(value, 0)) throw new Bad();
          f.year = atoi(value.slice(0, 4));
          value = value.slice(4);
          break;
        case 'month':
          [f.month, value] = lookup(SHORT_MONTHS, value);
          f.month++;
          break;
        case 'longMonth':
          [f.month, value] = lookup(LONG_MONTHS, value);
          f.month++;
          break;
        case 'numMonth':
        case 'zeroMonth':
          [f.month, value] = getnum(value, std.code === 'zeroMonth');
          if (f.month <= 0 || f.month > 12) rangeErr = 'month';
          break;
        case 'weekDay':
          value = lookup(SHORT_DAYS, value)[1];
          break;
        case 'longWeekDay':
          value = lookup(LONG_DAYS, value)[1];
          break;
        case 'day':
        case 'underDay':
        case 'zeroDay':
          if (std.code === 'underDay' && value[0] === ' ') value = value.slice(1);
          [f.day, value] = getnum(value, std.code === 'zeroDay');
          break;
        case 'underYearDay':
        case 'zeroYearDay':
          for (let i = 0; i < 2; i++) if (std.code === 'underYearDay' && value[0] === ' ') value = value.slice(1);
          [f.yday, value] = getnum3(value, std.code === 'zeroYearDay');
          break;
        case 'hour':
          [f.hour, value] = getnum(value, false);
          if (f.hour >= 24) rangeErr = 'hour';
          break;
        case 'hour12':
        case 'zeroHour12':
          [f.hour, value] = getnum(value, std.code === 'zeroHour12');
          if (f.hour > 12) rangeErr = 'hour';
          break;
        case 'minute':
        case 'zeroMinute':
          [f.min, value] = getnum(value, std.code === 'zeroMinute');
          if (f.min >= 60) rangeErr = 'minute';
          break;
        case 'second':
        case 'zeroSecond': {
          [f.sec, value] = getnum(value, std.code === 'zeroSecond');
          if (f.sec >= 60) {
            rangeErr = 'second';
            break;
          }
          // A fractional second in the value but not in the layout is accepted here.
          if (value.length >= 2 && isSep(value[0]) && isDigit(value, 1)) {
            const next = nextStdChunk(layout).std?.code;
            if (next === 'fracSecond0' || next === 'fracSecond9') break;
            let n = 2;
            while (n < value.length && isDigit(value, n)) n++;
            f.nsec = parseNanoseconds(value, n);
            if (f.nsec < 0) rangeErr = 'fractional second';
            value = value.slice(n);
          }
          break;
        }
        case 'PM':
        case 'pm': {
          if (value.length < 2) throw new Bad();
          const p = value.slice(0, 2);
          value = value.slice(2);
          const [pm, am] = std.code === 'PM' ? ['PM', 'AM'] : ['pm', 'am'];
          if (p === pm) f.pm = true;
          else if (p === am) f.am = true;
          else throw new Bad();
          break;
        }
        case 'ISO8601TZ':
        case 'ISO8601ShortTZ':
        case 'ISO8601ColonTZ':
        case 'ISO8601SecondsTZ':
        case 'ISO8601ColonSecondsTZ':
          if (value[0] === 'Z') {
            value = value.slice(1);
            f.utc = true;
            break;
          }
          [value, rangeErr] = parseTzOffset(std.code, value, f);
          break;
        case 'NumTZ':
        case 'NumShortTZ':
        case 'NumColonTZ':
        case 'NumSecondsTz':
        case 'NumColonSecondsTZ':
          [value, rangeErr] = parseTzOffset(std.code, value, f);
          break;
        case 'TZ': {
          if (value.startsWith('UTC')) {
            f.utc = true;
            value = value.slice(3);
            break;
          }
          const n = parseTimeZone(value);
          if (n === 0) throw new Bad();
          f.zoneName = value.slice(0, n);
          value = value.slice(n);
          break;
        }
        case 'fracSecond0': {
          const nd = 1 + (std.digits ?? 0);
          if (value.length < nd) throw new Bad();
          f.nsec = parseNanoseconds(value, nd);
          if (f.nsec < 0) rangeErr = 'fractional second';
          value = value.slice(nd);
          break;
        }
        case 'fracSecond9': {
          if (value.length < 2 || !isSep(value[0]) || !isDigit(value, 1)) break;
          let i = 0;
          while (i + 1 < value.length && isDigit(value, i + 1)) i++;
          f.nsec = parseNanoseconds(value, 1 + i);
          value = value.slice(1 + i);
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      throw parseError(aLayout, aValue, stdStr, hold);
    }
    if (rangeErr !== undefined) throw parseError(aLayout, aValue, stdStr, value, `: ${rangeErr} out of range`);
  }
  return finish(f, aValue);
}

function finish(f: Fields, aValue: string): bigint {
  const fail = (msg: string): BuiltinError => new BuiltinError(`parsing time ${goQuote(aValue)}${msg}`);
  if (f.pm && f.hour < 12) f.hour += 12;
  else if (f.am && f.hour === 12) f.hour = 0;

  if (f.yday >= 0) {
    let yday = f.yday;
    let m = 0;
    let d = 0;
    if (isLeap(f.year)) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) {
        yday--;
      }
    }
    if (yday < 1 || yday > 365) throw fail(': day-of-year out of range');
    if (m === 0) {
      m = Math.floor((yday - 1) / 31) + 1;
      if (daysBeforeMonth(m + 1) < yday) m++;
      d = yday - daysBeforeMonth(m);
    }
    if (f.month >= 0 && f.month !== m) throw fail(': day-of-year does not match month');
    f.month = m;
    if (f.day >= 0 && f.day !== d) throw fail(': day-of-year does not match day');
    f.day = d;
  } else {
    if (f.month < 0) f.month = 1;
    if (f.day < 0) f.day = 1;
  }
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) throw fail(': day out of range');

  let unix = unixFromCivil(
    BigInt(f.year),
    BigInt(f.month),
    BigInt(f.day),
    BigInt(f.hour),
    BigInt(f.min),
    BigInt(f.sec),
  );
  if (!f.utc) {
    if (f.zoneOffset !== undefined) {
      unix -= BigInt(f.zoneOffset);
    } else if (f.zoneName.length > 3 && f.zoneName.startsWith('GMT')) {
      // An unknown abbreviation gets offset 0, except "GMT+h" whose hours Go honours.
      unix -= BigInt(atoi(f.zoneName.slice(3)) * 3600);
    }
  }
  return unix * NS_PER_SEC + BigInt(f.nsec);
}
