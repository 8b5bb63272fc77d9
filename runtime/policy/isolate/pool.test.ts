import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../platform/log.js';
import type { PlanEntry } from '../plan.js';
import { IsolatePool } from './pool.js';

const PLAN: [string, PlanEntry[]][] = [
  [
    'pre-check',
    [
      {
        module: { name: 'size.rego', source: 'package t.size\n\ndeny contains "long" if count(input.query) > 5\n' },
        strict: true,
      },
    ],
  ],
];

describe('the isolation pool', () => {
  let pool: IsolatePool | undefined;
  afterEach(() => pool?.close());

  // The start delay is an hour: only the job can have started the workers.
  it('starts its workers for the first job rather than waiting for its start delay', { timeout: 60_000 }, async () => {
    pool = new IsolatePool(createLogger({ level: 'silent' }), { workers: 1, startDelayMs: 3_600_000 });
    pool.load(PLAN);
    const outcome = await pool.evaluate(
      'pre-check',
      { query: 'a long query', surface: 'pre-check' },
      { deadlineMs: 5_000, maxSteps: 100_000 },
    );
    expect(outcome).toMatchObject({ result: { decisions: [expect.objectContaining({ deny: ['long'] })] } });
  });

  it('starts its workers for ready()', { timeout: 60_000 }, async () => {
    pool = new IsolatePool(createLogger({ level: 'silent' }), { workers: 1, startDelayMs: 3_600_000 });
    pool.load(PLAN);
    await pool.ready();
    expect(
      await pool.evaluate('pre-check', { query: 'ok', surface: 'pre-check' }, { deadlineMs: 5_000, maxSteps: 100_000 }),
    ).toMatchObject({ result: {} });
  });
});
