import { describe, expect, it } from 'vitest';
import { obj, run, set, v } from '../test/testkit-data.js';

type Case = { name: string; fn: string; args: unknown[]; want: string };

const objectCases: Case[] = [
  { name: 'object.get returns a top-level key', fn: 'object.get', args: [{ a: 1 }, 'a', 0], want: '1' },
  { name: 'object.get falls back to the default', fn: 'object.get', args: [{ a: 1 }, 'b', 'd'], want: '"d"' },
  {
    name: 'object.get follows a path through arrays',
    fn: 'object.get',
    args: [{ a: [{ b: true }] }, ['a', 0, 'b'], false],
    want: 'true',
  },
  { name: 'object.get with an empty path is the object', fn: 'object.get', args: [{ a: 1 }, [], 0], want: '{"a":1}' },
  {
    name: 'object.get treats a set member as its own key',
    fn: 'object.get',
    args: [{ a: set('x') }, ['a', 'x'], 0],
    want: '"x"',
  },
  {
    name: 'object.get needs numeric array indexes',
    fn: 'object.get',
    args: [{ a: [1] }, ['a', '0'], 'd'],
    want: '"d"',
  },
  { name: 'object.keys returns the key set', fn: 'object.keys', args: [{ b: 1, a: 2 }], want: '["a","b"]' },
  {
    name: 'object.remove drops keys given as an array',
    fn: 'object.remove',
    args: [{ a: 1, b: 2 }, ['a']],
    want: '{"b":2}',
  },
  {
    name: 'object.remove takes keys from an object',
    fn: 'object.remove',
    args: [{ a: 1, b: 2 }, { b: 0 }],
    want: '{"a":1}',
  },
  {
    name: 'object.remove rejects a string of keys',
    fn: 'object.remove',
    args: [{ a: 1 }, 'a'],
    want: 'type: operand 2 must be one of {object, set, array} but got string',
  },
  {
    name: 'object.filter keeps only the given keys',
    fn: 'object.filter',
    args: [{ a: 1, b: 2, c: 3 }, set('a', 'c', 'z')],
    want: '{"a":1,"c":3}',
  },
  {
    name: 'object.union merges nested objects, right wins',
    fn: 'object.union',
    args: [
      { a: 1, c: { d: 3 } },
      { a: 7, c: { e: 5 } },
    ],
    want: '{"a":7,"c":{"d":3,"e":5}}',
  },
  {
    name: 'object.union replaces an object with a scalar',
    fn: 'object.union',
    args: [{ a: { b: 1 } }, { a: 2 }],
    want: '{"a":2}',
  },
  {
    name: 'object.union_n merges left to right',
    fn: 'object.union_n',
    args: [[{ a: 1 }, { b: 2 }, { a: 3 }]],
    want: '{"a":3,"b":2}',
  },
  {
    name: 'object.union_n freezes an object shadowed by a scalar',
    fn: 'object.union_n',
    args: [[{ a: { b: 2 } }, { a: 4 }, { a: { c: 3 } }]],
    want: '{"a":{"c":3}}',
  },
  {
    name: 'object.union_n rejects non-objects',
    fn: 'object.union_n',
    args: [[{}, 1]],
    want: 'type: operand 1 must be array of objects but got array containing number',
  },
  {
    name: 'object.subset recurses into objects',
    fn: 'object.subset',
    args: [{ a: 'b', c: { x: set(10, 15, 20, 25), y: 'z' } }, { c: { x: set(10, 15, 20) } }],
    want: 'true',
  },
  {
    name: 'object.subset finds a contiguous sub-array',
    fn: 'object.subset',
    args: [
      [1, 2, 3, 4],
      [2, 3],
    ],
    want: 'true',
  },
  {
    name: 'object.subset rejects a non-contiguous sub-array',
    fn: 'object.subset',
    args: [
      [1, 2, 3, 4],
      [2, 4],
    ],
    want: 'false',
  },
  {
    name: 'object.subset of a set in an array ignores order',
    fn: 'object.subset',
    args: [[3, 1, 2], set(1, 2)],
    want: 'true',
  },
  {
    name: 'object.subset counts repeated array elements like OPA',
    fn: 'object.subset',
    args: [[1, 1], set(1, 2)],
    want: 'true',
  },
  {
    name: 'object.subset of mixed types is a type error',
    fn: 'object.subset',
    args: [{}, []],
    want: 'type: both arguments object.subset must be of the same type or array and set',
  },
];

