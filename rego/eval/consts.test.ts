import { describe, expect, it, vi } from 'vitest';
import { compile } from '../engine.js';
import { RegoLimitError } from '../errors.js';
import { ConstDocs } from './consts.js';
import { DocumentEvaluator } from './documents.js';
import type { NodeIR } from './ir.js';

const POLICY = `package t
import rego.v1

words := {"phone", "call"}
shape := sprintf("%s|%s", ["a", "b"])
table := {w: count(w) | some w in words}
uses_table := table.phone + 1
from_input := input.x
via_rule := [from_input, 1]
now := time.now_ns()
plus_one(x) := x + 1
via_fn := plus_one(1)
reads_input(x) := x + input.x
via_input_fn := reads_input(1)
from_base := data.base.x
printed if print("hi")
hits contains w if some w in words
seen contains w if {
	some w in words
	contains(input.q, w)
}
`;

function node(root: NodeIR, name: string): NodeIR {
  return root.children.get('t')!.children.get(name)!;
}

describe('constant documents', () => {
  const p = compile([{ name: 'p.rego', source: POLICY }], { data: { base: { x: 1 } } });
  const consts = new ConstDocs(p.plan.root);

  it.each(['words', 'shape', 'table', 'uses_table', 'via_fn', 'hits'])(
    'treats %s as the same in every evaluation',
    (name) => {
      expect(consts.isConstant(node(p.plan.root, name))).toBe(true);
    },
  );

  it.each(['from_input', 'via_rule', 'now', 'via_input_fn', 'from_base', 'printed', 'seen', 'plus_one'])(
    'recomputes %s in every evaluation',
    (name) => {
      expect(consts.isConstant(node(p.plan.root, name))).toBe(false);
    },
  );

  it('keeps input-dependent rules apart between evaluations', () => {
    expect(p.evalRef('data.t.via_rule', { input: { x: 1 } })).toEqual([1, 1]);
    expect(p.evalRef('data.t.via_rule', { input: { x: 2 } })).toEqual([2, 1]);
    expect(p.evalRef('data.t.via_input_fn', { input: { x: 5 } })).toBe(6);
  });

  it('does not share values computed under with-overrides or function mocks', () => {
    const q = compile([{ name: 'q.rego', source: 'package t\nbase := 1\nc := base + 1\nf(x) := x\nd := f(7)\n' }]);
    expect(q.query('x := data.t.c with data.t.base as 5')).toEqual([{ x: 6 }]);
    expect(q.evalRef('data.t.c')).toBe(2);
    expect(q.query('x := data.t.c with data.t.base as 9')).toEqual([{ x: 10 }]);
    expect(q.query('x := data.t.d with data.t.f as 3')).toEqual([{ x: 3 }]);
    expect(q.evalRef('data.t.d')).toBe(7);
  });

  it('reuses a constant document instead of evaluating its rule again, charging its steps', () => {
    const computed = vi.spyOn(
      DocumentEvaluator.prototype as unknown as { computeDoc(n: NodeIR): unknown },
      'computeDoc',
    );
    const q = compile([
      { name: 'q.rego', source: 'package t\nbig := count([x | some x in numbers.range(1, 500)])\nout := big + 1\n' },
    ]);
    const bigComputed = () => computed.mock.calls.filter(([n]) => n.path.join('.') === 't.big').length;
    expect(q.evalRef('data.t.out', { maxSteps: 5000 })).toBe(501);
    expect(q.evalRef('data.t.out', { maxSteps: 5000 })).toBe(501);
    expect(q.evalRef('data.t.big', { maxSteps: 5000 })).toBe(500);
    expect(bigComputed()).toBe(1);
    // a budget too small to compute it is still too small when the value is stored
    expect(() => q.evalRef('data.t.out', { maxSteps: 50 })).toThrow(RegoLimitError);
    computed.mockRestore();
  });

  it('shares constant documents between evaluations of the same strictness only', () => {
    const computed = vi.spyOn(
      DocumentEvaluator.prototype as unknown as { computeDoc(n: NodeIR): unknown },
      'computeDoc',
    );
    // non-strict, `bad` is undefined (a builtin error); strict, it is an error: one value must never serve the other
    const q = compile([
      {
        name: 'q.rego',
        source: 'package t\nwords := {w | some w in ["a", "b"]}\nbad := to_number("x")\nn := count(words)\n',
      },
    ]);
    const wordsComputed = () => computed.mock.calls.filter(([n]) => n.path.join('.') === 't.words').length;
    expect(q.evalRef('data.t.n', { strict: true })).toBe(2);
    expect(q.evalRef('data.t.n', { strict: true })).toBe(2);
    expect(wordsComputed()).toBe(1);
    expect(q.evalRef('data.t.bad')).toBeUndefined();
    expect(() => q.evalRef('data.t.bad', { strict: true })).toThrow(/eval_builtin_error/);
    expect(q.evalRef('data.t.bad')).toBeUndefined();
    computed.mockRestore();
  });

  it('caches nothing when the evaluation fails', () => {
    const q = compile([{ name: 'q.rego', source: 'package t\nbig := count([x | some x in numbers.range(1, 500)])\n' }]);
    expect(() => q.evalRef('data.t.big', { maxSteps: 50 })).toThrow(RegoLimitError);
    expect(() => q.evalRef('data.t.big', { maxSteps: 50 })).toThrow(RegoLimitError);
    expect(q.evalRef('data.t.big')).toBe(500);
  });
});
