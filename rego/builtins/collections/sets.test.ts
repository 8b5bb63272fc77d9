import { describe, expect, it } from 'vitest';
import { run, set, v } from '../test/testkit-data.js';

const cases: { name: string; fn: string; args: unknown[]; want: string }[] = [
  { name: 'and intersects two sets', fn: 'and', args: [set(1, 2, 3), set(2, 3, 4)], want: '[2,3]' },
  { name: 'and with a disjoint set is empty', fn: 'and', args: [set(1), set(2)], want: '[]' },
  { name: 'and rejects an array', fn: 'and', args: [set(1), [1]], want: 'type: operand 2 must be set but got array' },
  { name: 'or unites two sets', fn: 'or', args: [set(1, 2), set(2, 3)], want: '[1,2,3]' },
  {
    name: 'intersection of several sets',
    fn: 'intersection',
    args: [set(set(1, 2, 3), set(2, 3), set(3, 2, 9))],
    want: '[2,3]',
  },
  { name: 'intersection of no sets is empty', fn: 'intersection', args: [set()], want: '[]' },
  {
    name: 'intersection rejects a non-set member',
    fn: 'intersection',
    args: [set(set(1), 2)],
    want: 'type: operand 1 must be set but got number',
  },
  { name: 'union of several sets', fn: 'union', args: [set(set(1), set(2), set())], want: '[1,2]' },
  {
    name: 'union rejects a non-set argument',
    fn: 'union',
    args: [[set(1)]],
    want: 'type: operand 1 must be set but got array',
  },
  { name: 'set_diff removes members of the second set', fn: 'set_diff', args: [set(1, 2, 3), set(3)], want: '[1,2]' },
  { name: 'sets compare 1 and 1.0 as equal members', fn: 'and', args: [set(1), set(1.0)], want: '[1]' },
];

describe('sets', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });
});
