import { afterEach, describe, expect, it } from 'vitest';
import { PolicyFailureLog } from '../failures.js';
import { PolicyInputTooLargeError } from '../input-size.js';
import { ask, closeEngine, policy, startEngine } from './harness.js';

afterEach(closeEngine);

const builtinErrors = [
  { name: 'an arithmetic operand of the wrong type', body: 'input.query + 1 > 0' },
  { name: 'a division by zero', body: 'count(input.query) / 0 > 0' },
  { name: 'object.get on a string', body: 'object.get(input.query, "k", 1) == 1' },
  { name: 'to_number of text that is no number', body: 'to_number(input.query) > 0' },
];

describe('policy failures', () => {
  it.each(builtinErrors)('blocks and names the policy and class when a deny rule hits $name', async ({ body }) => {
    const e = await startEngine(policy('fragile', {}, `package p.fragile\ndeny contains "never" if ${body}\n`));
    expect(ask(e, 'garbage')).toMatchObject({
      approved: false,
      blockReason: 'fragile: evaluation failed (builtin error)',
      triggered: ['fragile'],
    });
    expect(e.failureCounts()).toEqual([{ policy: 'fragile', class: 'builtin_error', value: 1 }]);
  });

  it.each(builtinErrors)(
    'keeps OPA non-strict semantics (undefined, approved) for $name when the policy opts out',
    async ({ body }) => {
      const e = await startEngine(
        policy('lenient', { strictBuiltinErrors: false }, `package p.lenient\ndeny contains "never" if ${body}\n`),
      );
      expect(ask(e, 'garbage')).toMatchObject({ approved: true, triggered: [] });
      expect(e.failureCounts()).toEqual([]);
    },
  );

  it('evaluates strict and opted-out policies together in priority order', async () => {
    const e = await startEngine(
      policy(
        'lenient',
        { strictBuiltinErrors: false, priority: 300 },
        'package p.lenient\ndeny contains "never" if to_number(input.query) > 0\ndeny contains "lenient found x" if contains(input.query, "x")\n',
      ) +
        policy(
          'strict',
          { priority: 200 },
          'package p.strict\ndeny contains "strict found x" if contains(input.query, "x")\n',
        ) +
        policy(
          'last',
          { priority: 100, strictBuiltinErrors: false },
          'package p.last\ndeny contains "last found x" if contains(input.query, "x")\n',
        ),
    );
    expect(ask(e, 'x')).toMatchObject({
      approved: false,
      blockReason: 'lenient: lenient found x',
      triggered: ['lenient', 'strict', 'last'],
      evaluated: ['lenient', 'strict', 'last'],
    });
  });

  it('blocks on a failure even when the policy only warns or logs', async () => {
    const e = await startEngine(
      policy('soft', { action: 'warn' }, 'package p.soft\nwarn contains "w" if to_number(input.query) > 0\n') +
        policy('quiet', { action: 'log' }, 'package p.quiet\ndeny contains "d" if to_number(input.query) > 0\n'),
    );
    const r = ask(e, 'not a number');
    expect(r.approved).toBe(false);
    expect(r.blockReason).toMatch(/^(soft|quiet): evaluation failed \(builtin error\)$/);
    expect(r.triggered.sort()).toEqual(['quiet', 'soft']);
  });

  it('names the step budget when an evaluation exceeds it', async () => {
    const e = await startEngine(
      policy('busy', {}, 'package p.busy\ndeny contains "n" if { some i in numbers.range(1, 100000); i < 0 }\n'),
      { limits: { deadlineMs: 10_000, maxSteps: 1000 } },
    );
    expect(ask(e, 'q')).toMatchObject({
      approved: false,
      blockReason: 'busy: evaluation failed (step budget exceeded)',
    });
    expect(e.failureCounts()).toEqual([{ policy: 'busy', class: 'step_budget', value: 1 }]);
  });

  it('answers PolicyInputTooLargeError above the input maximum, counting the context text too', async () => {
    const e = await startEngine(policy('any', {}, 'package p.any\ndeny contains "x" if contains(input.query, "x")\n'), {
      inputMaxBytes: 4096,
      inlineMaxBytes: 1024,
    });
    expect(() => e.evaluate({ query: 'é'.repeat(2100), surface: 'pre-check' }, { surface: 'pre-check' })).toThrow(
      PolicyInputTooLargeError,
    );
    expect(() =>
      e.evaluate(
        { query: 'q', surface: 'pre-check', context: { notes: ['a'.repeat(5000)] } },
        { surface: 'pre-check' },
      ),
    ).toThrow(PolicyInputTooLargeError);
    expect(ask(e, 'a'.repeat(300))).toMatchObject({ approved: true });
  });

  it('compiles the set of every named tenant before the first request', async () => {
    const e = await startEngine(
      policy(
        'eu-only',
        { scope: { tenants: ['eu'] } },
        'package p.eu\ndeny contains "eu" if contains(input.query, "y")\n',
      ),
    );
    // the plans exist: a tenant no policy names shares the untenanted plan, a named one has its own
    const plans = (e as unknown as { scopes: { byScope: Map<string, { key: string }> } }).scopes.byScope;
    expect(plans.get('pre-check\u0000\u0000eu')?.key).toBeDefined();
    expect(plans.get('pre-check\u0000\u0000eu')?.key).not.toBe(plans.get('pre-check\u0000\u0000')?.key);
    expect(ask(e, 'y', { surface: 'pre-check', tenantId: 'eu' }).approved).toBe(false);
    expect(ask(e, 'y', { surface: 'pre-check', tenantId: 'elsewhere' }).approved).toBe(true);
  });

  it('applies a policy scoped to organizations to their requests only (dynamic policies), whatever the tenant', async () => {
    const e = await startEngine(
      policy(
        'acme-only',
        { scope: { organizations: ['acme'] } },
        'package p.acme\ndeny contains "acme" if contains(input.query, "y")\n',
      ),
    );
    expect(ask(e, 'y', { surface: 'pre-check', organizationId: 'acme' }).approved).toBe(false);
    expect(ask(e, 'y', { surface: 'pre-check', organizationId: 'acme', tenantId: 'team-a' }).approved).toBe(false);
    expect(ask(e, 'y', { surface: 'pre-check', organizationId: 'globex' }).approved).toBe(true);
    expect(ask(e, 'y', { surface: 'pre-check' }).approved).toBe(true);
  });
});

describe('PolicyFailureLog', () => {
  it('reports a policy as failing at the threshold within the window and recovers when failures age out', () => {
    let now = 0;
    const log = new PolicyFailureLog({ windowMs: 60_000, threshold: 5, now: () => now });
    for (let i = 0; i < 4; i++) log.record('p', 'deadline');
    expect(log.failing()).toEqual([]);
    log.record('p', 'builtin_error');
    expect(log.failing()).toEqual([{ policy: 'p', failures: 5, classes: ['deadline', 'builtin_error'] }]);
    now = 59_999;
    expect(log.failing()).toHaveLength(1);
    now = 60_001;
    expect(log.failing()).toEqual([]);
    expect(log.counts()).toEqual([
      { policy: 'p', class: 'builtin_error', value: 1 },
      { policy: 'p', class: 'deadline', value: 4 },
    ]);
  });

  it('forgets policies that are no longer loaded', () => {
    const log = new PolicyFailureLog();
    log.record('gone', 'deadline');
    log.record('kept', 'deadline');
    log.retain(['kept']);
    expect(log.counts().map((c) => c.policy)).toEqual(['kept']);
  });
});
