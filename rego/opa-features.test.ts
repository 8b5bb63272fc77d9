/**
 * Policies written from OPA's documentation and release notes for the language and builtins added
 * since OPA 1.10, evaluated with OPA's documented results and error texts.
 */
import { describe, expect, it } from 'vitest';
import { compile } from './engine.js';
import { RegoCompileError, type Diagnostic } from './errors.js';
import { fromJS, toJS, type Value } from './value.js';

function evalRef(source: string, ref: string, input?: Value, experimentalKeywords = false): unknown {
  const policy = compile([{ name: 'policy.rego', source, regoVersion: 'v1' }], { experimentalKeywords });
  const rs = policy.query(`x = ${ref}`, input === undefined ? {} : { input });
  return rs.length === 0 ? undefined : toJS(rs[0]!.x!);
}

function compileErrors(source: string): Diagnostic[] {
  try {
    compile([{ name: 'policy.rego', source, regoVersion: 'v1' }]);
  } catch (e) {
    if (e instanceof RegoCompileError) return [...e.errors];
    throw e;
  }
  return [];
}

describe('strings.split_n (OPA 1.19 release notes)', () => {
  const policy = `package example

first := strings.split_n("a.b.c.d", ".", 2)
last := strings.split_n("a.b.c.d", ".", -2)
none := strings.split_n("a.b.c.d", ".", 0)
all := strings.split_n("a.b", ".", 5)
`;
  it.each([
    ['first', ['a', 'b']],
    ['last', ['c', 'd']],
    ['none', []],
    ['all', ['a', 'b']],
  ])('evaluates %s as documented', (rule, want) => {
    expect(evalRef(policy, `data.example.${rule}`)).toEqual(want);
  });

  it('is undefined for a fractional count, as a builtin error is', () => {
    expect(evalRef('package example\np := strings.split_n("a.b", ".", 1.5)', 'data.example.p')).toBeUndefined();
  });
});

describe('the right-hand side of := must be safe on its own (OPA 1.19)', () => {
  it.each([
    ['x := y; x = 7', 'package example\n\nallow if {\n\tx := y\n\tx = 7\n}\n', 'var y is unsafe', 4, 2],
    [
      'destructuring [a, b] := [y, 1]; a = 2',
      'package example\n\nallow if {\n\t[a, b] := [y, 1]\n\ta = 2\n}\n',
      'var y is unsafe',
      4,
      2,
    ],
  ])('rejects %s with rego_unsafe_var_error', (_name, source, message, row, col) => {
    const errs = compileErrors(source);
    expect(errs.map((e) => [e.code, e.message, e.row, e.col])).toEqual([['rego_unsafe_var_error', message, row, col]]);
  });

  it.each([
    ['binding y first (the documented rewrite)', 'package example\n\nallow if {\n\ty = 7\n\tx := y\n\tx == 7\n}\n'],
    [
      'y bound by a later expression (bodies are reordered)',
      'package example\n\nallow if {\n\tx := y\n\ty = 7\n\tx == 7\n}\n',
    ],
    [
      'reference iteration on the right side',
      'package example\n\nallow if {\n\tobj := {"a": 7}\n\tsome k\n\tv := obj[k]\n\tv == 7\n}\n',
    ],
  ])('still accepts %s', (_name, source) => {
    expect(evalRef(source, 'data.example.allow')).toBe(true);
  });
});

describe('two-variable membership in a set (OPA 1.19)', () => {
  it('treats a set element as both key and value', () => {
    expect(evalRef('package example\np if { "a", "a" in {"a"} }', 'data.example.p')).toBe(true);
    expect(evalRef('package example\np if { "b", "a" in {"a"} }', 'data.example.p')).toBeUndefined();
  });
});

