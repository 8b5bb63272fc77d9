import { describe, expect, it } from 'vitest';
import { run, v } from '../test/testkit-data.js';
import { splitNumberAndUnit } from './units.js';

const cases: { name: string; fn: string; arg: string; want: string }[] = [
  { name: 'units.parse reads a plain number', fn: 'units.parse', arg: '12345', want: '12345' },
  { name: 'units.parse reads milli with lower-case m', fn: 'units.parse', arg: '500m', want: '0.5' },
  { name: 'units.parse reads mega with upper-case M', fn: 'units.parse', arg: '2M', want: '2000000' },
  { name: 'units.parse keeps binary fractions exact', fn: 'units.parse', arg: '1.1Ki', want: '1126.4' },
  {
    name: 'units.parse lower-cases all but the first letter',
    fn: 'units.parse',
    arg: '"100TI"',
    want: '109951162777600',
  },
  { name: 'units.parse takes scientific notation', fn: 'units.parse', arg: '1e-3K', want: '1' },
  { name: 'units.parse rounds to ten decimals', fn: 'units.parse', arg: '1m', want: '0.001' },
  {
    name: 'units.parse rejects spaces',
    fn: 'units.parse',
    arg: '100 k',
    want: 'builtin: units.parse: spaces not allowed in resource strings',
  },
  {
    name: 'units.parse needs an amount',
    fn: 'units.parse',
    arg: 'G',
    want: 'builtin: units.parse: no amount provided',
  },
  {
    name: 'units.parse rejects unknown units',
    fn: 'units.parse',
    arg: '1Kb',
    want: 'builtin: units.parse: unit Kb not recognized',
  },
  {
    name: 'units.parse rejects malformed amounts',
    fn: 'units.parse',
    arg: '0.0.0',
    want: 'builtin: units.parse: could not parse amount to a number',
  },
  {
    name: 'units.parse rejects huge exponents',
    fn: 'units.parse',
    arg: '1e1234567K',
    want: 'builtin: units.parse: exponent too large',
  },
  { name: 'units.parse_bytes is case-insensitive', fn: 'units.parse_bytes', arg: '10KIB', want: '10240' },
  { name: 'units.parse_bytes truncates fractional bytes', fn: 'units.parse_bytes', arg: '1.1KiB', want: '1126' },
  {
    name: 'units.parse_bytes reads exabytes exactly',
    fn: 'units.parse_bytes',
    arg: '10eb',
    want: '10000000000000000000',
  },
  {
    name: 'units.parse_bytes treats a trailing E as a unit',
    fn: 'units.parse_bytes',
    arg: '5E',
    want: '5000000000000000000',
  },
  { name: 'units.parse_bytes reads negative exponents', fn: 'units.parse_bytes', arg: '1e-2KB', want: '10' },
  {
    name: 'units.parse_bytes rejects a lone b',
    fn: 'units.parse_bytes',
    arg: '1b',
    want: 'builtin: units.parse_bytes: byte unit b not recognized',
  },
  {
    name: 'units.parse_bytes needs an amount',
    fn: 'units.parse_bytes',
    arg: 'GB',
    want: 'builtin: units.parse_bytes: no byte amount provided',
  },
  {
    name: 'units.parse_bytes rejects malformed amounts',
    fn: 'units.parse_bytes',
    arg: '.5.2',
    want: 'builtin: units.parse_bytes: could not parse byte amount to a number',
  },
];

describe('units', () => {
  it.each(cases)('$name', ({ fn, arg, want }) => {
    expect(run(fn, [v(arg)])).toBe(want);
  });

  it.each([
    { s: '10KiB', want: { num: '10', unit: 'KiB' } },
    { s: '1.5e3MB', want: { num: '1.5e3', unit: 'MB' } },
    { s: '5e', want: { num: '5', unit: 'e' } },
    { s: 'kb', want: { num: '', unit: 'kb' } },
  ])('splitNumberAndUnit splits $s', ({ s, want }) => {
    expect(splitNumberAndUnit(s)).toEqual(want);
  });
});
