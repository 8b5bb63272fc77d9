import { describe, expect, it } from 'vitest';
import { context, run, set, v } from '../test/testkit-data.js';

type Case = { name: string; fn: string; args: unknown[]; want: string };
const c = (name: string, fn: string, args: unknown[], want: string): Case => ({ name, fn, args, want });

const arithmetic: Case[] = [
  c('plus adds small integers exactly', 'plus', [2, 3], '5'),
  c('plus adds like OPA big.Float, so 0.1 + 0.2 is 0.3', 'plus', [0.1, 0.2], '0.3'),
  c('plus keeps integers beyond 2^53 exact', 'plus', [18446744073709551617n, 1], '18446744073709551618'),
  c('plus crosses the int32 window without overflow', 'plus', [2147483647, 1], '2147483648'),
  c('minus subtracts big integers exactly', 'minus', [-18446744073709551617n, 1], '-18446744073709551618'),
  c('minus takes the difference of sets', 'minus', [set(1, 2, 3), set(2)], '[1,3]'),
  c(
    'minus rejects a string on the left',
    'minus',
    ['a', 1],
    'type: operand 1 must be one of {number, set} but got string',
  ),
  c('minus rejects a set on the right of a number', 'minus', [1, set()], 'type: operand 2 must be number but got set'),
  c('minus rejects a number on the right of a set', 'minus', [set(), 1], 'type: operand 2 must be set but got number'),
  c('mul multiplies int32 extremes into an int64', 'mul', [2147483647, 2147483647], '4611686014132420609'),
  c('mul multiplies floats at 64 bits', 'mul', [0.1, 3], '0.3'),
  c('mul multiplies mixed integer and float', 'mul', [2.5, 2], '5'),
  c('div is exact when the divisor divides', 'div', [-6, 3], '-2'),
  c('div yields a float quotient otherwise', 'div', [1, 4], '0.25'),
  c('div of a zero dividend is 0', 'div', [0, 5], '0'),
  c('div by zero is a builtin error', 'div', [1, 0], 'builtin: divide by zero'),
  c('div of big integers goes through floats', 'div', [10n ** 109n, 10n ** 100n], '1000000000'),
  c('rem takes the sign of the dividend', 'rem', [-17, 5], '-2'),
  c('rem accepts a negative divisor', 'rem', [17, -5], '2'),
  c('rem by a multiple of 2^64 is not modulo by zero', 'rem', [10, 18446744073709551616n], '10'),
  c('rem on floats is an error', 'rem', [5.5, 2], 'builtin: modulo on floating-point number'),
  c('rem by zero is an error', 'rem', [5, 0], 'builtin: modulo by zero'),
  c('abs of the int64 minimum is exact', 'abs', [-9223372036854775808n], '9223372036854775808'),
  c('abs of a float', 'abs', [-2.5], '2.5'),
  c('round rounds half away from zero', 'round', [2.5], '3'),
  c('round rounds negative halves away from zero', 'round', [-2.5], '-3'),
  c('round rounds down below the half', 'round', [2.4], '2'),
  c('ceil rounds up', 'ceil', [1.2], '2'),
  c('ceil keeps OPA’s sign quirk between -1 and 0', 'ceil', [-0.5], '1'),
  c('floor rounds down', 'floor', [-1.5], '-2'),
  c('floor keeps OPA’s sign quirk between -1 and 0', 'floor', [-0.5], '0'),
  c(
    'round of a huge integer goes through 64 bits and comes back exact',
    'round',
    [2n ** 70n + 1n],
    '1180591620717411303424',
  ),
  c('abs of a huge integer prints the shortest 64-bit digits', 'abs', [-(2n ** 70n + 1n)], '1180591620717411303400'),
  c('floor of a safe integer beyond int32 is itself', 'floor', [3000000000], '3000000000'),
  c('plus rejects a non-number', 'plus', ['1', 2], 'type: operand 1 must be number but got string'),
];

