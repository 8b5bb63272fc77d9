import { describe, expect, it } from 'vitest';
import { BuiltinError, OperandError } from '../../errors.js';
import { RObject, RSet, type Value } from '../../value.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';
import { register } from './strings.js';

const registry = new BuiltinRegistry();
register(registry);
const ctx: BuiltinContext = { strict: false, nowNs: () => 0n, cache: new Map(), checkDeadline() {}, charge() {} };

function call(name: string, ...args: Value[]): Value | undefined {
  const b = registry.get(name);
  if (!b) throw new Error(`no builtin ${name}`);
  return b.impl(args, ctx);
}

interface Case {
  name: string;
  fn: string;
  args: Value[];
  want: Value;
}

const set = (...xs: Value[]): RSet => RSet.from(xs);
const obj = (o: Record<string, Value>): RObject => RObject.from(Object.entries(o));

const cases: Case[] = [
  { name: 'concat joins an array', fn: 'concat', args: ['/', ['a', 'b']], want: 'a/b' },
  { name: 'concat joins a set in sorted order', fn: 'concat', args: [',', set('b', 'a')], want: 'a,b' },
  { name: 'concat of an empty collection is empty', fn: 'concat', args: [',', []], want: '' },
  { name: 'contains finds a substring', fn: 'contains', args: ['abcdefgh', 'defg'], want: true },
  { name: 'startswith is false for a middle part', fn: 'startswith', args: ['abcdefgh', 'bcd'], want: false },
  { name: 'endswith matches a suffix', fn: 'endswith', args: ['abcdefgh', 'fgh'], want: true },
  { name: 'format_int truncates toward zero', fn: 'format_int', args: [15.5, 16], want: 'f' },
  { name: 'format_int keeps the sign in binary', fn: 'format_int', args: [-5.9, 2], want: '-101' },
  {
    name: 'format_int formats big integers exactly',
    fn: 'format_int',
    args: [2n ** 70n, 8],
    want: (2n ** 70n).toString(8),
  },
  { name: 'indexof counts code points', fn: 'indexof', args: ['skön var våren', 'vår'], want: 9 },
  { name: 'indexof counts an emoji as one', fn: 'indexof', args: ['🍧🍨🧁🍰🍮', '🍮'], want: 4 },
  { name: 'indexof is -1 when absent', fn: 'indexof', args: ['μ', 'μμ'], want: -1 },
  { name: 'indexof_n lists overlapping matches', fn: 'indexof_n', args: ['aaa', 'aa'], want: [0, 1] },
  { name: 'indexof_n counts code points', fn: 'indexof_n', args: ['😇😀😇😀😇😀', '😀'], want: [1, 3, 5] },
  { name: 'lower maps per rune like Go', fn: 'lower', args: ['ÀΣİ'], want: 'àσi' },
  { name: 'upper leaves runes without a simple mapping', fn: 'upper', args: ['straße'], want: 'STRAßE' },
  { name: 'replace replaces every occurrence', fn: 'replace', args: ['foo.bar.baz', '.', ','], want: 'foo,bar,baz' },
  { name: 'replace with an empty old inserts between runes', fn: 'replace', args: ['a😀', '', '-'], want: '-a-😀-' },
  { name: 'split on a missing delimiter keeps the string', fn: 'split', args: ['foo', '.'], want: ['foo'] },
  { name: 'split on an empty delimiter explodes runes', fn: 'split', args: ['a😀b', ''], want: ['a', '😀', 'b'] },
  { name: 'split of empty by empty is empty', fn: 'split', args: ['', ''], want: [] },
  // strings.split_n: OPA's documentation and conformance examples (OPA 1.20)
  {
    name: 'split_n keeps the first n parts, dropping the rest',
    fn: 'strings.split_n',
    args: ['a.b.c.d', '.', 2],
    want: ['a', 'b'],
  },
  {
    name: 'split_n with n above the part count returns all parts',
    fn: 'strings.split_n',
    args: ['a.b', '.', 5],
    want: ['a', 'b'],
  },
  {
    name: 'split_n with a negative n keeps the last part',
    fn: 'strings.split_n',
    args: ['a.b.c', '.', -1],
    want: ['c'],
  },
  {
    name: 'split_n with -2 keeps the last two parts in order',
    fn: 'strings.split_n',
    args: ['a;b;c;d', ';', -2],
    want: ['c', 'd'],
  },
  {
    name: 'split_n with a negative n beyond the part count returns all',
    fn: 'strings.split_n',
    args: ['a.b', '.', -5],
    want: ['a', 'b'],
  },
  { name: 'split_n with n = 0 is empty', fn: 'strings.split_n', args: ['a.b.c', '.', 0], want: [] },
  { name: 'split_n with n = 1 keeps only the first part', fn: 'strings.split_n', args: ['a.b.c', '.', 1], want: ['a'] },
  {
    name: 'split_n on a missing delimiter keeps the string',
    fn: 'strings.split_n',
    args: ['abc', '.', 2],
    want: ['abc'],
  },
  { name: 'split_n of the empty string is one empty part', fn: 'strings.split_n', args: ['', '.', 2], want: [''] },
  {
    name: 'split_n on an empty delimiter takes runes from the left',
    fn: 'strings.split_n',
    args: ['a😀bc', '', 2],
    want: ['a', '😀'],
  },
  {
    name: 'split_n on an empty delimiter takes runes from the right',
    fn: 'strings.split_n',
    args: ['a😀bc', '', -3],
    want: ['😀', 'b', 'c'],
  },
  { name: 'split_n of empty by empty is empty', fn: 'strings.split_n', args: ['', '', 3], want: [] },
  {
    name: 'split_n with a multi-character delimiter',
    fn: 'strings.split_n',
    args: ['a::b::c::d', '::', 3],
    want: ['a', 'b', 'c'],
  },
  {
    name: 'split_n with a huge n returns all parts',
    fn: 'strings.split_n',
    args: ['a,b', ',', 2 ** 53 - 1],
    want: ['a', 'b'],
  },
  { name: 'substring takes code points', fn: 'substring', args: ['åäö', 0, 2], want: 'åä' },
  { name: 'substring with negative length runs to the end', fn: 'substring', args: ['aåäö', 2, -1], want: 'äö' },
  { name: 'substring past the end is empty', fn: 'substring', args: ['åäö', 3, -1], want: '' },
  { name: 'trim strips cutset runes from both ends', fn: 'trim', args: ['...foo.bar...', '.fr'], want: 'oo.ba' },
  { name: 'trim_left strips only the left', fn: 'trim_left', args: ['xxaxx', 'x'], want: 'axx' },
  { name: 'trim_right strips only the right', fn: 'trim_right', args: ['xxaxx', 'x'], want: 'xxa' },
  { name: 'trim_prefix removes one prefix', fn: 'trim_prefix', args: ['aaab', 'a'], want: 'aab' },
  { name: 'trim_suffix removes one suffix', fn: 'trim_suffix', args: ['abbb', 'b'], want: 'abb' },
  {
    name: 'trim_space uses Go whitespace (NEL, NBSP) but not BOM',
    fn: 'trim_space',
    args: ['\u0085\u00a0 x\t\n\ufeff'],
    want: 'x\t\n\ufeff',
  },
  {
    name: 'any_prefix_match accepts a set and a string',
    fn: 'strings.any_prefix_match',
    args: [set('abc', 'xyz'), 'xy'],
    want: true,
  },
  {
    name: 'any_prefix_match is false for empty collections',
    fn: 'strings.any_prefix_match',
    args: [[], ['a']],
    want: false,
  },
  {
    name: 'any_suffix_match matches an array of suffixes',
    fn: 'strings.any_suffix_match',
    args: ['foo.bar', ['x', '.bar']],
    want: true,
  },
  { name: 'count counts non-overlapping matches', fn: 'strings.count', args: ['11111', '11'], want: 2 },
  { name: 'count of empty is runes plus one', fn: 'strings.count', args: ['dummy', ''], want: 6 },
  {
    name: 'replace_n prefers the earlier key in sorted order',
    fn: 'strings.replace_n',
    args: [obj({ a: '1', aa: '2' }), 'aaa'],
    want: '111',
  },
  {
    name: 'replace_n replaces without re-scanning output',
    fn: 'strings.replace_n',
    args: [obj({ a: 'b', b: 'a' }), 'ab'],
    want: 'ba',
  },
  { name: 'reverse reverses code points', fn: 'strings.reverse', args: ['a😀b'], want: 'b😀a' },
];

