/**
 * Go's time.Parse(layout, value) with Go's error texts ("parsing time ... as ...: cannot parse ...").
 * Parsing runs with Local = UTC, so zone abbreviations other than UTC get offset 0 unless they are
 * "GMT+h", exactly as Go does on a UTC host.
 */
import { TimeError } from './errors.js';
import { NS_PER_SEC, daysBeforeMonth, daysIn, isLeap, unixFromCivil } from './civil.js';
import { nextStdChunk } from './layout.js';
import { Bad, atoi, goQuote, skip, type Fields } from './parse-lex.js';
import { parseElement, type Step } from './parse-elem.js';

function parseError(layout: string, value: string, elem: string, valueElem: string, message = ''): TimeError {
  if (message !== '') return new TimeError(`parsing time ${goQuote(value)}${message}`);
  return new TimeError(
    `parsing time ${goQuote(value)} as ${goQuote(layout)}: cannot parse ${goQuote(valueElem)} as ${goQuote(elem)}`,
  );
}

/**
 * Parses `value` by Go `layout`; returns Unix nanoseconds. Throws TimeError with Go's message.
 */
export function parseTime(layout: string, value: string): bigint {
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
  let rest = value;
  for (let l = layout; ;) {
    const { prefix, std, suffix } = nextStdChunk(l);
    const stdStr = l.slice(prefix.length, l.length - suffix.length);
    try {
      rest = skip(rest, prefix);
    } catch {
      throw parseError(layout, value, prefix, rest);
    }
    if (!std) {
      if (rest.length !== 0) throw parseError(layout, value, '', rest, `: extra text: ${goQuote(rest)}`);
      break;
    }
    l = suffix;
    let step: Step;
    try {
      step = parseElement(std, rest, f, l);
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      throw parseError(layout, value, stdStr, rest);
    }
    const rangeErr = step[1];
    rest = step[0];
    if (rangeErr !== undefined) throw parseError(layout, value, stdStr, rest, `: ${rangeErr} out of range`);
  }
  return finish(f, value);
}

function finish(f: Fields, aValue: string): bigint {
  const fail = (msg: string): TimeError => new TimeError(`parsing time ${goQuote(aValue)}${msg}`);
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
