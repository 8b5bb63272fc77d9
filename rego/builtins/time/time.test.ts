import { describe, expect, it } from 'vitest';
import { BuiltinError, OperandError } from '../../errors.js';
import type { Value } from '../../value.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';
import { register } from './time.js';

const registry = new BuiltinRegistry();
register(registry);

const NOW = 1_700_000_000_123_456_789n;
const ctx: BuiltinContext = {
  strict: true,
  nowNs: () => NOW,
  cache: new Map(),
  checkDeadline: () => {},
  charge: () => {},
};

function call(name: string, ...args: Value[]): Value | undefined {
  const b = registry.get(name);
  if (!b) throw new Error(`no builtin ${name}`);
  return b.impl(args, ctx);
}

function fails(name: string, ...args: Value[]): Error {
  try {
    call(name, ...args);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`${name} did not fail`);
}

const RFC3339 = '2006-01-02T15:04:05Z07:00';

describe('time.parse_ns', () => {
  it.each([
    {
      name: 'parses RFC 3339 with a negative offset',
      layout: RFC3339,
      value: '2017-06-02T19:00:00-07:00',
      want: 1496455200000000000n,
    },
    {
      name: 'parses the smallest int64 instant',
      layout: RFC3339,
      value: '1677-09-21T00:12:43.145224192-00:00',
      want: -(1n << 63n),
    },
    {
      name: 'parses the largest int64 instant',
      layout: RFC3339,
      value: '2262-04-11T23:47:16.854775807-00:00',
      want: (1n << 63n) - 1n,
    },
    {
      name: 'parses 12-hour clocks, two-digit years and literal text',
      layout: "01/02 03:04:05PM '06 -0700",
      value: "06/02 07:00:00PM '17 -0700",
      want: 1496455200000000000n,
    },
    {
      name: 'accepts named layouts such as RFC822Z',
      layout: 'RFC822Z',
      value: '02 Jun 17 19:00 -0700',
      want: 1496455200000000000n,
    },
    {
      name: 'reads space-padded days and ignores the weekday',
      layout: 'ANSIC',
      value: 'Mon Jan  2 15:04:05 2006',
      want: 1136214245000000000n,
    },
    {
      name: 'honours GMT+h abbreviations',
      layout: 'Jan 2 15:04 MST 2006',
      value: 'Jan 2 15:04 GMT+2 2006',
      want: 1136207040000000000n,
    },
    {
      name: 'gives unknown abbreviations offset zero',
      layout: 'Jan 2 15:04 MST 2006',
      value: 'Jan 2 15:04 PST 2006',
      want: 1136214240000000000n,
    },
    {
      name: 'reads fixed-width fractions',
      layout: '2006-01-02 15:04:05.000',
      value: '2020-01-01 00:00:00.123',
      want: 1577836800123000000n,
    },
    {
      name: 'reads comma fractions',
      layout: '2006-01-02 15:04:05,999',
      value: '2020-01-01 00:00:00,5',
      want: 1577836800500000000,
    },
    { name: 'reads day-of-year', layout: '2006 002', value: '2020 060', want: 1582934400000000000n },
    { name: 'defaults month and day to January 1st', layout: '2006', value: '2024', want: 1704067200000000000n },
  ])('$name', ({ layout, value, want }) => {
    expect(BigInt(call('time.parse_ns', layout, value) as number)).toBe(BigInt(want));
  });

  it.each([
    {
      name: 'rejects instants before 1677',
      value: '1677-09-21T00:12:43.145224191-00:00',
      msg: 'time outside of valid range',
    },
    {
      name: 'rejects instants after 2262',
      value: '2262-04-11T23:47:16.854775808-00:00',
      msg: 'time outside of valid range',
    },
    {
      name: 'names the element that does not match',
      value: 'garbage',
      msg: 'parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"',
    },
    {
      name: 'reports trailing text',
      value: '2020-01-01T00:00:00Zx',
      msg: 'parsing time "2020-01-01T00:00:00Zx": extra text: "x"',
    },
    {
      name: 'reports out-of-range months',
      value: '2020-13-01T00:00:00Z',
      msg: 'parsing time "2020-13-01T00:00:00Z": month out of range',
    },
    {
      name: 'reports impossible days',
      value: '2021-02-29T00:00:00Z',
      msg: 'parsing time "2021-02-29T00:00:00Z": day out of range',
    },
  ])('$name', ({ value, msg }) => {
    const e = fails('time.parse_ns', RFC3339, value);
    expect(e).toBeInstanceOf(BuiltinError);
    expect(e.message).toBe(msg);
  });

  it('parses RFC 3339 through time.parse_rfc3339_ns', () => {
    expect(call('time.parse_rfc3339_ns', '1970-01-01T00:00:00-00:00')).toBe(0);
    expect(BigInt(call('time.parse_rfc3339_ns', '2017-06-02T19:00:00-07:00') as bigint)).toBe(1496455200000000000n);
  });
});

