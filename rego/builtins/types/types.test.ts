import { describe, expect, it } from 'vitest';
import { run, set, v } from '../test/testkit-data.js';

const values: [string, unknown, string][] = [
  ['null', null, 'is_null'],
  ['boolean', false, 'is_boolean'],
  ['number', 1.5, 'is_number'],
  ['number', 2n ** 70n, 'is_number'],
  ['string', '', 'is_string'],
  ['array', [], 'is_array'],
  ['object', {}, 'is_object'],
  ['set', set(), 'is_set'],
];
const predicates = ['is_null', 'is_boolean', 'is_number', 'is_string', 'is_array', 'is_object', 'is_set'];

describe('types', () => {
  it.each(values)('type_name names a %s', (name, x) => {
    expect(run('type_name', [v(x)])).toBe(JSON.stringify(name));
  });

  it.each(values)('only the %s predicate holds for its values', (_name, x, pred) => {
    for (const p of predicates) expect(run(p, [v(x)])).toBe(String(p === pred));
  });

  it.each([
    { name: 'cast_array turns a set into a sorted array', fn: 'cast_array', arg: set(2, 1), want: '[1,2]' },
    { name: 'cast_set turns an array into a set', fn: 'cast_set', arg: [2, 1, 2], want: '[1,2]' },
    {
      name: 'cast_string rejects numbers',
      fn: 'cast_string',
      arg: 1,
      want: 'type: operand 1 must be string but got number',
    },
    { name: 'cast_null accepts null', fn: 'cast_null', arg: null, want: 'null' },
    {
      name: 'cast_object rejects arrays',
      fn: 'cast_object',
      arg: [],
      want: 'type: operand 1 must be object but got array',
    },
  ])('$name', ({ fn, arg, want }) => {
    expect(run(fn, [v(arg)])).toBe(want);
  });
});