describe('negated bodies: not { … } (OPA main, import future.keywords.not)', () => {
  const example = `package example

import future.keywords.not

a if f([1, 2, 3])

b if f([1, 0, 3])

c if not {
	true
	false
}

f(lst) if not {
	some x in lst
	x == 0
}
`;
  it('evaluates the example of OPA pull request 8562', () => {
    expect(evalRef(example, 'data.example', undefined, true)).toEqual({ a: true, c: true });
  });

  const xs = (v: number[]): Value => fromJS({ xs: v });
  it.each([
    ['several expressions', 'p if not { some n in input.xs; n > 0; n < 10 }', [20, -1], true],
    [
      'several expressions, one element matching all',
      'p if not { some n in input.xs; n > 0; n < 10 }',
      [20, 5],
      undefined,
    ],
    ['nested not bodies', 'p if not { some n in input.xs; not { n > 0 } }', [1, 2], true],
    ['nested not bodies, one failing', 'p if not { some n in input.xs; not { n > 0 } }', [1, -2], undefined],
    ['every inside a not body', 'p if not { every n in input.xs { n > 0 } }', [1, -2], true],
    ['a not body inside every', 'p if { every n in input.xs { not { n < 0; n > -10 } } }', [1, -20], true],
    ['with inside a not body', 'p if not { input.xs[0] == 1 with input.xs as [2] }', [1], true],
    ['a not body in a comprehension', 'p := [n | some n in input.xs; not { n > 1; n < 3 }]', [1, 2, 3], [1, 3]],
  ])('%s', (_name, rule, input, want) => {
    expect(
      evalRef(`package example\nimport future.keywords.not\n${rule}`, 'data.example.p', xs(input as number[]), true),
    ).toEqual(want);
  });

  it('is a parse error without the future.keywords.not import', () => {
    expect(() =>
      compile([{ name: 'policy.rego', source: 'package example\nc if not { true; false }' }], {
        experimentalKeywords: true,
      }),
    ).toThrow(RegoCompileError);
  });
});

describe('experimental keyword imports by default', () => {
  const module = (imp: string, rule: string) => `package example\nimport future.keywords.${imp}\n${rule}\n`;
  it.each([
    ['not', 'p if not { some n in input.xs; n < 0 }', [1, 2], true],
    ['not', 'p if not { some n in input.xs; n < 0 }', [1, -2], undefined],
    ['and', 'p if { input.xs[0] > 0 and input.xs[1] > 0 }', [1, 2], true],
    ['and', 'p if { input.xs[0] > 0 and input.xs[1] > 0 }', [1, -2], undefined],
    ['or', 'p if { input.xs[0] < 0 or input.xs[1] < 0 }', [1, -2], true],
    ['or', 'p if { input.xs[0] < 0 or input.xs[1] < 0 }', [1, 2], undefined],
  ])('compiles `import future.keywords.%s` without the flag (%s on %j)', (imp, rule, xs, want) => {
    const policy = compile([{ name: 'policy.rego', source: module(imp, rule) }]);
    expect(policy.evalRef('data.example.p', { input: fromJS({ xs }) })).toEqual(want);
  });

  it.each(['and', 'or', 'not'])('rejects `import future.keywords.%s` as OPA does when the flag is false', (imp) => {
    const source = module(imp, 'p := 1');
    expect(() => compile([{ name: 'policy.rego', source }], { experimentalKeywords: false })).toThrow(
      /unexpected keyword, must be one of \[contains, every, if, in\]/,
    );
  });

  it('keeps `and` and `or` plain names in a module that does not import them', () => {
    const source = 'package example\nimport future.keywords\nand := 1\nor := 2\np := and + or\n';
    expect(compile([{ name: 'policy.rego', source }]).evalRef('data.example.p')).toBe(3);
  });

  it('still rejects an unknown future keyword, listing the experimental ones', () => {
    expect(() => compile([{ name: 'policy.rego', source: module('xor', 'p := 1') }])).toThrow(
      /unexpected keyword, must be one of \[and, contains, every, if, in, not, or\]/,
    );
  });
});
