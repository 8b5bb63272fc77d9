import { describe, expect, it } from 'vitest';
import { isValidTimeZone } from '../../api/budget.js';
import { windowSpan, type BudgetWindow, type CalendarPeriod } from './windows.js';

const HOUR_MS = 3_600_000;

function spanAt(window: BudgetWindow, now: string) {
  const span = windowSpan(window, new Date(now));
  return { bucket: span.bucket.toISOString(), from: span.from.toISOString(), resetsAt: span.resetsAt.toISOString() };
}

interface CalendarCase {
  name: string;
  period: CalendarPeriod;
  timeZone: string;
  now: string;
  bucket: string;
  resetsAt: string;
}

function calendarCases(cases: CalendarCase[]) {
  it.each(cases)('$name', ({ period, timeZone, now, bucket, resetsAt }) => {
    expect(spanAt({ period, timeZone }, now)).toEqual({ bucket, from: bucket, resetsAt });
  });
}

describe('windowSpan, monthly', () => {
  calendarCases([
    {
      name: 'keeps the Lisbon July window until local midnight on the 1st (UTC+1 in summer)',
      period: 'month',
      timeZone: 'Europe/Lisbon',
      now: '2026-07-31T22:59:59.999Z',
      bucket: '2026-06-30T23:00:00.000Z',
      resetsAt: '2026-07-31T23:00:00.000Z',
    },
    {
      name: 'starts the Lisbon August window at local midnight',
      period: 'month',
      timeZone: 'Europe/Lisbon',
      now: '2026-07-31T23:00:00.000Z',
      bucket: '2026-07-31T23:00:00.000Z',
      resetsAt: '2026-08-31T23:00:00.000Z',
    },
    {
      name: 'follows UTC in a Lisbon winter month',
      period: 'month',
      timeZone: 'Europe/Lisbon',
      now: '2026-01-15T12:00:00.000Z',
      bucket: '2026-01-01T00:00:00.000Z',
      resetsAt: '2026-02-01T00:00:00.000Z',
    },
    {
      name: 'starts a Lisbon March in winter time and ends it in summer time',
      period: 'month',
      timeZone: 'Europe/Lisbon',
      now: '2026-03-30T10:00:00.000Z',
      bucket: '2026-03-01T00:00:00.000Z',
      resetsAt: '2026-03-31T23:00:00.000Z',
    },
    {
      name: 'starts a Lisbon October in summer time and ends it in winter time',
      period: 'month',
      timeZone: 'Europe/Lisbon',
      now: '2026-10-01T00:00:00.000Z',
      bucket: '2026-09-30T23:00:00.000Z',
      resetsAt: '2026-11-01T00:00:00.000Z',
    },
    {
      name: 'counts the last day of a UTC month in that month',
      period: 'month',
      timeZone: 'UTC',
      now: '2026-02-28T23:59:59.999Z',
      bucket: '2026-02-01T00:00:00.000Z',
      resetsAt: '2026-03-01T00:00:00.000Z',
    },
    {
      name: 'rolls a UTC December into the next year',
      period: 'month',
      timeZone: 'UTC',
      now: '2026-12-31T12:00:00.000Z',
      bucket: '2026-12-01T00:00:00.000Z',
      resetsAt: '2027-01-01T00:00:00.000Z',
    },
    {
      name: 'puts an instant still in the previous UTC day into the next local month east of UTC',
      period: 'month',
      timeZone: 'Asia/Kolkata',
      now: '2026-04-30T19:00:00.000Z',
      bucket: '2026-04-30T18:30:00.000Z',
      resetsAt: '2026-05-31T18:30:00.000Z',
    },
    {
      name: 'ends a São Paulo month (2018) in summer time, begun in standard time',
      period: 'month',
      timeZone: 'America/Sao_Paulo',
      now: '2018-11-20T12:00:00.000Z',
      bucket: '2018-11-01T03:00:00.000Z',
      resetsAt: '2018-12-01T02:00:00.000Z',
    },
  ]);
});

