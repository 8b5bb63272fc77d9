import { describe, expect, it } from 'vitest';
import { BuiltinError, OperandError } from '../../errors.js';
import type { Value } from '../../value.js';
import { register } from './regex.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';

const registry = new BuiltinRegistry();
register(registry);
const ctx: BuiltinContext = { strict: false, nowNs: () => 0n, cache: new Map(), checkDeadline() {}, charge() {} };

function call(name: string, ...args: Value[]): Value | undefined {
  return registry.get(name)!.impl(args, ctx);
}

interface Case {
  name: string;
  fn: string;
  args: Value[];
  want: Value;
}

const cases: Case[] = [
  { name: 'match finds a pattern anywhere', fn: 'regex.match', args: ['^[a-z]+\\[[0-9]+\\]$', 'foo[1]'], want: true },
  { name: 'match of an empty pattern is true', fn: 'regex.match', args: ['', 'x'], want: true },
  { name: '$ does not match before a final newline (Go)', fn: 'regex.match', args: ['a$', 'a\n'], want: false },
  { name: 're_match is the deprecated alias', fn: 're_match', args: ['b+', 'abbc'], want: true },
  { name: 'is_valid accepts RE2 syntax', fn: 'regex.is_valid', args: ['(?P<x>a)\\pL'], want: true },
  { name: 'is_valid rejects Perl lookbehind', fn: 'regex.is_valid', args: ['(?<=a)b'], want: false },
  { name: 'is_valid is false for non-strings', fn: 'regex.is_valid', args: [5], want: false },
  { name: 'split keeps a trailing empty part', fn: 'regex.split', args: ['a', 'banana'], want: ['b', 'n', 'n', ''] },
  { name: 'split of a start-anchored match', fn: 'regex.split', args: ['^[a-z]+', 'foobar baz'], want: ['', ' baz'] },
  {
    name: 'split of the whole string gives two empties',
    fn: 'regex.split',
    args: ['^[a-z ]+$', 'foobar baz'],
    want: ['', ''],
  },
  { name: 'split of an empty string is one empty part', fn: 'regex.split', args: ['x', ''], want: [''] },
  {
    name: 'split with an empty-matching pattern splits runes',
    fn: 'regex.split',
    args: ['x*', 'a😀b'],
    want: ['a', '😀', 'b'],
  },
  {
    name: 'find_n -1 returns all matches',
    fn: 'regex.find_n',
    args: ['a.', 'paranormal', -1],
    want: ['ar', 'an', 'al'],
  },
  { name: 'find_n limits the count', fn: 'regex.find_n', args: ['a.', 'paranormal', 2], want: ['ar', 'an'] },
  { name: 'find_n 0 returns nothing', fn: 'regex.find_n', args: ['a.', 'paranormal', 0], want: [] },
  {
    name: 'find_n keeps ^ anchored at the text start',
    fn: 'regex.find_n',
    args: ['^a.', 'abacadaeaf', -1],
    want: ['ab'],
  },
  {
    name: 'find_n skips empty matches after a match',
    fn: 'regex.find_n',
    args: ['a*', 'baaac', -1],
    want: ['', 'aaa', ''],
  },
  {
    name: 'find_all_string_submatch_n returns groups, empty when unmatched',
    fn: 'regex.find_all_string_submatch_n',
    args: ['(a)|(b)', 'ab', -1],
    want: [
      ['a', 'a', ''],
      ['b', '', 'b'],
    ],
  },
  { name: 'replace substitutes every match', fn: 'regex.replace', args: ['-wy-wxxy-', 'w(x*)y', '0'], want: '-0-0-' },
  { name: 'replace expands $1', fn: 'regex.replace', args: ['foo', '(foo)', '$1$1'], want: 'foofoo' },
  {
    name: 'replace expands named groups and $$',
    fn: 'regex.replace',
    args: ['a b', '(?P<x>\\w) (?P<y>\\w)', '${y}$$$x'],
    want: 'b$a',
  },
  { name: 'replace reads $1x as the group named 1x', fn: 'regex.replace', args: ['ab', '(a)', '$1x'], want: 'b' },
  {
    name: 'replace with an empty match inserts between runes',
    fn: 'regex.replace',
    args: ['ab', 'x*', '-'],
    want: '-a-b-',
  },
  {
    name: 'replace skips the empty match right after a match',
    fn: 'regex.replace',
    args: ['baaac', 'a*', '-'],
    want: '-b-c-',
  },
  {
    name: 'replace re-anchors ^ after each match, as OPA 1.20 does',
    fn: 'regex.replace',
    args: ['aaab', '^a', 'x'],
    want: 'xxxb',
  },
  { name: 'replace of $ appends once', fn: 'regex.replace', args: ['abc', '$', '!'], want: 'abc!' },
  {
    name: 'template_match matches a regex part',
    fn: 'regex.template_match',
    args: ['urn:foo:{.*}', 'urn:foo:bar:baz', '{', '}'],
    want: true,
  },
  {
    name: 'template_match quotes the literal parts',
    fn: 'regex.template_match',
    args: ['a.b<[0-9]+>', 'axb12', '<', '>'],
    want: false,
  },
  { name: 'globs_match intersects dots', fn: 'regex.globs_match', args: ['a.a.', '.b.b'], want: true },
  { name: 'globs_match sees disjoint sets', fn: 'regex.globs_match', args: ['[a-z]*', '[0-9]+'], want: false },
  {
    name: 'globs_match keeps the library quirk on trailing stars',
    fn: 'regex.globs_match',
    args: ['abc.*', 'abc'],
    want: false,
  },
  { name: 'globs_match handles escapes', fn: 'regex.globs_match', args: ['a\\*', 'a[*]'], want: true },
  { name: 'globs_match of two empty globs is true', fn: 'regex.globs_match', args: ['', ''], want: true },
];