describe('time.parse_duration_ns', () => {
  it.each([
    { name: 'milliseconds', text: '100ms', want: 100_000_000 },
    { name: 'nanoseconds', text: '100ns', want: 100 },
    { name: 'micro sign', text: '3\u00b5s', want: 3000 },
    { name: 'fractions of hours', text: '1.5h', want: 5_400_000_000_000 },
    { name: 'signed compound durations', text: '-1h30m', want: -5_400_000_000_000 },
    { name: "OPA's days", text: '1d2h', want: 93_600_000_000_000 },
    { name: "OPA's weeks", text: '1w', want: 604_800_000_000_000 },
    { name: "OPA's 365-day years", text: '1y', want: 31_536_000_000_000_000n },
    { name: 'a bare zero', text: '0', want: 0 },
  ])('parses $name', ({ text, want }) => {
    expect(BigInt(call('time.parse_duration_ns', text) as number)).toBe(BigInt(want));
  });

  it.each([
    { text: '', msg: 'time: invalid duration ""' },
    { text: '1', msg: 'time: missing unit in duration "1"' },
    { text: '1x', msg: 'time: unknown unit "x" in duration "1x"' },
    { text: '.s', msg: 'time: invalid duration ".s"' },
    { text: '9223372036854775808ns', msg: 'time: invalid duration "9223372036854775808ns"' },
  ])('rejects "$text" with Go\'s message', ({ text, msg }) => {
    expect(fails('time.parse_duration_ns', text).message).toBe(msg);
  });
});

describe('calendar fields', () => {
  it.each([
    { name: 'date in UTC', fn: 'time.date', arg: 1517814000000000000, want: [2018, 2, 5] },
    {
      name: 'date in Los Angeles',
      fn: 'time.date',
      arg: [1517814000000000000, 'America/Los_Angeles'],
      want: [2018, 2, 4],
    },
    { name: 'date with an empty zone (UTC)', fn: 'time.date', arg: [1517832000000000000, ''], want: [2018, 2, 5] },
    { name: 'a leap day', fn: 'time.date', arg: 1582977600000000000, want: [2020, 2, 29] },
    { name: 'dates before 1970', fn: 'time.date', arg: -86400000000000, want: [1969, 12, 31] },
    { name: 'clock in UTC', fn: 'time.clock', arg: 1517832000000000000, want: [12, 0, 0] },
    { name: 'clock in New York', fn: 'time.clock', arg: [1517832000000000000, 'America/New_York'], want: [7, 0, 0] },
    {
      name: 'clock with a half-hour zone',
      fn: 'time.clock',
      arg: [1517832000000000000, 'Asia/Kolkata'],
      want: [17, 30, 0],
    },
    { name: 'weekday', fn: 'time.weekday', arg: 1517832000000000000, want: 'Monday' },
    {
      name: 'weekday across midnight in a zone',
      fn: 'time.weekday',
      arg: [1518350400000000000, 'Pacific/Kiritimati'],
      want: 'Monday',
    },
  ])('gives the $name', ({ fn, arg, want }) => {
    expect(call(fn, arg as Value)).toEqual(want);
  });

  it.each([
    { name: 'timestamps beyond int64', arg: 1582977600000000000000n, msg: 'timestamp too big' },
    { name: 'fractional timestamps', arg: 1.5, msg: 'timestamp too big' },
    { name: 'unknown zones', arg: [0, 'Mars/Olympus'], msg: 'unknown time zone Mars/Olympus' },
    { name: 'zones in the wrong case', arg: [0, 'america/new_york'], msg: 'unknown time zone america/new_york' },
  ])('rejects $name', ({ arg, msg }) => {
    const e = fails('time.date', arg as Value);
    expect(e).toBeInstanceOf(BuiltinError);
    expect(e.message).toBe(msg);
  });

  it('raises a type error for operands that are neither numbers nor arrays', () => {
    const e = fails('time.clock', 'now');
    expect(e).toBeInstanceOf(OperandError);
    expect(e.message).toBe('operand 1 must be either number (ns) or [number (ns), string (tz)] but got string');
  });
});