describe('windowSpan, daily', () => {
  calendarCases([
    {
      name: 'makes the Lisbon spring-forward day 23 hours long',
      period: 'day',
      timeZone: 'Europe/Lisbon',
      now: '2026-03-29T12:00:00.000Z',
      bucket: '2026-03-29T00:00:00.000Z',
      resetsAt: '2026-03-29T23:00:00.000Z',
    },
    {
      name: 'makes the Lisbon fall-back day 25 hours long',
      period: 'day',
      timeZone: 'Europe/Lisbon',
      now: '2026-10-25T12:00:00.000Z',
      bucket: '2026-10-24T23:00:00.000Z',
      resetsAt: '2026-10-26T00:00:00.000Z',
    },
    {
      name: 'changes New York days at local midnight around the March change at 02:00',
      period: 'day',
      timeZone: 'America/New_York',
      now: '2026-03-08T12:00:00.000Z',
      bucket: '2026-03-08T05:00:00.000Z',
      resetsAt: '2026-03-09T04:00:00.000Z',
    },
    {
      name: 'ends the day before a Santiago gap at the gap',
      period: 'day',
      timeZone: 'America/Santiago',
      now: '2025-09-07T03:59:59.999Z',
      bucket: '2025-09-06T04:00:00.000Z',
      resetsAt: '2025-09-07T04:00:00.000Z',
    },
    {
      name: 'starts a Santiago day whose midnight does not exist at 01:00 local',
      period: 'day',
      timeZone: 'America/Santiago',
      now: '2025-09-07T04:00:00.000Z',
      bucket: '2025-09-07T04:00:00.000Z',
      resetsAt: '2025-09-08T03:00:00.000Z',
    },
    {
      name: 'keeps a Santiago day through the repeated hour 23:00 when clocks fall back at midnight',
      period: 'day',
      timeZone: 'America/Santiago',
      now: '2025-04-06T03:30:00.000Z',
      bucket: '2025-04-05T03:00:00.000Z',
      resetsAt: '2025-04-06T04:00:00.000Z',
    },
    {
      name: 'keeps a Goose Bay day (2010) running when clocks fall back from 00:01 to the day before',
      period: 'day',
      timeZone: 'America/Goose_Bay',
      now: '2010-11-07T03:30:00.000Z',
      bucket: '2010-11-07T03:00:00.000Z',
      resetsAt: '2010-11-08T04:00:00.000Z',
    },
    {
      name: 'starts a São Paulo day (2018) whose midnight does not exist at 01:00 local',
      period: 'day',
      timeZone: 'America/Sao_Paulo',
      now: '2018-11-04T12:00:00.000Z',
      bucket: '2018-11-04T03:00:00.000Z',
      resetsAt: '2018-11-05T02:00:00.000Z',
    },
    {
      name: 'changes Tokyo days at 15:00 UTC',
      period: 'day',
      timeZone: 'Asia/Tokyo',
      now: '2026-05-10T16:00:00.000Z',
      bucket: '2026-05-10T15:00:00.000Z',
      resetsAt: '2026-05-11T15:00:00.000Z',
    },
    {
      name: 'accepts zone aliases and any letter case',
      period: 'day',
      timeZone: 'europe/lisbon',
      now: '2026-07-01T12:00:00.000Z',
      bucket: '2026-06-30T23:00:00.000Z',
      resetsAt: '2026-07-01T23:00:00.000Z',
    },
  ]);
});

describe('windowSpan, weekly', () => {
  calendarCases([
    {
      name: 'starts a UTC week on Monday even across a new year',
      period: 'week',
      timeZone: 'UTC',
      now: '2026-01-01T08:00:00.000Z',
      bucket: '2025-12-29T00:00:00.000Z',
      resetsAt: '2026-01-05T00:00:00.000Z',
    },
    {
      name: 'counts Monday 00:00 in the week it starts',
      period: 'week',
      timeZone: 'UTC',
      now: '2026-01-05T00:00:00.000Z',
      bucket: '2026-01-05T00:00:00.000Z',
      resetsAt: '2026-01-12T00:00:00.000Z',
    },
    {
      name: 'counts Sunday in the week begun the Monday before',
      period: 'week',
      timeZone: 'UTC',
      now: '2026-01-04T23:59:59.999Z',
      bucket: '2025-12-29T00:00:00.000Z',
      resetsAt: '2026-01-05T00:00:00.000Z',
    },
    {
      name: 'ends a Lisbon week holding the spring change at Monday 00:00 summer time',
      period: 'week',
      timeZone: 'Europe/Lisbon',
      now: '2026-03-29T22:59:59.999Z',
      bucket: '2026-03-23T00:00:00.000Z',
      resetsAt: '2026-03-29T23:00:00.000Z',
    },
    {
      name: 'starts the next Lisbon week on Sunday 23:00 UTC',
      period: 'week',
      timeZone: 'Europe/Lisbon',
      now: '2026-03-29T23:00:00.000Z',
      bucket: '2026-03-29T23:00:00.000Z',
      resetsAt: '2026-04-05T23:00:00.000Z',
    },
    {
      name: 'puts a Los Angeles Sunday evening, Monday in UTC, in the local week',
      period: 'week',
      timeZone: 'America/Los_Angeles',
      now: '2026-06-15T03:00:00.000Z',
      bucket: '2026-06-08T07:00:00.000Z',
      resetsAt: '2026-06-15T07:00:00.000Z',
    },
  ]);
});