describe('regex builtins', () => {
  it.each(cases)('$name', ({ fn, args, want }) => {
    expect(call(fn, ...args)).toEqual(want);
  });
});

const errors = [
  {
    name: 'match reports Go parse errors',
    fn: 'regex.match',
    args: ['$^[[[', 'x'],
    type: BuiltinError,
    message: 'error parsing regexp: missing closing ]: `[[[`',
  },
  {
    name: 'replace reports Go parse errors',
    fn: 'regex.replace',
    args: ['foo', '[', '$1'],
    type: BuiltinError,
    message: 'error parsing regexp: missing closing ]: `[`',
  },
  {
    name: 'find_n requires an integer count',
    fn: 'regex.find_n',
    args: ['a', 'a', 1.5],
    type: OperandError,
    message: 'operand 3 must be integer number but got floating-point number',
  },
  {
    name: 'template_match checks delimiter length',
    fn: 'regex.template_match',
    args: ['x', 'x', '{{', '}'],
    type: BuiltinError,
    message: 'start delimiter has to be exactly one character long but is 2 long',
  },
  {
    name: 'template_match rejects unbalanced braces',
    fn: 'regex.template_match',
    args: ['a{b', 'x', '{', '}'],
    type: BuiltinError,
    message: 'unbalanced braces in "a{b"',
  },
  {
    name: 'globs_match reports a leading flag',
    fn: 'regex.globs_match',
    args: ['*', 'a'],
    type: BuiltinError,
    message: "input:*, pos:1, flag '*' must be preceded by a non-flag: the input provided is invalid",
  },
  {
    name: 'globs_match reports an unclosed set',
    fn: 'regex.globs_match',
    args: ['a[b', 'a'],
    type: BuiltinError,
    message: 'input:a[b, pos:3, found [ without matching ]: the input provided is invalid',
  },
];

describe('regex call-site memo', () => {
  it('reuses the pattern compiled at a site only while the pattern is the same', () => {
    const site = { memo: undefined as unknown };
    const at = (pattern: string, text: string) => registry.get('regex.match')!.impl([pattern, text], ctx, site);
    expect(at('^a', 'abc')).toBe(true);
    const first = site.memo;
    expect(at('^a', 'xbc')).toBe(false);
    expect(site.memo).toBe(first);
    expect(at('^x', 'xbc')).toBe(true);
    expect(site.memo).not.toBe(first);
    expect(() => at('(', 'x')).toThrow(BuiltinError);
    expect(at('^x', 'abc')).toBe(false);
    expect(registry.get('regex.replace')!.impl(['a-b', '-', '+'], ctx, site)).toBe('a+b');
  });

  it('keeps no long pattern at a site', () => {
    const site = { memo: undefined as unknown };
    const long = `a{1}${'b?'.repeat(3000)}`;
    expect(registry.get('regex.match')!.impl([long, 'a'], ctx, site)).toBe(true);
    expect(site.memo).toBeUndefined();
  });
});

describe('regex builtin errors', () => {
  it.each(errors)('$name', ({ fn, args, type, message }) => {
    expect(() => call(fn, ...args)).toThrow(type);
    expect(() => call(fn, ...args)).toThrow(message);
  });
});

describe('regex performance bounds', () => {
  // NB: a safety bound (exponential backtracking would not finish), not a speed target.
  it('matches (a+)+$ against 10k characters in linear time', () => {
    const s = `${'a'.repeat(10_000)}!`;
    const t = performance.now();
    expect(call('regex.match', '(a+)+$', s)).toBe(false);
    expect(call('regex.find_n', '(a+)+$', s, -1)).toEqual([]);
    expect(performance.now() - t).toBeLessThan(2000);
  });
});
