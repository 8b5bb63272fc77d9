import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';

/** Registration and management of webhooks (`/api/v1/webhooks`), with private targets refused (the default). */
let gw: TestGateway;
let orchestrator: TestOrchestrator;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway({ policyPack: false });
  orchestrator = await startTestOrchestrator(gw);
  app = orchestrator.app;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const as = (key: string) => ({ 'x-license-key': key });
const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, key: string, payload?: Record<string, unknown>) =>
  app.inject({ method, url, headers: as(key), ...(payload ? { payload } : {}) });
const URL_A = 'https://hooks.example.com/steward';

describe('webhook registrations', () => {
  let id: string;

  it('registers a webhook and answers it unwrapped with 201', async () => {
    const res = await call('POST', '/api/v1/webhooks', gw.keys.acme, {
      url: URL_A,
      events: ['plan.completed', 'plan.failed'],
      secret: 's3cret-value',
      active: true,
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: URL_A,
      events: ['plan.completed', 'plan.failed'],
      active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    id = body.id;
  });

  it('generates a secret when none is sent, and returns it once', async () => {
    const res = await call('POST', '/api/v1/webhooks', gw.keys.acme, { url: `${URL_A}/2`, events: ['step.completed'] });
    expect(res.json()).toMatchObject({ secret: expect.stringMatching(/^whsec_/), active: true });
    const got = await call('GET', `/api/v1/webhooks/${res.json().id}`, gw.keys.acme);
    expect(got.json().secret).toBeUndefined();
    await call('DELETE', `/api/v1/webhooks/${res.json().id}`, gw.keys.acme);
  });

  it("lists the organization's webhooks as {webhooks, total}", async () => {
    const res = await call('GET', '/api/v1/webhooks', gw.keys.acme);
    expect(res.json()).toMatchObject({ total: 1, webhooks: [{ id, url: URL_A }] });
  });

  it('changes a webhook with PUT (the fields sent) and shows it with GET', async () => {
    const res = await call('PUT', `/api/v1/webhooks/${id}`, gw.keys.acme, {
      active: false,
      events: ['step.completed'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, url: URL_A, active: false, events: ['step.completed'] });
    expect((await call('GET', `/api/v1/webhooks/${id}`, gw.keys.acme)).json()).toMatchObject({ active: false });
  });

  it('answers an empty delivery log for a new webhook', async () => {
    expect((await call('GET', `/api/v1/webhooks/${id}/deliveries`, gw.keys.acme)).json()).toEqual({
      deliveries: [],
      total: 0,
    });
  });

  it.each([
    ['a non-http scheme', 'ftp://hooks.example.com/x'],
    ['a loopback address', 'http://127.0.0.1:8080/x'],
    ['a loopback address in decimal', 'http://2130706433/x'],
    ['an IPv6 loopback address', 'http://[::1]/x'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a private address', 'http://10.0.0.7/x'],
    ['localhost', 'http://localhost:9000/x'],
  ])('refuses %s with 400 INVALID_REQUEST', async (_name, url) => {
    const res = await call('POST', '/api/v1/webhooks', gw.keys.acme, { url, events: ['plan.completed'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { fields: [{ field: 'url' }] } });
    const put = await call('PUT', `/api/v1/webhooks/${id}`, gw.keys.acme, { url });
    expect(put.statusCode).toBe(400);
  });

  it('refuses unknown events', async () => {
    const res = await call('POST', '/api/v1/webhooks', gw.keys.acme, { url: URL_A, events: ['plan.exploded'] });
    expect(res.statusCode).toBe(400);
  });

  it('answers 403 "Feature not available in tier" to a Professional organization', async () => {
    for (const [method, url] of [
      ['POST', '/api/v1/webhooks'],
      ['GET', '/api/v1/webhooks'],
      ['GET', `/api/v1/webhooks/${id}/deliveries`],
    ] as const) {
      const res = await call(
        method,
        url,
        gw.keys.globex,
        method === 'POST' ? { url: URL_A, events: ['plan.completed'] } : undefined,
      );
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({
        code: 'FEATURE_NOT_AVAILABLE',
        message: 'Feature not available in tier',
      });
    }
  });

  it('deletes a webhook; it is gone afterwards', async () => {
    expect((await call('DELETE', `/api/v1/webhooks/${id}`, gw.keys.acme)).statusCode).toBe(200);
    const res = await call('GET', `/api/v1/webhooks/${id}`, gw.keys.acme);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('WEBHOOK_NOT_FOUND');
  });
});
