/**
 * Compile-time type errors as OPA reports them: code `rego_type_error`, OPA's message, the
 * position of the offending expression, and OPA's have/want (or left/right) detail lines.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { RegoCompileError, type Diagnostic } from '../errors.js';

function errorsOf(body: string, experimentalKeywords = false): Diagnostic[] {
  try {
    compile([{ name: 'policy.rego', source: `package t\n\n${body}\n` }], { experimentalKeywords });
  } catch (e) {
    if (e instanceof RegoCompileError) return [...e.errors];
    throw e;
  }
  return [];
}

const show = (ds: Diagnostic[]): string => ds.map((d) => `${d.code} ${d.row}:${d.col} ${d.message}`).join('; ');

// [name, policy body (line 3 onwards), message, row, col]
const typeErrors: [string, string, string, number, number][] = [
  ['count of a number', 'p := count(1)', 'count: invalid argument(s)', 3, 6],
  ['count of a boolean', 'p := count(true)', 'count: invalid argument(s)', 3, 6],
  ['count of null', 'p := count(null)', 'count: invalid argument(s)', 3, 6],
  ['upper of a number', 'p := upper(1)', 'upper: invalid argument(s)', 3, 6],
  ['lower of an array', 'p := lower(["a"])', 'lower: invalid argument(s)', 3, 6],
  ['concat with a number delimiter', 'p := concat(1, ["a"])', 'concat: invalid argument(s)', 3, 6],
  ['concat of numbers', 'p := concat(",", [1])', 'concat: invalid argument(s)', 3, 6],
  ['concat of a string', 'p := concat(",", "ab")', 'concat: invalid argument(s)', 3, 6],
  ['startswith on a number', 'p := startswith(1, "a")', 'startswith: invalid argument(s)', 3, 6],
  ['endswith with a number suffix', 'p := endswith("a", 1)', 'endswith: invalid argument(s)', 3, 6],
  ['contains on a set', 'p := contains({"a"}, "a")', 'contains: invalid argument(s)', 3, 6],
  ['split on a number', 'p := split("a,b", 1)', 'split: invalid argument(s)', 3, 6],
  ['replace with a number', 'p := replace("a", "b", 1)', 'replace: invalid argument(s)', 3, 6],
  ['substring with a string offset', 'p := substring("abc", "1", 2)', 'substring: invalid argument(s)', 3, 6],
  [
    'strings.split_n with a string count',
    'p := strings.split_n("a.b", ".", "1")',
    'strings.split_n: invalid argument(s)',
    3,
    6,
  ],
  ['sprintf with a non-array', 'p := sprintf("%v", 1)', 'sprintf: invalid argument(s)', 3, 6],
  ['format_int of a string', 'p := format_int("1", 10)', 'format_int: invalid argument(s)', 3, 6],
  ['sum of an object', 'p := sum({"a": 1})', 'sum: invalid argument(s)', 3, 6],
  ['sum of strings', 'p := sum(["a"])', 'sum: invalid argument(s)', 3, 6],
  ['max of a number', 'p := max(1)', 'max: invalid argument(s)', 3, 6],
  ['sort of a number', 'p := sort(1)', 'sort: invalid argument(s)', 3, 6],
  ['abs of a string', 'p := abs("1")', 'abs: invalid argument(s)', 3, 6],
  ['adding a string', 'p := 1 + "a"', 'plus: invalid argument(s)', 3, 6],
  ['multiplying a string', 'p := "a" * 2', 'mul: invalid argument(s)', 3, 6],
  ['subtracting from an array', 'p := [1] - 1', 'minus: invalid argument(s)', 3, 6],
  ['dividing by a boolean', 'p := 1 / true', 'div: invalid argument(s)', 3, 6],
  ['remainder by a string', 'p := 5 % "2"', 'rem: invalid argument(s)', 3, 6],
  ['union of a set and an array', 'p := {1} | [1]', 'or: invalid argument(s)', 3, 6],
  ['intersection with a number', 'p := {1} & 1', 'and: invalid argument(s)', 3, 6],
  ['object.get on a number', 'p := object.get(1, "a", 0)', 'object.get: invalid argument(s)', 3, 6],
  ['object.keys of an array', 'p := object.keys([1])', 'object.keys: invalid argument(s)', 3, 6],
  ['object.union with an array', 'p := object.union({}, [1])', 'object.union: invalid argument(s)', 3, 6],
  ["adding to json.marshal's string", 'p := json.marshal(1) + 1', 'plus: invalid argument(s)', 3, 6],
  ['base64.encode of a number', 'p := base64.encode(1)', 'base64.encode: invalid argument(s)', 3, 6],
  ['regex.match on a number', 'p := regex.match(1, "a")', 'regex.match: invalid argument(s)', 3, 6],
  ['adding a string to time.now_ns()', 'p := time.now_ns() + "a"', 'plus: invalid argument(s)', 3, 6],
  ['array.concat with a set', 'p := array.concat([1], {2})', 'array.concat: invalid argument(s)', 3, 6],
  ['array.slice of a string', 'p := array.slice("abc", 0, 1)', 'array.slice: invalid argument(s)', 3, 6],
  [
    'net.cidr_contains on a number',
    'p := net.cidr_contains(1, "10.0.0.1")',
    'net.cidr_contains: invalid argument(s)',
    3,
    6,
  ],
  ['unifying a number var with a string', 'p if { x := 1; x = "a" }', 'match error', 3, 16],
  ['unifying arrays of different shapes', 'p if { [1, 2] = [1, "a", 3] }', 'match error', 3, 8],
  ['unifying objects with different value types', 'p if { {"a": 1} = {"a": "b"} }', 'match error', 3, 8],
  ['adding a number to a string var', 'p if { x := "a"; x + 1 > 0 }', 'plus: invalid argument(s)', 3, 18],
  [
    'a destructured number passed to upper',
    'p if { [a, b] := [1, "x"]; upper(a) }',
    'upper: invalid argument(s)',
    3,
    28,
  ],
  ["an object member's type", 'p if { x := {"a": 1}; lower(x.a) }', 'lower: invalid argument(s)', 3, 23],
  ['some-in over numbers', 'p if { some x in [1, 2]; startswith(x, "a") }', 'startswith: invalid argument(s)', 3, 26],
  ['every over numbers', 'p if { every x in [1, 2] { startswith(x, "a") } }', 'startswith: invalid argument(s)', 3, 28],
  ['inside an array comprehension', 'p := [x | some x in [1, 2]; upper(x)]', 'upper: invalid argument(s)', 3, 29],
  [
    'inside an object comprehension',
    'p := {k: v | some k, v in {"a": 1}; upper(v)}',
    'upper: invalid argument(s)',
    3,
    37,
  ],
  ["a complete rule's number", 'q := 1\np := upper(q)', 'upper: invalid argument(s)', 4, 6],
  ["a multi-value rule's set", 'q contains 1\np := upper(q)', 'upper: invalid argument(s)', 4, 6],
  [
    'a boolean rule with a default',
    'default q := false\nq if input.x\np := upper(q)',
    'upper: invalid argument(s)',
    5,
    6,
  ],
  ["a function's inferred argument type", 'f(x) := x + 1\np := f("a")', 'data.t.f: invalid argument(s)', 4, 6],
  [
    'a function passing its argument to concat',
    'f(x) := concat(",", x)\np := f([1])',
    'data.t.f: invalid argument(s)',
    4,
    6,
  ],
  ["a function's result type", 'f(x) := 1\np := upper(f(2))', 'upper: invalid argument(s)', 4, 6],
];

describe('type errors at compile time', () => {
  it('covers at least 40 cases', () => {
    expect(typeErrors.length).toBeGreaterThanOrEqual(40);
  });

  it.each(typeErrors)('reports %s', (_name, body, message, row, col) => {
    const errs = errorsOf(body);
    expect(
      errs.map((d) => [d.code, d.message, d.row, d.col]),
      show(errs),
    ).toEqual([['rego_type_error', message, row, col]]);
  });

  it.each([
    [
      'count(1)',
      'p := count(1)',
      ['have: (number, ???)', 'want: (any<string, array[any], object[any: any], set[any]>, number)'],
    ],
    [
      'concat(",", [1])',
      'p := concat(",", [1])',
      ['have: (string, array<number>, ???)', 'want: (string, any<array[string], set[string]>, string)'],
    ],
    [
      'upper(a) used as a condition',
      'p if { [a, b] := [1, "x"]; upper(a) }',
      ['have: (number)', 'want: (string, string)'],
    ],
    ['x = "a" for a number x', 'p if { x := 1; x = "a" }', ['left  : number', 'right : string']],
  ])("gives OPA's detail lines for %s", (_name, body, details) => {
    expect(errorsOf(body as string)[0]?.details).toEqual(details);
  });

  it.each([
    [
      'a key a local object lacks',
      'p if { x := {"a": 1}; x.b == 1 }',
      'undefined ref: x.b',
      23,
      ['x.b', '  ^', '  have: "b"', '  want (one of): ["a"]'],
    ],
    [
      "a key a rule's object lacks",
      'q := {"a": 1, "c": 2}\np if data.t.q.b == 1',
      'undefined ref: data.t.q.b',
      6,
      ['data.t.q.b', '         ^', '         have: "b"', '         want (one of): ["a" "c"]'],
    ],
    [
      'a nested key',
      'p if { x := {"a": {"b": 1}}; x.a.c == 1 }',
      'undefined ref: x.a.c',
      30,
      ['x.a.c', '    ^', '    have: "c"', '    want (one of): ["b"]'],
    ],
    [
      'an index past a fixed-length array',
      'p if { x := [1, 2]; x[5] == 1 }',
      'undefined ref: x[5]',
      21,
      ['x[5]', '  ^', '  have: 5', '  want (type): number'],
    ],
    ['a key of a number', 'p if { x := 1; x.a == 1 }', 'undefined ref: x.a', 16, ['x.a', '^', 'have: number']],
  ])('reports an undefined ref: %s', (_name, body, message, col, details) => {
    const errs = errorsOf(body as string);
    expect(errs.map((d) => [d.code, d.message, d.col, d.details])).toEqual([
      ['rego_type_error', message, col, details],
    ]);
  });

  it('reports an undefined ref once, without the argument errors it causes', () => {
    const errs = errorsOf('p if { x := {"a": 1}; concat(x.b, 1) }');
    expect(errs.map((d) => d.message)).toEqual(['undefined ref: x.b']);
  });

  it('prints the detail lines in the error text as OPA does', () => {
    expect(() => compile([{ name: 'policy.rego', source: 'package t\np := upper(1)\n' }])).toThrow(
      'policy.rego:2: rego_type_error: upper: invalid argument(s)\n\thave: (number, ???)\n\twant: (string, string)',
    );
  });

  it('renders the detail lines after the caret', () => {
    const [d] = errorsOf('p := upper(1)');
    expect(d?.rendered).toBe(
      'policy.rego:3:6: upper: invalid argument(s)\np := upper(1)\n     ^\n\thave: (number, ???)\n\twant: (string, string)',
    );
  });

  it('reports every faulty expression, in source order', () => {
    const errs = errorsOf('p := upper(1)\nq := lower(2)');
    expect(errs.map((d) => [d.message, d.row])).toEqual([
      ['upper: invalid argument(s)', 3],
      ['lower: invalid argument(s)', 4],
    ]);
  });

  it.each([
    ['input is of any type', 'p := upper(input.x)'],
    ['input may be a collection', 'p := count(input)'],
    ['a rule built from input is of any type', 'q := input.x\np := upper(q)'],
    ['one input value may be used as a string and a collection', 'p if { x := input.a; upper(x); count(x) }'],
    ['a function returning its argument has any result', 'f(x) := x\np := upper(f(1))'],
    ['a set built from input holds any values', 'p := {x | some x in input.xs}\nq := upper(p[_])'],
    ['a union is accepted when a member fits', 'p := count([1, "a"][_])'],
    ['comparisons take any types', 'p if { "a" > 1 }'],
    ['equality takes any types', 'p if { 1 == "a" }'],
    ['a var of several types may be passed where one fits', 'p := [upper(x) | some x in ["a", 1]; is_string(x)]'],
    ['a var key ranges over a known object', 'p if { x := {"a": 1}; some k; x[k] == 1 }'],
    ['a partial object rule has dynamic keys', 'q[k] := 1 if some k in ["a"]\np if data.t.q.zz == 1'],
  ])('accepts a policy where %s', (_name, body) => {
    expect(show(errorsOf(body))).toBe('');
  });
});
