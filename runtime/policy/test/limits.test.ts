import { afterEach, describe, expect, it } from 'vitest';
import { ask, closeEngine, policy, startEngine } from './harness.js';

/** Counts to 100,000: far more steps than a budget of 1,000 allows, far fewer than the default 1,000,000. */
const SPIN = (pkg: string) =>
  `package ${pkg}\ndeny contains "never" if {\n  n := count([x | some x in numbers.range(1, 100000)])\n  n < 0\n}\n`;
const BLOCK_WORD = (pkg: string, word: string) =>
  `package ${pkg}\ndeny contains "found ${word}" if contains(input.query, "${word}")\n`;

afterEach(closeEngine);

describe("a Policy's own limits", () => {
  it('stops the policy with a tiny step budget (fail closed) while another policy of the set runs on the default', async () => {
    const e = await startEngine(
      policy('tight', { priority: 200, limits: { maxSteps: 1000 } }, SPIN('p.tight')) +
        policy('roomy', { priority: 100 }, SPIN('p.roomy')),
    );
    const r = ask(e, 'hi');
    expect(r).toMatchObject({
      approved: false,
      blockReason: 'tight: evaluation failed (step budget exceeded)',
      triggered: ['tight'],
      evaluated: ['tight', 'roomy'],
    });
    expect(e.failureCounts()).toEqual([{ policy: 'tight', class: 'step_budget', value: 1 }]);
  });

  it("gives a policy a larger step budget than the engine's default", async () => {
    const e = await startEngine(
      policy('big', { limits: { maxSteps: 5_000_000 } }, SPIN('p.big')) +
        policy('small', {}, BLOCK_WORD('p.small', 'x')),
      { limits: { deadlineMs: 60_000, maxSteps: 1000 } },
    );
    expect(ask(e, 'hi')).toMatchObject({ approved: true, evaluated: ['big', 'small'] });
    expect(ask(e, 'x')).toMatchObject({ approved: false, blockReason: 'small: found x' });
  });

  it('keeps the priority order of decisions across groups of different limits', async () => {
    const e = await startEngine(
      policy('low', { priority: 10 }, BLOCK_WORD('p.low', 'x')) +
        policy('mid', { priority: 50, limits: { deadlineMs: 5000 } }, BLOCK_WORD('p.mid', 'x')) +
        policy('high', { priority: 90, limits: { maxSteps: 100_000 } }, BLOCK_WORD('p.high', 'x')),
    );
    expect(ask(e, 'x')).toMatchObject({ blockReason: 'high: found x', evaluated: ['high', 'mid', 'low'] });
  });
});
