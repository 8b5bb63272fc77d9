import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { RegoEvalError, RegoLimitError } from '../errors.js';
import { parseJSON, RSet, toJSONText, type Value } from '../value.js';

function evalRef(src: string, ref: string, input?: unknown, data?: unknown): string | undefined {
  const p = compile([{ name: 'policy.rego', source: src }], data === undefined ? {} : { data });
  const v = p.evalRef(ref, input === undefined ? {} : { input });
  return v === undefined ? undefined : toJSONText(v);
}

const cases: { name: string; src: string; ref?: string; input?: unknown; data?: unknown; want: string | undefined }[] =
  [
    {
      name: 'is undefined (not false) when a complete rule has no true body and no default',
      src: 'package t\np if input.x == 1',
      want: undefined,
    },
    {
      name: 'uses the default when no body succeeds',
      src: 'package t\ndefault p := false\np if input.x == 1',
      input: { x: 2 },
      want: 'false',
    },
    {
      name: 'treats a false expression as failure and 0 as success',
      src: 'package t\np if { input.zero }\nq if { input.f }',
      ref: 'data.t',
      input: { zero: 0, f: false },
      want: '{"p":true}',
    },
    {
      name: 'collects a partial set over all solutions',
      src: 'package t\ns contains x if some x in input.xs',
      input: { xs: [3, 1, 3] },
      ref: 'data.t.s',
      want: '[1,3]',
    },
    {
      name: 'builds a partial object',
      src: 'package t\no[k] := v if some k, v in input.m',
      input: { m: { a: 1, b: 2 } },
      ref: 'data.t.o',
      want: '{"a":1,"b":2}',
    },
    {
      name: 'merges general ref heads with overlapping literal refs',
      src: 'package t\np[q].r := i if some i, q in ["a", "b"]\np.c.r := 9',
      ref: 'data.t.p',
      want: '{"a":{"r":0},"b":{"r":1},"c":{"r":9}}',
    },
    {
      name: 'picks the first else branch whose body succeeds',
      src: 'package t\np := 1 if input.x == 1 else := 2 if input.x == 2 else := 3',
      input: { x: 2 },
      want: '2',
    },
    {
      name: 'calls a function with several definitions by pattern',
      src: 'package t\nf(1) := "one"\nf(x) := "many" if x > 1\np := [f(1), f(5)]',
      want: '["one","many"]',
    },
    { name: 'negates an expression', src: 'package t\np if not input.blocked', input: {}, want: 'true' },
    {
      name: 'checks every element with every',
      src: 'package t\np if every x in input.xs { x > 0 }',
      input: { xs: [1, 2] },
      want: 'true',
    },
    {
      name: 'fails every when one element fails',
      src: 'package t\np if every x in input.xs { x > 1 }',
      input: { xs: [1, 2] },
      want: undefined,
    },
    {
      name: 'replaces input with with',
      src: 'package t\nq if input.x == 1\np if q with input.x as 1',
      input: { x: 0 },
      want: 'true',
    },
    {
      name: 'replaces data with with',
      src: 'package t\nq := data.cfg.level\np := v if v := q with data.cfg.level as 7',
      want: '7',
    },
    {
      name: 'mocks a function with with',
      src: 'package t\nf(x) := x\ng(x) := x * 10\np := y if { y := f(2) with f as g }',
      want: '20',
    },
    {
      name: 'destructures arrays and objects in unification',
      src: 'package t\np := [a, b] if { [a, {"k": b}] = [1, {"k": 2}] }',
      want: '[1,2]',
    },
    {
      name: 'binds both sides of an array unification',
      src: 'package t\np := [x, y] if { [x, 2] = [1, y] }',
      want: '[1,2]',
    },
    { name: 'keeps integers beyond 2^53 exact', src: 'package t\np := 9007199254740993', want: '9007199254740993' },
    {
      name: 'merges base data with rules',
      src: 'package t\np := 1',
      ref: 'data.t',
      data: { t: { base: true } },
      want: '{"base":true,"p":1}',
    },
    {
      name: 'builds object comprehensions',
      src: 'package t\np := {k: y | some k, v in input; y := v * 2}',
      input: { a: 1 },
      want: '{"a":2}',
    },
    {
      name: 'renders template strings, undefined parts as <undefined>',
      src: 'package t\np := $"a={input.a} b={input.b}"',
      input: { a: 1 },
      want: '"a=1 b=<undefined>"',
    },
    {
      name: 'matches each pattern one call site sees',
      src: 'package t\np contains pat if { some pat in input.pats; regex.match(pat, "abc") }',
      input: { pats: ['^a', '^z', 'c$', '('] },
      want: '["^a","c$"]',
    },
    {
      name: 'shadows outer variables inside comprehensions declared with :=',
      src: 'package t\np := [x, y] if { x := 1; y := [x | x := 2][0] }',
      want: '[1,2]',
    },
    // runRule: a body runs without continuations up to its first enumerating expression, then on the general path
    {
      name: 'enumerates after a deterministic prefix of a rule body',
      src: 'package t\np contains x if { y := 2; some x in [1, 2, 3]; x >= y }',
      want: '[2,3]',
    },
    {
      name: 'stops at a failing deterministic expression before the enumeration',
      src: 'package t\np contains x if { input.on; some x in [1, 2] }',
      input: { on: false },
      want: '[]',
    },
    {
      name: 'binds a parameter named twice once and compares the second',
      src: 'package t\nf(x, x) := "same"\nf(x, y) := "different" if x != y\np := [f(1, 1), f(1, 2)]',
      want: '["same","different"]',
    },
    {
      name: 'matches constant and pattern parameters',
      src: 'package t\ng(1, y) := y\nh([a, b]) := a + b\np := [g(1, "one"), h([2, 3])]\nq := g(2, "two")',
      ref: 'data.t',
      want: '{"p":["one",5]}',
    },
    {
      name: "takes a function's else branch when its deterministic body fails",
      src: 'package t\nf(x) := "big" if x > 10 else := "small"\np := [f(11), f(1)]',
      want: '["big","small"]',
    },
  ];

