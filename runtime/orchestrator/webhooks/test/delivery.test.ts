import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../../../api/index.js';
import {
  licenseYaml,
  startTestGateway,
  startTestOrchestrator,
  TEST_SIGNING_SECRET,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';
import { Receiver, type Received } from './receiver.js';

/**
 * Delivery of plan events through the orchestrator's emitter: retries until the receiver accepts, signatures a
 * plain HMAC computation verifies, order per plan, the organization of the emit only. Back-off is milliseconds
 * here (the defaults are seconds); private targets are allowed so that the receiver can listen on 127.0.0.1.
 */
const UMBRELLA_KEY = issueLicenseKey({
  tier: 'ENT',
  expiresAt: new Date('2099-01-01T00:00:00Z'),
  secret: TEST_SIGNING_SECRET,
  random: '00002',
});
const SECRET = 'receiver-shared-secret';
const FAST = { allowPrivateTargets: true, baseDelayMs: 20, maxDelayMs: 100, pollIntervalMs: 50, timeoutMs: 2000 };

let gw: TestGateway;
let orchestrator: TestOrchestrator;
let app: FastifyInstance;
let receiver: Receiver | undefined;

beforeAll(async () => {
  gw = await startTestGateway({
    policyPack: false,
    manifests: licenseYaml('umbrella', 'umbrella', 'UMBRELLA_KEY'),
    env: { UMBRELLA_KEY },
  });
  orchestrator = await startTestOrchestrator(gw, { webhooks: { ...FAST, maxAttempts: 5 } });
  app = orchestrator.app;
});
afterEach(async () => {
  // NB: registrations go with their receiver, so that a later receiver on a reused port gets no stray retries.
  const headers = { 'x-license-key': gw.keys.acme };
  for (const { id } of (await app.inject({ method: 'GET', url: '/api/v1/webhooks', headers })).json().webhooks as {
    id: string;
  }[]) {
    await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers });
  }
  await receiver?.close();
  receiver = undefined;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

async function register(
  url: string,
  events: string[],
  key = gw.keys.acme,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: { 'x-license-key': key },
    payload: { url, events, secret: SECRET, ...extra },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id;
}

/** Resolves when the worker has recorded an attempt that ends the delivery (delivered or failed) of webhook `id`. */
const settled = (id: string) =>
  new Promise<void>((resolve) => {
    const off = orchestrator.parts.deps.webhooks.onAttempt((a) => {
      if (a.webhookId === id && a.status !== 'pending') {
        off();
        resolve();
      }
    });
  });

const deliveries = async (id: string, key = gw.keys.acme) =>
  (
    await app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}/deliveries`, headers: { 'x-license-key': key } })
  ).json();

/** The receiver's check: the documented signature, recomputed with node:crypto alone. */
function verify(r: Received, secret: string): Record<string, unknown> {
  const timestamp = r.headers['x-steward-timestamp'] as string;
  const signature = r.headers['x-steward-signature'] as string;
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(body.signature).toBe(signature);
  const unsigned = r.body.replace(`,"signature":${JSON.stringify(signature)}}`, '}');
  expect(signature).toBe(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${unsigned}`).digest('hex')}`);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
  return body;
}

describe('webhook delivery', () => {
  it('delivers on the fourth attempt to a receiver that fails the first three, signed, with every attempt recorded', async () => {
    receiver = await new Receiver((n) => (n <= 3 ? 503 : 200)).start();
    const id = await register(receiver.url, ['plan.completed']);
    const done = settled(id);
    await orchestrator.parts.webhooks.emit('acme', 'plan.completed', {
      planId: 'plan_1',
      status: 'completed',
      totalExecutionTimeMs: 1234,
    });
    await receiver.requests(4);
    await done;
    const last = receiver.received[3]!;
    expect(verify(last, SECRET)).toEqual({
      event: 'plan.completed',
      timestamp: expect.any(String),
      data: { planId: 'plan_1', status: 'completed', totalExecutionTimeMs: 1234 },
      signature: expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
    });
    expect(new Set(receiver.received.map((r) => r.headers['x-steward-delivery'])).size).toBe(1);
    const log = await deliveries(id);
    expect(log.deliveries).toEqual([
      expect.objectContaining({
        event: 'plan.completed',
        status: 'delivered',
        attempts: 4,
        plan_id: 'plan_1',
        response_status: 200,
      }),
    ]);
    expect(log.deliveries[0].attempt_log.map((a: { response_status: number }) => a.response_status)).toEqual([
      503, 503, 503, 200,
    ]);
  });

  it("keeps the order of one plan's events while an earlier one is retried", async () => {
    const seen: string[] = [];
    receiver = await new Receiver((n, body) => {
      const { event, data } = JSON.parse(body) as { event: string; data: { stepId?: string } };
      seen.push(data.stepId ?? event);
      return n <= 2 ? 500 : 200;
    }).start();
    await register(receiver.url, ['step.completed', 'plan.completed']);
    const emit = orchestrator.parts.webhooks;
    await emit.emit('acme', 'step.completed', {
      planId: 'plan_2',
      stepId: 'step_1',
      name: 'search flights',
      status: 'completed',
      timeMs: 10,
    });
    await emit.emit('acme', 'step.completed', {
      planId: 'plan_2',
      stepId: 'step_2',
      name: 'search hotels',
      status: 'completed',
      timeMs: 12,
    });
    await emit.emit('acme', 'plan.completed', { planId: 'plan_2', status: 'completed', totalExecutionTimeMs: 30 });
    await receiver.requests(5);
    expect(seen).toEqual(['step_1', 'step_1', 'step_1', 'step_2', 'plan.completed']);
  });

  it('marks a delivery failed after the attempt limit', async () => {
    receiver = await new Receiver(() => 500).start();
    const id = await register(receiver.url, ['plan.failed']);
    const done = settled(id);
    await orchestrator.parts.webhooks.emit('acme', 'plan.failed', {
      planId: 'plan_3',
      status: 'failed',
      totalExecutionTimeMs: 5,
    });
    await done;
    expect(receiver.received).toHaveLength(5);
    const log = await deliveries(id);
    expect(log.deliveries[0]).toMatchObject({ status: 'failed', attempts: 5, last_error: 'the receiver answered 500' });
  });

  it('sends nothing for events a webhook does not subscribe to, or inactive webhooks', async () => {
    receiver = await new Receiver().start();
    const inactive = await register(receiver.url, ['plan.completed'], gw.keys.acme, { active: false });
    const other = await register(receiver.url, ['plan.failed']);
    await orchestrator.parts.webhooks.emit('acme', 'plan.completed', {
      planId: 'plan_4',
      status: 'completed',
      totalExecutionTimeMs: 1,
    });
    expect((await deliveries(inactive)).total).toBe(0);
    expect((await deliveries(other)).total).toBe(0);
  });
});

describe('identity', () => {
  it("never takes the organization from the body: a registration claiming another organization stays the caller's", async () => {
    receiver = await new Receiver().start();
    const claim = {
      org_id: 'umbrella',
      organization_id: 'umbrella',
      client: { tenant_id: 'umbrella' },
      user: { id: 'u', org_id: 'umbrella' },
    };
    const id = await register(receiver.url, ['plan.completed'], gw.keys.acme, claim);
    const umbrella = await app.inject({
      method: 'GET',
      url: '/api/v1/webhooks',
      headers: { 'x-license-key': UMBRELLA_KEY, 'content-type': 'application/json' },
      payload: JSON.stringify(claim),
    });
    expect(umbrella.json()).toEqual({ webhooks: [], total: 0 });
    const foreign = await app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${id}`,
      headers: { 'x-license-key': UMBRELLA_KEY },
    });
    expect(foreign.statusCode).toBe(404);
    const acme = await app.inject({
      method: 'GET',
      url: '/api/v1/webhooks',
      headers: { 'x-license-key': gw.keys.acme },
    });
    expect(acme.json().webhooks.map((w: { id: string }) => w.id)).toContain(id);
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await app.inject({
        method,
        url: `/api/v1/webhooks/${id}`,
        headers: { 'x-license-key': UMBRELLA_KEY },
        ...(method === 'PUT' ? { payload: { active: false } } : {}),
      });
      expect(res.statusCode).toBe(404);
    }
    // Another organization's plan events never reach it.
    await orchestrator.parts.webhooks.emit('umbrella', 'plan.completed', {
      planId: 'plan_5',
      status: 'completed',
      totalExecutionTimeMs: 1,
    });
    expect((await deliveries(id)).total).toBe(0);
    const foreignLog = await app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${id}/deliveries`,
      headers: { 'x-license-key': UMBRELLA_KEY },
    });
    expect(foreignLog.statusCode).toBe(404);
  });
});
