import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RegoParseError } from '../errors.js';
import { parseModule } from './module.js';

const TOKENS = [
  'package',
  'import',
  'p',
  'q',
  'x',
  'data',
  'input',
  'if',
  'contains',
  'else',
  'default',
  'not',
  'some',
  'every',
  'in',
  'with',
  'as',
  ':=',
  '=',
  '==',
  '!=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '.',
  ',',
  ';',
  ':',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '"s"',
  '`raw`',
  '$"t{x}"',
  '1',
  '1.5e3',
  '-2',
  'true',
  'false',
  'null',
  '_',
  '#c\n',
  '\n',
  ' ',
  '\t',
];

/** Parses and requires that any failure is a positioned RegoParseError. */
function parseOrPositionedError(src: string): void {
  try {
    parseModule('policy.rego', src);
  } catch (e) {
    expect(e).toBeInstanceOf(RegoParseError);
    const err = e as RegoParseError;
    expect(err.errors.length).toBeGreaterThan(0);
    for (const d of err.errors) {
      expect(d.row).toBeGreaterThanOrEqual(1);
      expect(d.col).toBeGreaterThanOrEqual(1);
      expect(d.rendered.startsWith(`policy.rego:${d.row}:${d.col}: `)).toBe(true);
    }
  }
}

describe('parser robustness', () => {
  it('never throws anything but a positioned RegoParseError on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => parseOrPositionedError(s)),
      { numRuns: 500 },
    );
  });

  it('never throws anything but a positioned RegoParseError on Rego-like token soup', () => {
    const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((ts) => `package p\n${ts.join(' ')}`);
    fc.assert(
      fc.property(soup, (s) => parseOrPositionedError(s)),
      { numRuns: 1000 },
    );
  });

  it('rejects pathological nesting with a parse error instead of overflowing the stack', () => {
    const deep = `package p\nx := ${'['.repeat(5000)}${']'.repeat(5000)}`;
    const t0 = performance.now();
    expect(() => parseModule('policy.rego', deep)).toThrow(RegoParseError);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('parses deeply backtracking input in bounded time', () => {
    const src = `package p\nx := ${'[['.repeat(200)}1${']]'.repeat(200)} + 1`;
    const t0 = performance.now();
    parseOrPositionedError(src);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('parser', () => {
  it.each([
    ['a complete rule with if', 'package p\nallow if input.x == 1', 1],
    ['a multi-value rule with contains', 'package p\ndeny contains msg if { msg := "no" }', 1],
    ['a function with two bodies', 'package p\nf(x) := 1 if x > 0\nf(x) := 2 if x <= 0', 2],
    ['an else chain', 'package p\np := 1 if false else := 2', 1],
    ['a general ref head', 'package p\na.b[c].d := 1 if c := "k"', 1],
    ['a default rule', 'package p\ndefault allow := false', 1],
    ['a template string', 'package p\nmsg := $"hello {input.name}"', 1],
    ['a v0 partial set', 'package p\nq[x] { x := 1 }', 1],
  ])('parses %s', (_name, src, rules) => {
    const v0 = src.includes('{ x := 1 }') && !src.includes('if');
    const m = parseModule('policy.rego', src as string, { regoVersion: v0 ? 'v0' : 'v1' });
    expect(m.rules).toHaveLength(rules as number);
  });

  it.each([
    ['a v1 rule body without if', 'package p\np { true }', '`if` keyword is required before rule body', 2, 1],
    [
      'a v1 partial set without contains',
      'package p\np[x] { x := 1 }',
      '`contains` keyword is required for partial set rules',
      2,
      1,
    ],
    ['an unterminated string', 'package p\nx := "abc', 'non-terminated string', 2, 10],
    ['a missing package', 'p := 1', 'package expected', 1, 1],
  ])('reports %s with its position', (_name, src, msg, row, col) => {
    try {
      parseModule('policy.rego', src as string);
      expect.fail('expected a parse error');
    } catch (e) {
      const d = (e as RegoParseError).errors.find((x) => x.message.includes(msg as string));
      expect(d, `no error mentions ${msg}`).toBeDefined();
      expect([d!.row, d!.col]).toEqual([row, col]);
    }
  });

  it('renders errors as file:row:col, the line and a caret', () => {
    try {
      parseModule('policy.rego', 'package p\n\nx := [1, 2');
      expect.fail('expected a parse error');
    } catch (e) {
      const r = (e as RegoParseError).errors[0]!.rendered;
      const [head, line, caret] = r.split('\n');
      expect(head).toMatch(/^policy\.rego:3:\d+: /);
      expect(line).toBe('x := [1, 2');
      expect(caret!.trimEnd()).toMatch(/^ *\^$/);
    }
  });
});
