import { afterEach, describe, expect, it } from 'vitest';
import { policySurface } from '../../../api/index.js';
import type { PolicyInput } from '../types.js';
import { closeEngine, policy, startEngine } from './harness.js';

/**
 * `input.normalized` is added in one place, the engine's evaluate path: every surface gets it, inline and on an
 * isolation worker; only when a policy in scope reads it; and the raw fields stay as sent.
 */
afterEach(closeEngine);

/** Blocks when the normalized texts hold "123-45-6789". */
const READS_NORMALIZED = policy(
  'reads-normalized',
  { priority: 200 },
  `package t.norm
deny contains "normalized SSN" if {
  some t in input.normalized.texts
  contains(t, "123-45-6789")
}
`,
);

/** Blocks when the raw query holds "123-45-6789". */
const READS_RAW = policy(
  'reads-raw',
  { priority: 100 },
  'package t.raw\ndeny contains "raw SSN" if contains(input.query, "123-45-6789")\n',
);

/**
 * Blocks when anything arrives in input.normalized: it must not, for a scope whose policies never read it. NB: the
 * key is built from pieces, so that the engine's textual test does not see that it reads it.
 */
const NEVER_READS = policy(
  'never-reads',
  {},
  'package t.plain\ndeny contains "has the copies" if input[concat("", ["norm", "alized"])]\n',
);

const FULL_WIDTH_SSN = '１２３－４５－６７８９';

describe('input.normalized', () => {
  it.each(policySurface.options.filter((s) => s !== 'llm_output'))(
    'reaches a policy on the %s surface',
    async (surface) => {
      const e = await startEngine(READS_NORMALIZED);
      const input: PolicyInput = { query: `SSN ${FULL_WIDTH_SSN}`, surface, context: {} };
      const r = await e.evaluate(input, { surface });
      expect(r).toMatchObject({ approved: false, blockReason: 'reads-normalized: normalized SSN' });
      expect(input).not.toHaveProperty('normalized');
    },
  );

  it('leaves the raw fields as sent: a policy reading input.query sees the full-width text', async () => {
    const e = await startEngine(READS_NORMALIZED + READS_RAW);
    const ascii = await e.evaluate(
      { query: 'SSN 123-45-6789', surface: 'pre-check', context: {} },
      { surface: 'pre-check' },
    );
    expect(ascii.triggered).toEqual(['reads-normalized', 'reads-raw']);
    const fullWidth = await e.evaluate(
      { query: `SSN ${FULL_WIDTH_SSN}`, surface: 'pre-check', context: {} },
      { surface: 'pre-check' },
    );
    expect(fullWidth.triggered).toEqual(['reads-normalized']);
  });

  it('is not computed for a scope whose policies do not read it, and a caller cannot pass its own', async () => {
    const e = await startEngine(NEVER_READS);
    expect(e.problems()).toEqual([]);
    expect(e.active()).toEqual(['never-reads']);
    const input = {
      query: 'x',
      surface: 'pre-check',
      context: {},
      normalized: { texts: ['forged'], decoded: [] },
    } as PolicyInput;
    expect(await e.evaluate(input, { surface: 'pre-check' })).toMatchObject({ approved: true });
  });

  it('is computed when another policy of the scope reads it (the same policy then sees it)', async () => {
    const e = await startEngine(NEVER_READS + READS_NORMALIZED);
    expect(await e.evaluate({ query: 'x', surface: 'pre-check', context: {} }, { surface: 'pre-check' })).toMatchObject(
      {
        approved: false,
        blockReason: 'never-reads: has the copies',
      },
    );
  });

  it('replaces a normalized field a caller set', async () => {
    const e = await startEngine(READS_NORMALIZED);
    const input = {
      query: 'hello',
      surface: 'pre-check',
      context: {},
      normalized: { texts: ['123-45-6789'], decoded: [] },
    } as PolicyInput;
    expect(await e.evaluate(input, { surface: 'pre-check' })).toMatchObject({ approved: true });
  });

  it('reaches a policy evaluated on an isolation worker (a large input)', { timeout: 60_000 }, async () => {
    const e = await startEngine(READS_NORMALIZED, { isolation: { workers: 1, startDelayMs: 0 }, inlineMaxBytes: 64 });
    await e.ready();
    const outcome = e.evaluate(
      { query: `${'padding '.repeat(20)}SSN ${FULL_WIDTH_SSN}`, surface: 'pre-check', context: {} },
      { surface: 'pre-check' },
    );
    expect(outcome).toBeInstanceOf(Promise);
    expect(await outcome).toMatchObject({ approved: false, blockReason: 'reads-normalized: normalized SSN' });
  });
});