const jsonCases: Case[] = [
  {
    name: 'json.filter keeps the selected paths',
    fn: 'json.filter',
    args: [{ a: { b: 'x', c: 'y' }, d: 1 }, ['a/b']],
    want: '{"a":{"b":"x"}}',
  },
  {
    name: 'json.filter indexes arrays by string segments',
    fn: 'json.filter',
    args: [{ a: [1, 2, 3] }, ['a/0', 'a/2']],
    want: '{"a":[1,3]}',
  },
  {
    name: 'json.filter takes array paths',
    fn: 'json.filter',
    args: [{ a: { 'b/c': 1, d: 2 } }, [['a', 'b/c']]],
    want: '{"a":{"b/c":1}}',
  },
  {
    name: 'json.filter unescapes ~1 and ~0',
    fn: 'json.filter',
    args: [{ 'a/b': 1, '~': 2, c: 3 }, set('a~1b', '~0')],
    want: '{"a/b":1,"~":2}',
  },
  {
    name: 'json.filter lets a shorter path win',
    fn: 'json.filter',
    args: [{ a: { b: 1, c: 2 } }, ['a/b', 'a']],
    want: '{"a":{"b":1,"c":2}}',
  },
  {
    name: 'json.filter rejects a number path',
    fn: 'json.filter',
    args: [{}, [1]],
    want: 'type: operand 2 must be one of {set, array} containing string paths or array of path segments but got number',
  },
  {
    name: 'json.remove drops the selected paths',
    fn: 'json.remove',
    args: [{ a: { b: 'x', c: 'y' } }, ['a/b']],
    want: '{"a":{"c":"y"}}',
  },
  {
    name: 'json.remove shifts array elements left',
    fn: 'json.remove',
    args: [{ a: [1, 2, 3] }, ['/a/1']],
    want: '{"a":[1,3]}',
  },
  {
    name: 'json.remove ignores paths that do not exist',
    fn: 'json.remove',
    args: [{ a: 1 }, ['b/c']],
    want: '{"a":1}',
  },
  {
    name: 'json.remove rejects a string of paths',
    fn: 'json.remove',
    args: [{}, 'a'],
    want: 'type: operand 2 must be one of {set, array} but got string',
  },
];

const patch = (...ops: unknown[]): unknown => ops;
const patchCases: Case[] = [
  {
    name: 'json.patch adds a member',
    fn: 'json.patch',
    args: [{ a: { foo: 1 } }, patch({ op: 'add', path: '/a/bar', value: 2 })],
    want: '{"a":{"bar":2,"foo":1}}',
  },
  {
    name: 'json.patch appends with -',
    fn: 'json.patch',
    args: [{ a: [1] }, patch({ op: 'add', path: '/a/-', value: 2 })],
    want: '{"a":[1,2]}',
  },
  {
    name: 'json.patch inserts into an array',
    fn: 'json.patch',
    args: [[1, 3], patch({ op: 'add', path: '/1', value: 2 })],
    want: '[1,2,3]',
  },
  {
    name: 'json.patch removes an array element',
    fn: 'json.patch',
    args: [[1, 2, 3], patch({ op: 'remove', path: '/0' })],
    want: '[2,3]',
  },
  {
    name: 'json.patch replaces a value',
    fn: 'json.patch',
    args: [{ a: 1 }, patch({ op: 'replace', path: '/a', value: 9 })],
    want: '{"a":9}',
  },
  {
    name: 'json.patch moves a value',
    fn: 'json.patch',
    args: [{ a: 1 }, patch({ op: 'move', from: '/a', path: '/b' })],
    want: '{"b":1}',
  },
  {
    name: 'json.patch copies a value',
    fn: 'json.patch',
    args: [{ a: [1] }, patch({ op: 'copy', from: '/a', path: '/b' })],
    want: '{"a":[1],"b":[1]}',
  },
  {
    name: 'json.patch passes a matching test',
    fn: 'json.patch',
    args: [{ a: 1 }, patch({ op: 'test', path: '/a', value: 1 })],
    want: '{"a":1}',
  },
  {
    name: 'json.patch is undefined when a test fails',
    fn: 'json.patch',
    args: [{ a: 1 }, patch({ op: 'test', path: '/a', value: 2 })],
    want: 'undefined',
  },
  {
    name: 'json.patch is undefined when a path is missing',
    fn: 'json.patch',
    args: [{ a: 1 }, patch({ op: 'add', path: '/x/y', value: 2 })],
    want: 'undefined',
  },
  {
    name: 'json.patch is undefined for an unknown op',
    fn: 'json.patch',
    args: [{}, patch({ op: 'frob', path: '/a' })],
    want: 'undefined',
  },
  {
    name: 'json.patch is undefined for leading zeros in an index',
    fn: 'json.patch',
    args: [[1, 2], patch({ op: 'remove', path: '/01' })],
    want: 'undefined',
  },
  {
    name: 'json.patch replaces the whole document at ""',
    fn: 'json.patch',
    args: [{ a: 1 }, patch({ op: 'add', path: '', value: [1] })],
    want: '[1]',
  },
  {
    name: 'json.patch edits inside a set member',
    fn: 'json.patch',
    args: [set([0], 'a'), patch({ op: 'add', path: [[0], 1], value: 1 })],
    want: '["a",[0,1]]',
  },
  {
    name: 'json.patch adds a set member only as its own path',
    fn: 'json.patch',
    args: [set(1), patch({ op: 'add', path: [2], value: 2 })],
    want: '[1,2]',
  },
  {
    name: 'json.patch rejects a non-array of patches',
    fn: 'json.patch',
    args: [{}, {}],
    want: 'type: operand 2 must be array but got object',
  },
];

describe('objects', () => {
  it.each([...objectCases, ...jsonCases, ...patchCases])('$name', ({ fn, args, want }) => {
    expect(run(fn, args.map(v))).toBe(want);
  });

  it('object.keys keeps non-string keys', () => {
    expect(
      run('object.keys', [
        obj([
          [1, 'a'],
          [[1], 'b'],
        ]),
      ]),
    ).toBe('[1,[1]]');
  });

  it('object.get finds non-string keys', () => {
    expect(run('object.get', [obj([[[1, 2], 'x']]), v([[1, 2]]), v('d')])).toBe('"x"');
  });
});