const ranges: Case[] = [
  c('numbers.range counts up inclusively', 'numbers.range', [1, 4], '[1,2,3,4]'),
  c('numbers.range counts down when b < a', 'numbers.range', [3, 1], '[3,2,1]'),
  c('numbers.range with equal bounds is one number', 'numbers.range', [2, 2], '[2]'),
  c(
    'numbers.range handles big bounds exactly',
    'numbers.range',
    [9007199254740993n, 9007199254740995n],
    '[9007199254740993,9007199254740994,9007199254740995]',
  ),
  c(
    'numbers.range rejects a float bound',
    'numbers.range',
    [1.5, 3],
    'type: operand 1 must be integer number but got floating-point number',
  ),
  c(
    'numbers.range rejects a string bound',
    'numbers.range',
    [1, 'a'],
    'type: operand 2 must be integer but got string',
  ),
  c('numbers.range_step skips by the step', 'numbers.range_step', [1, 10, 3], '[1,4,7,10]'),
  c('numbers.range_step leaves out an unreachable end', 'numbers.range_step', [10, 1, 4], '[10,6,2]'),
  c(
    'numbers.range_step rejects a zero step',
    'numbers.range_step',
    [1, 10, 0],
    'builtin: numbers.range_step: step must be a positive integer',
  ),
  c(
    'numbers.range_step rejects a negative step',
    'numbers.range_step',
    [1, 10, -1],
    'builtin: numbers.range_step: step must be a positive integer',
  ),
];

const conversions: Case[] = [
  c('to_number converts true to 1', 'to_number', [true], '1'),
  c('to_number converts null to 0', 'to_number', [null], '0'),
  c('to_number parses a float string', 'to_number', ['-12.5'], '-12.5'),
  c('to_number keeps long integer strings exact', 'to_number', ['12345678901234567890'], '12345678901234567890'),
  c('to_number accepts Go hex floats', 'to_number', ['0x1p-2'], '0.25'),
  c('to_number accepts digit separators', 'to_number', ['1_000'], '1000'),
  c(
    'to_number rejects spaces like strconv.ParseFloat',
    'to_number',
    [' 1'],
    'builtin: strconv.ParseFloat: parsing " 1": invalid syntax',
  ),
  c(
    'to_number rejects an out-of-range value',
    'to_number',
    ['1e400'],
    'builtin: strconv.ParseFloat: parsing "1e400": value out of range',
  ),
  c(
    'to_number rejects infinities as a type error',
    'to_number',
    ['-Inf'],
    'type: operand 1 must be valid number string but got string',
  ),
  c(
    'to_number rejects arrays',
    'to_number',
    [[]],
    'type: operand 1 must be one of {null, boolean, number, string} but got array',
  ),
];

describe('numbers', () => {
  it.each([...arithmetic, ...ranges, ...conversions])('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });

  it('rand.intn returns the same number for the same seed and bound within one evaluation', () => {
    const ctx = context();
    const first = run('rand.intn', [v('k'), v(1000)], ctx);
    for (let i = 0; i < 20; i++) expect(run('rand.intn', [v('k'), v(1000)], ctx)).toBe(first);
    expect(Number(first)).toBeGreaterThanOrEqual(0);
    expect(Number(first)).toBeLessThan(1000);
  });

  it('rand.intn treats a negative bound as its absolute value and 0 as 0', () => {
    const ctx = context();
    expect(run('rand.intn', [v('k'), v(-1000)], ctx)).toBe(run('rand.intn', [v('k'), v(1000)], ctx));
    expect(run('rand.intn', [v('k'), v(0)], ctx)).toBe('0');
  });

  it('rand.intn draws fresh numbers in a new evaluation', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) seen.add(run('rand.intn', [v('k'), v(1_000_000)]));
    expect(seen.size).toBeGreaterThan(1);
  });
});
