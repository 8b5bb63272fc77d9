import { describe, expect, it } from 'vitest';
import { obj, run, set, v } from '../test/testkit-data.js';

const cases: { name: string; fn: string; args: unknown[]; want: string }[] = [
  { name: 'count counts runes, not UTF-16 units', fn: 'count', args: ['héllo😀'], want: '6' },
  { name: 'count counts object entries', fn: 'count', args: [{ a: 1, b: 2 }], want: '2' },
  { name: 'count counts set members', fn: 'count', args: [set(1, 2, 2)], want: '2' },
  {
    name: 'count rejects numbers',
    fn: 'count',
    args: [1],
    want: 'type: operand 1 must be one of {array, object, set, string} but got number',
  },
  { name: 'sum adds integers', fn: 'sum', args: [[1, 2, 3]], want: '6' },
  { name: 'sum stays exact past 2^53', fn: 'sum', args: [[9007199254740991, 2]], want: '9007199254740993' },
  { name: 'sum adds floats like OPA', fn: 'sum', args: [[0.1, 0.2]], want: '0.3' },
  { name: 'sum of a set', fn: 'sum', args: [set(1, 2.5)], want: '3.5' },
  { name: 'sum of nothing is 0', fn: 'sum', args: [[]], want: '0' },
  {
    name: 'sum rejects non-number elements',
    fn: 'sum',
    args: [[1, 'a']],
    want: 'type: operand 1 must be array of numbers but got array containing string',
  },
  {
    name: 'sum rejects a string',
    fn: 'sum',
    args: ['a'],
    want: 'type: operand 1 must be one of {set, array} but got string',
  },
  {
    name: 'product multiplies big integers exactly',
    fn: 'product',
    args: [[4294967296, 4294967296, 4294967296]],
    want: '79228162514264337593543950336',
  },
  { name: 'product of nothing is 1', fn: 'product', args: [set()], want: '1' },
  {
    name: 'product of floats keeps the double-precision accumulator',
    fn: 'product',
    args: [[0.1, 3]],
    want: '0.30000000000000004',
  },
  { name: 'max of mixed types follows the total order', fn: 'max', args: [[1, 'a', null]], want: '"a"' },
  { name: 'max of an empty array is undefined', fn: 'max', args: [[]], want: 'undefined' },
  { name: 'min of a set', fn: 'min', args: [set(3, 1, 2)], want: '1' },
  { name: 'min of an empty set is undefined', fn: 'min', args: [set()], want: 'undefined' },
  {
    name: 'sort orders an array by the total order',
    fn: 'sort',
    args: [[3, 'a', null, 1, false]],
    want: '[null,false,1,3,"a"]',
  },
  { name: 'sort turns a set into an array', fn: 'sort', args: [set('b', 'a')], want: '["a","b"]' },
  { name: 'any is true when an element is true', fn: 'any', args: [[false, true]], want: 'true' },
  { name: 'any of an empty set is false', fn: 'any', args: [set()], want: 'false' },
  { name: 'all needs every element to be true', fn: 'all', args: [[true, 1]], want: 'false' },
  { name: 'all of an empty array is true', fn: 'all', args: [[]], want: 'true' },
  {
    name: 'internal.member_2 finds array elements by value',
    fn: 'internal.member_2',
    args: [1, [1.0, 2]],
    want: 'true',
  },
  { name: 'internal.member_2 looks at object values', fn: 'internal.member_2', args: ['x', { a: 'x' }], want: 'true' },
  { name: 'internal.member_2 is false for scalars', fn: 'internal.member_2', args: [1, 1], want: 'false' },
  {
    name: 'internal.member_3 matches an array index and value',
    fn: 'internal.member_3',
    args: [1, 'b', ['a', 'b']],
    want: 'true',
  },
  {
    name: 'internal.member_3 matches an object key and value',
    fn: 'internal.member_3',
    args: ['k', 2, { k: 2 }],
    want: 'true',
  },
  {
    name: 'internal.member_3 on sets needs key and value to agree',
    fn: 'internal.member_3',
    args: [1, 2, set(1)],
    want: 'false',
  },
];

describe('aggregates', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });

  it('count counts non-string object keys like any other', () => {
    expect(
      run('count', [
        obj([
          [1, 'a'],
          ['1', 'b'],
        ]),
      ]),
    ).toBe('2');
  });
});
