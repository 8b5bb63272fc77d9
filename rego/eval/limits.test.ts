import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { RegoEvalError, RegoLimitError } from '../errors.js';
import { RObject, type Value } from '../value.js';

const RUNAWAY = `package t
n := count([1 | some a in input.xs; some b in input.xs; some c in input.xs])
`;

function xs(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

describe('evaluation limits', () => {
  it('stops a runaway comprehension at the step budget', () => {
    const p = compile([{ name: 'policy.rego', source: RUNAWAY }]);
    try {
      p.evalRef('data.t.n', { input: { xs: xs(1000) }, maxSteps: 50_000 });
      expect.fail('expected a limit error');
    } catch (e) {
      expect(e).toBeInstanceOf(RegoLimitError);
      expect((e as RegoLimitError).kind).toBe('steps');
    }
  });

  it('stops a runaway comprehension at the deadline', () => {
    const p = compile([{ name: 'policy.rego', source: RUNAWAY }]);
    const t0 = performance.now();
    try {
      p.evalRef('data.t.n', { input: { xs: xs(1000) }, deadlineMs: 50 });
      expect.fail('expected a limit error');
    } catch (e) {
      expect(e).toBeInstanceOf(RegoLimitError);
      expect((e as RegoLimitError).kind).toBe('deadline');
    }
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('stops close to the deadline when every step is expensive', () => {
    // each iteration reverses a 200 KB text (a few ms): reading the clock every few hundred steps
    // would let the loop run hundreds of ms past its deadline
    const p = compile([
      {
        name: 'policy.rego',
        source: 'package t\nn := count([1 | some i in numbers.range(1, 100000); strings.reverse(input.s) != ""])',
      },
    ]);
    const t0 = performance.now();
    try {
      p.evalRef('data.t.n', { input: { s: 'ab'.repeat(100_000) }, deadlineMs: 50 });
      expect.fail('expected a limit error');
    } catch (e) {
      expect(e).toBeInstanceOf(RegoLimitError);
      expect((e as RegoLimitError).kind).toBe('deadline');
    }
    expect(performance.now() - t0).toBeLessThan(250);
  });

  it('turns pathologically deep recursion into a typed error instead of crashing', () => {
    let deep: Value = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    // an RObject input is used as-is (no conversion), so the depth reaches the evaluator
    const input = RObject.from([['d', deep]]);
    const p = compile([{ name: 'policy.rego', source: 'package t\nn := count([p | walk(input.d, [p, _])])' }]);
    try {
      p.evalRef('data.t.n', { input, deadlineMs: 2000 });
      expect.fail('expected an evaluation error');
    } catch (e) {
      expect(e instanceof RegoEvalError || e instanceof RegoLimitError).toBe(true);
    }
  });

  it('finishes within limits when the policy is well-behaved', () => {
    const p = compile([{ name: 'policy.rego', source: RUNAWAY }]);
    expect(p.evalRef('data.t.n', { input: { xs: xs(10) }, maxSteps: 1_000_000, deadlineMs: 1000 })).toBe(1000);
  });
});
