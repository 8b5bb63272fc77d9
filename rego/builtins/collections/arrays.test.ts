import { describe, expect, it } from 'vitest';
import { run, v } from '../test/testkit-data.js';

const cases: { name: string; fn: string; args: unknown[]; want: string }[] = [
  { name: 'array.concat joins two arrays', fn: 'array.concat', args: [[1, 2], [3]], want: '[1,2,3]' },
  {
    name: 'array.concat rejects a set',
    fn: 'array.concat',
    args: [[1], 'x'],
    want: 'type: operand 2 must be array but got string',
  },
  { name: 'array.slice takes start up to stop', fn: 'array.slice', args: [[1, 2, 3, 4], 1, 3], want: '[2,3]' },
  { name: 'array.slice clamps a negative start', fn: 'array.slice', args: [[1, 2, 3], -5, 2], want: '[1,2]' },
  { name: 'array.slice clamps a stop past the end', fn: 'array.slice', args: [[1, 2, 3], 1, 99], want: '[2,3]' },
  { name: 'array.slice is empty when start > stop', fn: 'array.slice', args: [[1, 2, 3], 2, 1], want: '[]' },
  {
    name: 'array.slice clamps huge integer bounds',
    fn: 'array.slice',
    args: [[1, 2, 3], 0, 2n ** 60n],
    want: '[1,2,3]',
  },
  {
    name: 'array.slice rejects a float index',
    fn: 'array.slice',
    args: [[1], 0.5, 1],
    want: 'type: operand 2 must be integer number but got floating-point number',
  },
  { name: 'array.reverse reverses', fn: 'array.reverse', args: [[1, 'a', null]], want: '[null,"a",1]' },
  { name: 'array.reverse of empty is empty', fn: 'array.reverse', args: [[]], want: '[]' },
  {
    name: 'array.flatten splices nested arrays one level deep',
    fn: 'array.flatten',
    args: [[[1, 2], 3, [[4]], []]],
    want: '[1,2,3,[4]]',
  },
  {
    name: 'array.flatten keeps sets and objects whole',
    fn: 'array.flatten',
    args: [[{ a: 1 }, 'x']],
    want: '[{"a":1},"x"]',
  },
  {
    name: 'array.flatten rejects a non-array',
    fn: 'array.flatten',
    args: [{}],
    want: 'type: operand 1 must be array but got object',
  },
];

describe('arrays', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });
});
