import { describe, expect, it } from 'vitest';
import { NAMED_LAYOUTS, TimeError, UTC, addDate, formatTime, loadLocation, parseDuration, parseTime } from './index.js';

// Expected values are Go's for the same calls (time.Parse, Time.Format, time.ParseDuration).
describe('parseTime', () => {
  it.each([
    {
      name: 'reads RFC 3339 with an offset',
      layout: NAMED_LAYOUTS.RFC3339!,
      value: '2017-06-02T19:00:00-07:00',
      want: 1496455200000000000n,
    },
    {
      name: 'reads a 12-hour clock',
      layout: '3:04PM 2006-01-02',
      value: '7:00PM 2017-06-02',
      want: 1496430000000000000n,
    },
    {
      name: 'reads a fraction the layout does not name',
      layout: '15:04:05 2006-01-02',
      value: '00:00:01.5 1970-01-01',
      want: 1500000000n,
    },
  ])('$name', ({ layout, value, want }) => {
    expect(parseTime(layout, value)).toBe(want);
  });

  it.each([
    { value: 'x', message: 'parsing time "x" as "2006-01-02": cannot parse "x" as "2006"' },
    { value: '2020-02-30', message: 'parsing time "2020-02-30": day out of range' },
    { value: '2020-01-01 ', message: 'parsing time "2020-01-01 ": extra text: " "' },
  ])('rejects $value with Go’s message', ({ value, message }) => {
    expect(() => parseTime('2006-01-02', value)).toThrow(TimeError);
    expect(() => parseTime('2006-01-02', value)).toThrow(message);
  });
});

describe('formatTime', () => {
  it('formats in a zone with its abbreviation', () => {
    const ns = 1496455200000000000n;
    expect(formatTime(ns, UTC, NAMED_LAYOUTS.RFC3339!)).toBe('2017-06-03T02:00:00Z');
    expect(formatTime(ns, loadLocation('America/New_York'), 'Jan 2 15:04 MST')).toBe('Jun 2 22:00 EDT');
  });

  it('adds calendar months with Go’s normalisation', () => {
    const jan31 = parseTime('2006-01-02', '2021-01-31');
    expect(formatTime(addDate(jan31, UTC, 0, 1, 0), UTC, '2006-01-02')).toBe('2021-03-03');
  });
});

describe('parseDuration and loadLocation', () => {
  it('reads Go durations and OPA’s day unit', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000_000_000n);
    expect(parseDuration('-1.5s')).toBe(-1_500_000_000n);
    expect(parseDuration('1d')).toBe(86_400_000_000_000n);
  });

  it('reports bad durations and zones with Go’s text', () => {
    expect(() => parseDuration('1')).toThrow('time: missing unit in duration "1"');
    expect(() => loadLocation('Nowhere/City')).toThrow(new TimeError('unknown time zone Nowhere/City'));
  });
});
