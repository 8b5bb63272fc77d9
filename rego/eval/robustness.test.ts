import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../engine.js';
import { RegoError } from '../errors.js';

/** Expression snippets over x, y, input and a few rules; combined at random into rule bodies. */
const EXPRS = [
  'x := input.xs[_]',
  'some y in input.xs',
  'x > 1',
  'y == x',
  'not q[x]',
  'count(input.xs) > 0',
  'z := {k: v | some k, v in input.m}',
  'w := [a | some a in input.xs; a != 2]',
  'every e in input.xs { e > 0 }',
  'q[y]',
  'r := f(x)',
  'x = y',
  'input.m[k] == 1',
  't := $"v={x}"',
  'u := object.get(input.m, "a", 0)',
  'x in input.xs',
];

const program = fc.array(fc.constantFrom(...EXPRS), { minLength: 1, maxLength: 5 }).map(
  (body) => `package t
q contains v if some v in input.xs
f(a) := a + 1
p contains [x] if {
  ${body.join('\n  ')}
}
`,
);

describe('evaluator robustness', () => {
  it('either rejects a program with a compile error or evaluates it without internal errors', () => {
    fc.assert(
      fc.property(program, (src) => {
        let policy;
        try {
          policy = compile([{ name: 'p.rego', source: src }]);
        } catch (e) {
          expect(e).toBeInstanceOf(RegoError);
          return;
        }
        try {
          policy.evalRef('data.t.p', {
            input: { xs: [1, 2, 3], m: { a: 1, b: 2 } },
            maxSteps: 100_000,
            deadlineMs: 1000,
          });
        } catch (e) {
          expect(e).toBeInstanceOf(RegoError);
        }
      }),
      { numRuns: 400 },
    );
  });
});
