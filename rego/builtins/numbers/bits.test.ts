import { describe, expect, it } from 'vitest';
import { run, v } from '../test/testkit-data.js';

const cases: { name: string; fn: string; args: unknown[]; want: string }[] = [
  { name: 'bits.and masks bits', fn: 'bits.and', args: [7, 9], want: '1' },
  { name: 'bits.or sets bits', fn: 'bits.or', args: [7, 9], want: '15' },
  { name: 'bits.xor flips bits', fn: 'bits.xor', args: [42, 3], want: '41' },
  { name: 'bits.negate is two’s complement', fn: 'bits.negate', args: [5], want: '-6' },
  {
    name: 'bits.and works on big integers',
    fn: 'bits.and',
    args: [2n ** 70n + 5n, 2n ** 70n + 3n],
    want: '1180591620717411303425',
  },
  {
    name: 'bits.lsh of max int64 does not overflow',
    fn: 'bits.lsh',
    args: [9223372036854775807n, 1],
    want: '18446744073709551614',
  },
  { name: 'bits.rsh floors negative numbers', fn: 'bits.rsh', args: [-7, 1], want: '-4' },
  {
    name: 'bits.rsh rejects a negative shift',
    fn: 'bits.rsh',
    args: [7, -1],
    want: 'type: operand 2 must be an unsigned integer number but got a negative integer',
  },
  {
    name: 'bits.lsh rejects a float',
    fn: 'bits.lsh',
    args: [7.2, 1],
    want: 'type: operand 1 must be integer number but got floating-point number',
  },
  {
    name: 'bits.or rejects a string',
    fn: 'bits.or',
    args: ['1', 1],
    want: 'type: operand 1 must be integer but got string',
  },
  {
    name: 'bits.lsh refuses shifts that would take megabytes',
    fn: 'bits.lsh',
    args: [1, 2 ** 30],
    want: 'builtin: shift of 1073741824 bits exceeds the limit of 16777216',
  },
];

describe('bits', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });
});
