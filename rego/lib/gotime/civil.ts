/**
 * Proleptic Gregorian calendar arithmetic in the manner of Go's `time` package: instants are exact
 * bigint nanoseconds since the Unix epoch, civil fields are derived for a given UTC offset.
 */

export const NS_PER_SEC = 1_000_000_000n;
export const SECS_PER_DAY = 86_400;

/** Go's time.Unix(0, math.MinInt64) and time.Unix(0, math.MaxInt64): the range OPA accepts. */
export const MIN_NS = -(1n << 63n);
export const MAX_NS = (1n << 63n) - 1n;

export const LONG_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
export const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** Civil fields of an instant as seen at some UTC offset. */
export interface Civil {
  year: number;
  /** 1-12 */
  month: number;
  /** 1-31 */
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanosecond: number;
  /** 0 = Sunday, as Go's time.Weekday */
  weekday: number;
  /** 1-366 */
  yearDay: number;
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

export function floorMod(a: bigint, b: bigint): bigint {
  return a - floorDiv(a, b) * b;
}

export function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** Days in `month` (1-12) of `year`. */
export function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return DAYS_BEFORE[month]! - DAYS_BEFORE[month - 1]!;
}

/** Days before the first of `month` (1-12) in a non-leap year. */
export function daysBeforeMonth(month: number): number {
  return DAYS_BEFORE[month - 1]!;
}

/**
 * Days since 1970-01-01 of a civil date. Month and day may be out of range and are normalised the
 * way Go's time.Date does (month 13 is January of the next year, day 0 the last of the previous month).
 */
export function daysFromCivil(year: bigint, month: bigint, day: bigint): bigint {
  // Normalise the month into [1, 12], carrying into the year.
  const m0 = month - 1n;
  let y = year + floorDiv(m0, 12n);
  const m = Number(floorMod(m0, 12n)) + 1;
  // Howard Hinnant's days_from_civil, linear in the day so out-of-range days just work.
  if (m <= 2) y -= 1n;
  const era = floorDiv(y, 400n);
  const yoe = y - era * 400n;
  const mp = BigInt(m > 2 ? m - 3 : m + 9);
  const doy = (153n * mp + 2n) / 5n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n + (day - 1n);
}

/** Civil date of a day number (days since 1970-01-01). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** Splits bigint ns into floor seconds and a non-negative nanosecond remainder. */
export function splitNs(ns: bigint): { sec: bigint; nsec: number } {
  const sec = floorDiv(ns, NS_PER_SEC);
  return { sec, nsec: Number(ns - sec * NS_PER_SEC) };
}

/** Civil fields of `ns` at a fixed UTC offset (seconds east of UTC). */
export function civilAt(ns: bigint, offsetSec: number): Civil {
  const { sec, nsec } = splitNs(ns);
  const local = sec + BigInt(offsetSec);
  const days = floorDiv(local, BigInt(SECS_PER_DAY));
  const secOfDay = Number(local - days * BigInt(SECS_PER_DAY));
  const d = Number(days);
  const { year, month, day } = civilFromDays(d);
  let yearDay = daysBeforeMonth(month) + day;
  if (month > 2 && isLeap(year)) yearDay++;
  return {
    year,
    month,
    day,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor((secOfDay % 3600) / 60),
    second: secOfDay % 60,
    nanosecond: nsec,
    // 1970-01-01 was a Thursday.
    weekday: (((d + 4) % 7) + 7) % 7,
    yearDay,
  };
}

/** Unix seconds of civil fields read as UTC (fields normalised as Go's time.Date does). */
export function unixFromCivil(
  year: bigint,
  month: bigint,
  day: bigint,
  hour: bigint,
  minute: bigint,
  second: bigint,
): bigint {
  return daysFromCivil(year, month, day) * BigInt(SECS_PER_DAY) + hour * 3600n + minute * 60n + second;
}