describe('time.add_date and time.diff', () => {
  it.each([
    { name: 'adds years, months and days', args: [1585852421593912000n, 3, 9, 12], want: 1705257221593912000n },
    { name: 'subtracts with negative values', args: [1585852421593912000n, -1, -1, -1], want: 1551465221593912000n },
    {
      name: 'normalises October 32nd into November',
      args: [1601510400000000000n, 0, 0, 31],
      want: 1604188800000000000n,
    },
    { name: 'normalises February 30th into March', args: [1580515200000000000n, 0, 1, 0], want: 1583020800000000000n },
  ])('$name', ({ args, want }) => {
    expect(BigInt(call('time.add_date', ...(args as Value[])) as bigint)).toBe(want);
  });

  it('fails outside the int64 range', () => {
    expect(fails('time.add_date', 0, 2262, 1, 1).message).toBe('time outside of valid range');
    expect(fails('time.add_date', -(1n << 63n), 0, 0, -1).message).toBe('time outside of valid range');
  });

  const day = (s: string): Value => call('time.parse_ns', '2006-01-02', s)!;
  it.each([
    { name: 'within a leap-year February', a: day('2020-02-02'), b: day('2020-03-01'), want: [0, 0, 28, 0, 0, 0] },
    { name: 'within a common-year February', a: day('2021-02-02'), b: day('2021-03-01'), want: [0, 0, 27, 0, 0, 0] },
    { name: 'from a leap day to the next March', a: day('2004-02-29'), b: day('2005-03-01'), want: [1, 0, 1, 0, 0, 0] },
    { name: 'in either order', a: 61_000_000_000, b: 0, want: [0, 0, 0, 0, 1, 1] },
    {
      name: "in the first time's zone",
      a: [3_600_000_000_000, 'UTC'],
      b: [0, 'Asia/Shanghai'],
      want: [0, 0, 0, 1, 0, 0],
    },
  ])('measures $name', ({ a, b, want }) => {
    expect(call('time.diff', a, b)).toEqual(want);
  });
});

describe('time.format', () => {
  const ns = 1670006453141828752n;
  it.each([
    { name: 'RFC 3339 with nanoseconds by default', arg: ns, want: '2022-12-02T18:40:53.141828752Z' },
    { name: 'in a zone', arg: [ns, 'Asia/Kolkata'], want: '2022-12-03T00:10:53.141828752+05:30' },
    {
      name: 'with a custom layout',
      arg: [ns, 'Asia/Kolkata', 'Mon Jan 02 15:04:05 -0700 2006'],
      want: 'Sat Dec 03 00:10:53 +0530 2022',
    },
    { name: 'with a named layout', arg: [ns, 'Asia/Kolkata', 'RFC1123Z'], want: 'Sat, 03 Dec 2022 00:10:53 +0530' },
    {
      name: 'with zone abbreviations',
      arg: [ns, 'America/New_York', 'UnixDate'],
      want: 'Fri Dec  2 13:40:53 EST 2022',
    },
    {
      name: 'with trimmed and fixed fractions',
      arg: [1_500_000_000n, 'UTC', '05.999|05.000|05,0'],
      want: '01.5|01.500|01,5',
    },
    {
      name: 'with year days and 12-hour clocks',
      arg: [ns, 'UTC', '__2 002 3:4:5 pm PM 06'],
      want: '336 336 6:40:53 pm PM 22',
    },
    { name: 'with ISO zone forms', arg: [ns, 'UTC', 'Z07:00 -07:00 Z0700 -07'], want: 'Z +00:00 Z +00' },
  ])('formats $name', ({ arg, want }) => {
    expect(call('time.format', arg as Value)).toBe(want);
  });

  it('rejects timestamps beyond int64', () => {
    expect(fails('time.format', 15829776000000000000000000n).message).toBe('timestamp too big');
  });
});

describe('time.now_ns', () => {
  it('returns the evaluation clock exactly, beyond 2^53', () => {
    expect(call('time.now_ns')).toBe(NOW);
  });
});
