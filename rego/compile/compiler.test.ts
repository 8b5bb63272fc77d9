import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { RegoCompileError, type Diagnostic } from '../errors.js';

function errorsOf(source: string, regoVersion: 'v0' | 'v1' = 'v1'): Diagnostic[] {
  try {
    compile([{ name: 'policy.rego', source, regoVersion }]);
  } catch (e) {
    if (e instanceof RegoCompileError) return [...e.errors];
    throw e;
  }
  return [];
}

describe('compile checks', () => {
  it.each([
    [
      'reports an unsafe var with its position',
      'package t\np if {\n\tx == 2\n}',
      'rego_unsafe_var_error',
      'var x is unsafe',
      3,
      2,
    ],
    [
      'reports an unsafe var in the rule head',
      'package t\np := x if { true }',
      'rego_unsafe_var_error',
      'var x is unsafe',
      2,
      6,
    ],
    [
      'names the rule when another rule shares its line',
      'package t\np if { x == 2 } q if { true }',
      'rego_unsafe_var_error',
      'var x is unsafe in rule p',
      2,
      8,
    ],
    ['rejects recursion between rules', 'package t\np if q\nq if p', 'rego_recursion_error', 'is recursive', 2, 1],
    [
      'rejects a complete rule and a function of the same name',
      'package t\np := 1\np(x) := x',
      'rego_type_error',
      'conflicting rules data.t.p found',
      2,
      1,
    ],
    [
      'rejects two default rules',
      'package t\ndefault p := 1\ndefault p := 2',
      'rego_type_error',
      'multiple default rules data.t.p found',
      3,
      1,
    ],
    ['rejects an undefined function', 'package t\np if nope(1)', 'rego_type_error', 'undefined function nope', 2, 6],
    [
      'rejects too many arguments',
      'package t\np if count([1], 2, 3)',
      'rego_type_error',
      'count: too many arguments',
      2,
      6,
    ],
    [
      'rejects an unsupported builtin clearly',
      'package t\np := http.send({"url": "x"})',
      'rego_type_error',
      'builtin http.send is not supported by Steward',
      2,
      6,
    ],
    [
      'rejects deprecated builtins in v1',
      'package t\np if any([true])',
      'rego_type_error',
      'deprecated built-in function calls in expression: any',
      2,
      6,
    ],
    [
      'rejects redeclaring a var',
      'package t\np if { x := 1; x := 2 }',
      'rego_compile_error',
      'var x assigned above',
      2,
      16,
    ],
    [
      'rejects declaring a var after using it',
      'package t\np if { x == 1; x := 1 }',
      'rego_compile_error',
      'var x referenced above',
      2,
      16,
    ],
    [
      'rejects shadowing input',
      'package t\np if { input := 1 }',
      'rego_compile_error',
      'variables must not shadow input',
      2,
      8,
    ],
    [
      'rejects a mock with another arity',
      'package t\nf(x) := x\ng(x, y) := x\np := z if { z := f(1) with f as g }',
      'rego_type_error',
      'data.t.f: arity mismatch',
      4,
      23,
    ],
    [
      'rejects a print of an undeclared var',
      'package t\np if {\n\tsome x\n\tprint(x)\n}',
      'rego_compile_error',
      'var x is undeclared',
      4,
      8,
    ],
  ])('%s', (_name, src, code, msg, row, col) => {
    const errs = errorsOf(src as string);
    const e = errs.find((d) => d.message.includes(msg as string));
    expect(e, `got ${errs.map((d) => `${d.code} ${d.row}:${d.col} ${d.message}`).join('; ')}`).toBeDefined();
    expect(e!.code).toBe(code);
    expect([e!.row, e!.col]).toEqual([row, col]);
  });

  it('renders a diagnostic as file:row:col, the source line and a caret', () => {
    const [e] = errorsOf('package t\np if {\n\tx == 2\n}');
    expect(e!.rendered).toBe('policy.rego:3:2: var x is unsafe\n\tx == 2\n\t^');
  });

  it('words the error like OPA: file:row: code: message', () => {
    try {
      compile([{ name: 'policy.rego', source: 'package t\np if { x == 2 }' }]);
      expect.fail('expected a compile error');
    } catch (e) {
      expect((e as Error).message).toBe('1 error occurred: policy.rego:2: rego_unsafe_var_error: var x is unsafe');
    }
  });

  it('accepts a mocked unsupported builtin and fails only unmocked calls', () => {
    const p = compile([
      {
        name: 'policy.rego',
        source:
          'package t\nmock(_) := {"body": 1}\nq := http.send({"url": "u"}).body\np := x if { x := q with http.send as mock }',
      },
    ]);
    expect(p.evalRef('data.t.p')).toBe(1);
    expect(p.evalRef('data.t.q')).toBeUndefined();
    expect(() => p.evalRef('data.t.q', { strict: true })).toThrow(/not supported by Steward/);
  });

  it('reorders a body so that vars are bound before use', () => {
    const p = compile([{ name: 'policy.rego', source: 'package t\np := y if { y > 1; y = x + 1; x = 2 }' }]);
    expect(p.evalRef('data.t.p')).toBe(3);
  });
});
