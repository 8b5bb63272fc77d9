import { describe, expect, it } from 'vitest';
import { BuiltinError, OperandError } from '../../errors.js';
import type { Value } from '../../value.js';
import { register } from './glob.js';
import { BuiltinRegistry, type BuiltinContext } from '../registry.js';

const registry = new BuiltinRegistry();
register(registry);
const ctx: BuiltinContext = { strict: false, nowNs: () => 0n, cache: new Map(), checkDeadline() {}, charge() {} };

function match(pattern: string, delimiters: Value, value: string): Value | undefined {
  return registry.get('glob.match')!.impl([pattern, delimiters, value], ctx);
}

const cases = [
  { name: '* stops at the . delimiter', pattern: '*.github.com', delims: ['.'], value: 'api.github.com', want: true },
  {
    name: '* does not cross a delimiter',
    pattern: '*.github.com',
    delims: ['.'],
    value: 'api.cdn.github.com',
    want: false,
  },
  { name: '** crosses delimiters', pattern: 'api.**.com', delims: ['.'], value: 'api.cdn.github.com', want: true },
  { name: 'an empty delimiter list means "."', pattern: '*', delims: [], value: 'foo.bar', want: false },
  { name: 'null delimiters mean none', pattern: '*', delims: null, value: 'foo.bar', want: true },
  { name: 'custom delimiters apply', pattern: '*:github:com', delims: [':'], value: 'api:github:com', want: true },
  { name: '? matches one non-delimiter', pattern: '?at', delims: ['f'], value: 'fat', want: false },
  { name: '? needs exactly one character', pattern: '?at', delims: [], value: 'at', want: false },
  { name: 'character lists match', pattern: '[abc]at', delims: [], value: 'cat', want: true },
  { name: 'negated lists exclude', pattern: '[!abc]at', delims: [], value: 'cat', want: false },
  { name: 'ranges match', pattern: '[a-c]at', delims: [], value: 'bat', want: true },
  { name: 'negated ranges match outside', pattern: '[!a-c]at', delims: [], value: 'fat', want: true },
  { name: 'lists ignore delimiters', pattern: 'a[.]b', delims: ['.'], value: 'a.b', want: true },
  { name: 'alternatives match any branch', pattern: '{cat,bat,[fr]at}', delims: [], value: 'rat', want: true },
  { name: 'alternatives need a whole branch', pattern: '{cat,bat,[fr]at}', delims: [], value: 'at', want: false },
  { name: 'alternatives may be empty', pattern: 'a{,b}', delims: [], value: 'a', want: true },
  { name: 'nested alternatives work', pattern: '{a{b,c},d}x', delims: [], value: 'acx', want: true },
  { name: 'an unclosed brace still alternates', pattern: '{a,b', delims: [], value: 'b', want: true },
  { name: 'a closing brace outside braces is literal', pattern: 'a}', delims: [], value: 'a}', want: true },
  { name: 'escapes make specials literal', pattern: '\\*\\?', delims: [], value: '*?', want: true },
  { name: 'an escaped star is not a wildcard', pattern: 'a\\*', delims: [], value: 'ab', want: false },
  { name: 'a trailing backslash is dropped', pattern: 'a\\', delims: [], value: 'a', want: true },
  { name: 'the empty pattern matches only the empty string', pattern: '', delims: [], value: '', want: true },
  { name: 'runes, not UTF-16 units, are matched', pattern: '?', delims: [], value: '😀', want: true },
  { name: 'delimiters may be any single rune', pattern: '*', delims: ['😀'], value: 'a😀b', want: false },
];

describe('glob.match', () => {
  it.each(cases)('$name', ({ pattern, delims, value, want }) => {
    expect(match(pattern, delims, value)).toBe(want);
  });
});

const errors = [
  {
    name: 'an unterminated range is an error',
    pattern: '[a-',
    delims: [],
    type: BuiltinError,
    message: 'unexpected end of input',
  },
  {
    name: 'an empty list is an error',
    pattern: '[]',
    delims: [],
    type: BuiltinError,
    message: 'could not parse range',
  },
  {
    name: 'a reversed range is an error',
    pattern: '[z-a]',
    delims: [],
    type: BuiltinError,
    message: "hi character 'a' should be greater than lo 'z'",
  },
  {
    name: 'two ranges in one bracket are an error',
    pattern: '[a-z0-9]',
    delims: [],
    type: BuiltinError,
    message: 'expected close range character',
  },
  {
    name: 'delimiters must be an array or null',
    pattern: '*',
    delims: 'x',
    type: OperandError,
    message: 'operand 2 must be one of {array, null} but got string',
  },
  {
    name: 'delimiters must be single runes',
    pattern: '*',
    delims: ['ab'],
    type: OperandError,
    message: 'operand 2 must be array of runes but got array containing string',
  },
  {
    name: 'delimiters must be strings',
    pattern: '*',
    delims: [1],
    type: OperandError,
    message: 'operand 2 must be array of strings but got array containing number',
  },
];

describe('glob.match errors', () => {
  it.each(errors)('$name', ({ pattern, delims, type, message }) => {
    expect(() => match(pattern, delims as Value, 'x')).toThrow(type);
    expect(() => match(pattern, delims as Value, 'x')).toThrow(message);
  });
});

describe('glob.quote_meta', () => {
  it.each([
    { name: 'escapes stars', input: '*.github.com', want: '\\*.github.com' },
    { name: 'escapes every special', input: '*?\\[]{}', want: '\\*\\?\\\\\\[\\]\\{\\}' },
    { name: 'leaves commas and dashes', input: 'a,b-c!', want: 'a,b-c!' },
  ])('$name', ({ input, want }) => {
    expect(registry.get('glob.quote_meta')!.impl([input], ctx)).toBe(want);
  });
});