describe('string builtins', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(call(fn, ...args)).toEqual(want);
  });
});

interface ErrCase {
  name: string;
  fn: string;
  args: Value[];
  type: typeof OperandError | typeof BuiltinError;
  message: string;
}

const errors: ErrCase[] = [
  {
    name: 'concat rejects non-string elements',
    fn: 'concat',
    args: [',', [1]],
    type: OperandError,
    message: 'operand 2 must be array of strings but got array containing number',
  },
  {
    name: 'concat rejects a string collection',
    fn: 'concat',
    args: [',', 'x'],
    type: OperandError,
    message: 'operand 2 must be one of {set, array} but got string',
  },
  {
    name: 'format_int rejects other bases',
    fn: 'format_int',
    args: [4.1, 199],
    type: OperandError,
    message: 'operand 2 must be one of {2, 8, 10, 16}',
  },
  {
    name: 'indexof rejects an empty needle',
    fn: 'indexof',
    args: ['x', ''],
    type: BuiltinError,
    message: 'empty search character',
  },
  {
    name: 'indexof_n rejects an empty needle',
    fn: 'indexof_n',
    args: ['x', ''],
    type: BuiltinError,
    message: 'empty search character',
  },
  {
    name: 'substring rejects a negative offset',
    fn: 'substring',
    args: ['aaa', -1, -1],
    type: BuiltinError,
    message: 'negative offset',
  },
  {
    name: 'substring rejects a fractional offset',
    fn: 'substring',
    args: ['aaa', 1.5, 1],
    type: OperandError,
    message: 'operand 2 must be integer number but got floating-point number',
  },
  {
    name: 'any_prefix_match rejects numbers',
    fn: 'strings.any_prefix_match',
    args: [1, 'x'],
    type: OperandError,
    message: 'operand 1 must be one of {string, set, array} but got number',
  },
  {
    name: 'any_suffix_match rejects mixed arrays',
    fn: 'strings.any_suffix_match',
    args: ['x', ['a', 2]],
    type: OperandError,
    message: 'operand 2 must be array of strings but got array containing number',
  },
  {
    name: 'replace_n rejects non-string values',
    fn: 'strings.replace_n',
    args: [obj({ a: 1 }), 'x'],
    type: OperandError,
    message: 'operand 1 non-string value found in pattern object',
  },
  {
    name: 'replace_n rejects non-string keys',
    fn: 'strings.replace_n',
    args: [RObject.from([[1, 'a']]), 'x'],
    type: OperandError,
    message: 'operand 1 non-string key found in pattern object',
  },
  {
    name: 'lower rejects non-strings',
    fn: 'lower',
    args: [1],
    type: OperandError,
    message: 'operand 1 must be string but got number',
  },
  {
    name: 'split_n rejects a fractional count',
    fn: 'strings.split_n',
    args: ['a.b', '.', 1.5],
    type: OperandError,
    message: 'operand 3 must be integer number but got floating-point number',
  },
  {
    name: 'split_n rejects a string count',
    fn: 'strings.split_n',
    args: ['a.b', '.', '1'],
    type: OperandError,
    message: 'operand 3 must be number but got string',
  },
  {
    name: 'split_n rejects a non-string delimiter',
    fn: 'strings.split_n',
    args: ['a.b', 1, 1],
    type: OperandError,
    message: 'operand 2 must be string but got number',
  },
];

