import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { createLogger } from '../../../platform/log.js';
import { RegoPolicyEngine } from '../../policy/engine.js';
import { buildGateway } from '../app.js';

const FRAGILE = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: fragile}
spec:
  type: custom
  priority: 5000
  rego: |
    package custom.fragile
    deny contains "no number" if to_number(input.context.amount) > 1000
---
`;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    licensed: false,
    manifests: FRAGILE,
    env: {
      STEWARD_RATE_LIMIT_PER_MINUTE: '10000',
      STEWARD_POLICY_INPUT_MAX_BYTES: '65536',
      STEWARD_POLICY_INLINE_MAX_BYTES: '2048',
    },
  });
  await (gw.parts.deps.policies as RegoPolicyEngine).ready();
});
afterAll(async () => {
  await gw?.close();
});

const precheck = (app: TestGateway['app'], query: string, context: Record<string, unknown> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/policy/pre-check',
    payload: { client_id: 'app', user_token: 'u', query, context },
  });

describe('policy failures at the gateway', () => {
  it('blocks a request whose policy hits a builtin error, naming the policy and the class', async () => {
    const res = await precheck(gw.app, 'pay the invoice', { amount: 'twelve' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ approved: false, block_reason: 'fragile: evaluation failed (builtin error)' });
    expect((await precheck(gw.app, 'pay the invoice', { amount: '12' })).json()).toMatchObject({ approved: true });
  });

  it('turns /health degraded, naming the policy and class, once the policy keeps failing, and counts the failures', async () => {
    for (let i = 0; i < 5; i++) await precheck(gw.app, 'pay', { amount: 'lots' });
    const health = await gw.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({
      status: 'degraded',
      warnings: expect.arrayContaining([expect.stringMatching(/^policy fragile keeps failing .*builtin_error/)]),
    });
    const metrics = await gw.app.inject({ method: 'GET', url: '/metrics/prometheus' });
    const line = metrics.body
      .split('\n')
      .find((l) => l.startsWith('steward_policy_evaluation_failures_total{policy="fragile",class="builtin_error"}'));
    expect(Number(line?.split(' ')[1])).toBeGreaterThanOrEqual(6);
  });

  it('answers 413 POLICY_INPUT_TOO_LARGE when the text to check exceeds the maximum', async () => {
    const res = await precheck(gw.app, 'q', { notes: 'n'.repeat(70_000) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'POLICY_INPUT_TOO_LARGE' });
  });

  it('evaluates an input above the inline threshold on a worker, with the same policies', async () => {
    const filler = 'The quarterly numbers look fine and the team is on track. '.repeat(100);
    expect((await precheck(gw.app, filler, { amount: '1' })).json()).toMatchObject({ approved: true });
    expect((await precheck(gw.app, `${filler} My SSN is 123-45-6789.`, { amount: '1' })).json()).toMatchObject({
      approved: false,
      block_reason: expect.stringMatching(/^builtin-pii: /),
    });
    expect((await precheck(gw.app, filler, { amount: 'many' })).json()).toMatchObject({
      approved: false,
      block_reason: 'fragile: evaluation failed (builtin error)',
    });
  });
});

describe('a hostile evaluation on a worker', () => {
  it('does not stall /health or an ordinary pre-check, and ends blocked as an isolation timeout', async () => {
    const engine = new RegoPolicyEngine({
      source: gw.source,
      log: createLogger({ level: 'silent' }),
      limits: { deadlineMs: 200, maxSteps: 1_000_000 },
      inlineMaxBytes: 2048,
      // a grace long enough that the hostile request is surely still running while the others are answered
      isolation: {
        workers: 1,
        graceMs: 1500,
        workerEntry: new URL('../../policy/isolate/test/hanging-worker.ts', import.meta.url),
      },
    });
    const app = buildGateway({ ...gw.parts.deps, policies: engine });
    try {
      await app.ready();
      await engine.ready();
      let hostileDone = false;
      const hostile = precheck(app, `HANG ${'x'.repeat(4096)}`).then((r) => {
        hostileDone = true;
        return r;
      });
      const health = await app.inject({ method: 'GET', url: '/health' });
      const ordinary = await precheck(app, 'What is the capital of France?');
      expect(hostileDone).toBe(false);
      expect(health.statusCode).toBe(200);
      expect(ordinary.json()).toMatchObject({ approved: true });
      const res = await hostile;
      expect(res.json()).toMatchObject({
        approved: false,
        block_reason: expect.stringMatching(/: evaluation failed \(isolation timeout\)$/),
      });
      // the worker was replaced: large inputs are evaluated again
      await engine.ready();
      expect((await precheck(app, 'fine text '.repeat(400))).json()).toMatchObject({ approved: true });
    } finally {
      await app.close();
      engine.close();
    }
  });
});