describe('windowSpan, rolling', () => {
  it.each([
    {
      name: 'counts the current hour and the 23 before it',
      hours: 24,
      now: '2026-05-10T12:34:56.789Z',
      span: {
        bucket: '2026-05-10T12:00:00.000Z',
        from: '2026-05-09T13:00:00.000Z',
        resetsAt: '2026-05-10T13:00:00.000Z',
      },
    },
    {
      name: 'counts only the current hour for a one-hour window',
      hours: 1,
      now: '2026-05-10T12:00:00.000Z',
      span: {
        bucket: '2026-05-10T12:00:00.000Z',
        from: '2026-05-10T12:00:00.000Z',
        resetsAt: '2026-05-10T13:00:00.000Z',
      },
    },
    {
      name: 'aligns a year-long window to UTC hours',
      hours: 8760,
      now: '2026-05-10T12:59:59.999Z',
      span: {
        bucket: '2026-05-10T12:00:00.000Z',
        from: '2025-05-10T13:00:00.000Z',
        resetsAt: '2026-05-10T13:00:00.000Z',
      },
    },
  ])('$name', ({ hours, now, span }) => {
    expect(spanAt({ hours }, now)).toEqual(span);
  });

  it.each([0, -1, 1.5, 8761, Number.NaN])('refuses %s hours', (hours) => {
    expect(() => windowSpan({ hours }, new Date())).toThrow(/hours must be an integer from 1 to 8760/);
  });
});

describe('windowSpan, errors and caching', () => {
  it.each(['Mars/Olympus', '', 'Europe/Lisbon/x'])('calls %j no time zone', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });

  it.each(['UTC', 'Europe/Lisbon', 'America/Santiago', 'US/Eastern', 'Etc/GMT+3'])('knows the zone %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });

  it('names the zone it does not know', () => {
    expect(() => windowSpan({ period: 'day', timeZone: 'Mars/Olympus' }, new Date())).toThrow(
      "unknown time zone 'Mars/Olympus'",
    );
  });

  it('names a period it does not know', () => {
    const window = { period: 'year', timeZone: 'UTC' } as unknown as BudgetWindow;
    expect(() => windowSpan(window, new Date())).toThrow("period must be day, week or month, got 'year'");
  });

  it('refuses an invalid Date', () => {
    expect(() => windowSpan({ hours: 1 }, new Date(Number.NaN))).toThrow('now is an invalid Date');
  });

  it('returns the same span while now stays inside it, and a new one after it resets', () => {
    const window = { period: 'day', timeZone: 'Europe/Berlin' } as const;
    const first = windowSpan(window, new Date('2026-05-10T08:00:00Z'));
    expect(windowSpan(window, new Date('2026-05-10T21:59:59.999Z'))).toBe(first);
    const next = windowSpan(window, new Date('2026-05-10T22:00:00Z'));
    expect(next).not.toBe(first);
    expect(next.bucket.getTime()).toBe(first.resetsAt.getTime());
    expect(Object.isFrozen(next)).toBe(true);
  });

  it('does not serve a cached span to an instant before it', () => {
    const window = { period: 'month', timeZone: 'UTC' } as const;
    windowSpan(window, new Date('2026-05-10T00:00:00Z'));
    expect(spanAt(window, '2026-04-30T23:59:59.999Z').bucket).toBe('2026-04-01T00:00:00.000Z');
  });
});

describe('windowSpan, a year of instants', () => {
  // Zones with DST gaps and overlaps at midnight, a fall-back across midnight (Goose Bay, 2010), half-hour
  // offsets and half-hour DST (Lord Howe).
  const zones = [
    { timeZone: 'America/Santiago', year: 2025 },
    { timeZone: 'America/Sao_Paulo', year: 2018 },
    { timeZone: 'America/Goose_Bay', year: 2010 },
    { timeZone: 'Europe/Lisbon', year: 2026 },
    { timeZone: 'Australia/Lord_Howe', year: 2026 },
    { timeZone: 'Pacific/Chatham', year: 2026 },
    { timeZone: 'Asia/Kolkata', year: 2026 },
  ];
  const lengthsHours = { day: [22, 26], week: [166, 170], month: [28 * 24 - 2, 31 * 24 + 2] } as const;

  it.each(zones.flatMap((z) => (['day', 'week', 'month'] as const).map((period) => ({ ...z, period }))))(
    'tiles $year in $timeZone with $period windows that hold every instant',
    ({ timeZone, year, period }) => {
      const window = { period, timeZone };
      const [minHours, maxHours] = lengthsHours[period];
      const faults: string[] = [];
      let previous = windowSpan(window, new Date(Date.UTC(year, 0, 1)));
      for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += HOUR_MS / 4) {
        const span = windowSpan(window, new Date(t));
        const start = span.bucket.getTime();
        const end = span.resetsAt.getTime();
        const hours = (end - start) / HOUR_MS;
        const at = new Date(t).toISOString();
        if (start > t || end <= t) faults.push(`${at} outside its span`);
        if (span !== previous && start !== previous.resetsAt.getTime()) faults.push(`${at} leaves a hole or overlap`);
        if (hours < minHours || hours > maxHours) faults.push(`${at} in a span of ${hours} hours`);
        previous = span;
      }
      expect(faults).toEqual([]);
    },
  );
});