describe('evaluator', () => {
  it.each(cases)('$name', ({ src, ref, input, data, want }) => {
    expect(evalRef(src, ref ?? 'data.t.p', input, data)).toBe(want);
  });

  it.each([
    [
      'complete rules produce different values',
      'package t\np := 1\np := 2',
      'complete rules must not produce multiple outputs',
    ],
    [
      'a partial object gets two values for one key',
      'package t\no[k] := v if { some v in [1, 2]; k := "a" }',
      'object keys must be unique',
    ],
    [
      'a function returns two values for the same input',
      'package t\nf(_) := 1\nf(_) := 2\np := f(0)',
      'functions must not produce multiple outputs for same inputs',
    ],
  ])('raises eval_conflict_error when %s', (_n, src, msg) => {
    const p = compile([{ name: 'policy.rego', source: src }]);
    expect(() => p.evalRef('data.t')).toThrow(RegoEvalError);
    try {
      p.evalRef('data.t');
    } catch (e) {
      expect((e as RegoEvalError).code).toBe('eval_conflict_error');
      expect((e as RegoEvalError).message).toContain(msg);
      expect((e as RegoEvalError).message).toMatch(/^policy\.rego:\d+: eval_conflict_error: /);
    }
  });

  it('returns query bindings with the user variable names', () => {
    const p = compile([{ name: 'policy.rego', source: 'package t\nxs := [1, 2]' }]);
    const rs = p.query('x := data.t.xs[i]');
    expect(rs.map((b) => [toJSONText(b.i!), toJSONText(b.x!)])).toEqual([
      ['0', '1'],
      ['1', '2'],
    ]);
  });

  it('makes builtin errors undefined unless strict', () => {
    const p = compile([{ name: 'policy.rego', source: 'package t\np := x if x := 1 / input.zero' }]);
    expect(p.evalRef('data.t.p', { input: { zero: 0 } })).toBeUndefined();
    expect(() => p.evalRef('data.t.p', { input: { zero: 0 }, strict: true })).toThrow(/eval_builtin_error: div/);
  });

  it('accepts input as a Value parsed with big integers intact', () => {
    const p = compile([{ name: 'policy.rego', source: 'package t\np := input.n + 0' }]);
    const input: Value = parseJSON('{"n": 12345678901234567890}');
    expect(toJSONText(p.evalRef('data.t.p', { input })!)).toBe('12345678901234567890');
  });

  describe('iterations `out = coll[key]` run as a loop (IterIR)', () => {
    // `with` sends an expression down the general (continuation) path: the two rules differ only in the path taken.
    const src = `package t
loop contains [k, v] if { v := input.coll[k]; v != "skip" }
general contains [k, v] if { v := input.coll[k] with input.unused as 1; v != "skip" }
first := v if { some v in input.coll; v == "b" }
nested contains [i, j, x] if { row := input.rows[i]; x := row[j] }
`;
    const p = compile([{ name: 'policy.rego', source: src }]);
    const fewestSteps = (ref: string, input: unknown): number => {
      for (let n = 1; n < 1000; n++) {
        try {
          p.evalRef(ref, { input, maxSteps: n });
          return n;
        } catch (e) {
          if (!(e instanceof RegoLimitError)) throw e;
        }
      }
      throw new Error('no step budget found');
    };

    it.each([
      ['an array', ['a', 'skip', 'b']],
      ['an object', { x: 'a', y: 'skip', z: 'b' }],
      ['a set (as a Value)', RSet.from(['a', 'skip', 'b'])],
      ['an empty collection', []],
      ['a scalar (no solutions)', 'abc'],
    ])('gives the general path’s solutions and step count over %s', (_n, coll) => {
      const input = { coll };
      expect(toJSONText(p.evalRef('data.t.loop', { input })!)).toBe(
        toJSONText(p.evalRef('data.t.general', { input })!),
      );
      expect(fewestSteps('data.t.loop', input)).toBe(fewestSteps('data.t.general', input));
    });

    it('stops at the first solution a complete rule needs and unbinds its vars', () => {
      expect(p.evalRef('data.t.first', { input: { coll: ['a', 'b', 'c'] } })).toBe('b');
      expect(toJSONText(p.evalRef('data.t.nested', { input: { rows: [['p'], ['q', 'r']] } })!)).toBe(
        '[[0,0,"p"],[1,0,"q"],[1,1,"r"]]',
      );
    });
  });
});