describe('string builtin errors', () => {
  it.each(errors)('$name', ({ fn, args, type, message }) => {
    expect(() => call(fn, ...args)).toThrow(type);
    expect(() => call(fn, ...args)).toThrow(message);
  });
});

describe('strings.render_template (text/template subset)', () => {
  it.each([
    { name: 'substitutes a field', tpl: '{{.test}}', vars: obj({ test: 'hello world' }), want: 'hello world' },
    {
      name: 'prints numbers as their JSON text',
      tpl: '{{.n}} {{.f}}',
      vars: obj({ n: 2023, f: 1.5 }),
      want: '2023 1.5',
    },
    {
      name: 'ranges with index and value and a condition',
      tpl: '{{range $i, $name := .names}}{{if $i}},{{end}}hello {{$name}}{{end}}',
      vars: obj({ names: ['rohan', 'john doe'] }),
      want: 'hello rohan,hello john doe',
    },
    { name: 'trims whitespace around - markers', tpl: 'a  {{- .x -}}  b', vars: obj({ x: 1 }), want: 'a1b' },
    { name: 'skips comments', tpl: 'a{{/* note */}}b', vars: obj({}), want: 'ab' },
    {
      name: 'uses else if chains',
      tpl: '{{if eq .x "a"}}A{{else if eq .x "b"}}B{{else}}C{{end}}',
      vars: obj({ x: 'b' }),
      want: 'B',
    },
    {
      name: 'ranges over maps in key order with else',
      tpl: '{{range $k, $v := .m}}{{$k}}={{$v}};{{else}}none{{end}}',
      vars: obj({ m: obj({ b: 2, a: 1 }) }),
      want: 'a=1;b=2;',
    },
    {
      name: 'prints composites as Go does',
      tpl: '{{.a}} {{.m}}',
      vars: obj({ a: ['x', 1], m: obj({ k: null }) }),
      want: '[x 1] map[k:<nil>]',
    },
    {
      name: 'evaluates functions and pipes',
      tpl: '{{len .l}} {{index .l 1}} {{.s | printf "%q"}} {{not true}}',
      vars: obj({ l: [1, 2], s: 'x' }),
      want: '2 2 "x" false',
    },
    { name: 'binds variables with with', tpl: '{{with $x := .a}}{{$x}}{{end}}', vars: obj({ a: 'v' }), want: 'v' },
  ])('$name', ({ tpl, vars, want }) => {
    expect(call('strings.render_template', tpl, vars)).toBe(want);
  });

  it('fails on a missing key as Go does with missingkey=error', () => {
    expect(() => call('strings.render_template', 'x {{.missing}}', obj({}))).toThrow(
      'template: template:1:4: executing "template" at <.missing>: map has no entry for key "missing"',
    );
  });

  it('fails to parse an unknown function', () => {
    expect(() => call('strings.render_template', '{{foo .x}}', obj({}))).toThrow('function "foo" not defined');
  });

  it('fails on an unclosed action', () => {
    expect(() => call('strings.render_template', 'a {{ .x', obj({ x: 1 }))).toThrow(BuiltinError);
  });
});
