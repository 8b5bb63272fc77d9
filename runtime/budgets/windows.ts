/**
 * Budget windows: which ledger bucket a charge goes to and which buckets count towards a limit at an instant.
 * Calendar windows follow the wall clock of an IANA zone (an organisation's "month" is its own); rolling windows
 * are whole UTC hours. Pure: the zone rules come from the ICU data that ships with Node.
 */

import { MAX_ROLLING_HOURS } from '../../api/budget.js';

const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export type CalendarPeriod = 'day' | 'week' | 'month';

export type BudgetWindow =
  /** The calendar day, ISO week (from Monday) or month, starting at local midnight in `timeZone` (IANA). */
  | { period: CalendarPeriod; timeZone: string }
  /** Rolling: the current UTC hour and the `hours - 1` before it (1..8760). */
  | { hours: number };

export interface WindowSpan {
  /** The ledger bucket a charge made now goes to: the calendar window's start, or the start of the UTC hour. */
  readonly bucket: Date;
  /** The earliest bucket that still counts now: `bucket` for calendar windows, `bucket - (hours - 1)h` when rolling. */
  readonly from: Date;
  /**
   * The next instant the window's sum can drop. Calendar: the next window's start (local midnight of the next
   * day, Monday or 1st). Rolling: `bucket + 1h`, when the bucket at `from` falls out and a fresh one begins.
   */
  readonly resetsAt: Date;
}

const CALENDAR_PERIODS: ReadonlySet<string> = new Set<CalendarPeriod>(['day', 'week', 'month']);
const MAX_CACHED = 1000;

// Building a DateTimeFormat costs far more than using one, so there is one per zone.
const formatters = new Map<string, Intl.DateTimeFormat>();
// The span last computed per window: it stays right until `resetsAt`, so most calls take no Intl call at all.
const spans = new Map<string, WindowSpan>();

/**
 * The span of `window` that contains `now`. Throws an Error for an unknown zone, an unknown period, an hour count
 * outside 1..8760 or an invalid `now`.
 *
 * NB: spans are cached and shared between callers (frozen, but a Date inside can still be set): never mutate one.
 */
export function windowSpan(window: BudgetWindow, now: Date): WindowSpan {
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new Error('budget window: now is an invalid Date');
  const key = 'hours' in window ? `h${window.hours}` : `${window.period} ${window.timeZone}`;
  const last = spans.get(key);
  if (last && last.bucket.getTime() <= nowMs && nowMs < last.resetsAt.getTime()) return last;
  const span = 'hours' in window ? rollingSpan(window.hours, nowMs) : calendarSpan(window, nowMs);
  if (spans.size >= MAX_CACHED) spans.clear();
  spans.set(key, span);
  return span;
}

function rollingSpan(hours: number, nowMs: number): WindowSpan {
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_ROLLING_HOURS) {
    throw new Error(`budget window: hours must be an integer from 1 to ${MAX_ROLLING_HOURS}, got ${hours}`);
  }
  const bucket = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  return span(bucket, bucket - (hours - 1) * HOUR_MS, bucket + HOUR_MS);
}

function calendarSpan(window: { period: CalendarPeriod; timeZone: string }, nowMs: number): WindowSpan {
  const { period, timeZone } = window;
  if (!CALENDAR_PERIODS.has(period)) {
    throw new Error(`budget window: period must be day, week or month, got '${String(period)}'`);
  }
  const fmt = formatterFor(timeZone);
  // Dates below are local midnights written as if they were UTC ("wall" times), turned into instants at the end.
  const wall = wallClock(fmt, nowMs);
  let startWall = periodStart(period, wall - mod(wall, DAY_MS));
  let nextWall = periodAfter(period, startWall);
  let start = firstInstantOf(fmt, startWall);
  let end = firstInstantOf(fmt, nextWall);
  // NB: where clocks fall back across midnight the previous date comes round again; the window that has begun
  // keeps running rather than handing back to the one it replaced.
  while (end <= nowMs) {
    start = end;
    startWall = nextWall;
    nextWall = periodAfter(period, startWall);
    end = firstInstantOf(fmt, nextWall);
  }
  return span(start, start, end);
}

function span(bucketMs: number, fromMs: number, resetsAtMs: number): WindowSpan {
  const bucket = new Date(bucketMs);
  return Object.freeze({
    bucket,
    from: fromMs === bucketMs ? bucket : new Date(fromMs),
    resetsAt: new Date(resetsAtMs),
  });
}

function periodStart(period: CalendarPeriod, dayWall: number): number {
  if (period === 'day') return dayWall;
  if (period === 'week') {
    // Day 0 of the epoch was a Thursday, three days after the Monday that starts its ISO week.
    return dayWall - mod(dayWall / DAY_MS + 3, 7) * DAY_MS;
  }
  const d = new Date(dayWall);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

function periodAfter(period: CalendarPeriod, startWall: number): number {
  if (period === 'day') return startWall + DAY_MS;
  if (period === 'week') return startWall + 7 * DAY_MS;
  const d = new Date(startWall);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * The first instant whose wall clock reads `wall` or later. Usually the one instant where it reads exactly
 * `wall`; in a fall-back overlap the earlier of two; in a spring-forward gap (America/Santiago jumps from 00:00
 * to 01:00) the transition itself, the first moment of the local date that exists.
 */
function firstInstantOf(fmt: Intl.DateTimeFormat, wall: number): number {
  // UTC offsets lie within -12h..+14h, so the instant is within 14h of `wall`: probing both ends and the middle
  // sees the offsets in force before and after any transition near it.
  let minOffset = Infinity;
  let maxOffset = -Infinity;
  let first = Infinity;
  for (const probe of [wall - 14 * HOUR_MS, wall, wall + 14 * HOUR_MS]) {
    const offset = offsetAt(fmt, probe);
    minOffset = Math.min(minOffset, offset);
    maxOffset = Math.max(maxOffset, offset);
    const instant = wall - offset;
    if (instant < first && offsetAt(fmt, instant) === offset) first = instant;
  }
  if (first !== Infinity) return first;
  // A gap: the wall clock reads before `wall` at `lo` and after it at `hi`; find the jump to the second.
  let lo = wall - maxOffset;
  let hi = wall - minOffset;
  while (hi - lo > SECOND_MS) {
    const mid = lo + Math.floor((hi - lo) / (2 * SECOND_MS)) * SECOND_MS;
    if (wallClock(fmt, mid) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Milliseconds east of UTC at the instant (whole seconds: Intl gives no finer wall clock). */
function offsetAt(fmt: Intl.DateTimeFormat, instantMs: number): number {
  const second = Math.floor(instantMs / SECOND_MS) * SECOND_MS;
  return wallClock(fmt, second) - second;
}

/** The zone's wall clock at the instant, to the second, written as a UTC timestamp. */
function wallClock(fmt: Intl.DateTimeFormat, instantMs: number): number {
  let year = 1970;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of fmt.formatToParts(instantMs)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
    else if (part.type === 'second') second = Number(part.value);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

function formatterFor(zone: string): Intl.DateTimeFormat {
  const known = formatters.get(zone);
  if (known) return known;
  // NB: Intl takes an absent or empty zone as the host's own; a budget must never depend on the host.
  if (typeof zone !== 'string' || zone === '') throw new Error(`budget window: unknown time zone '${String(zone)}'`);
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      // NB: h23, not hour12: false, which prints midnight as 24 in some ICU versions.
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch (err) {
    throw new Error(`budget window: unknown time zone '${zone}'`, { cause: err });
  }
  if (formatters.size >= MAX_CACHED) formatters.clear();
  formatters.set(zone, fmt);
  return fmt;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
