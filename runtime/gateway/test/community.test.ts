import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';

let gw: TestGateway;
let clock = new Date('2026-11-21T12:00:00Z');

beforeAll(async () => {
  gw = await startTestGateway({ licensed: false, now: () => clock, env: { STEWARD_RATE_LIMIT_PER_MINUTE: '1000' } });
});
afterAll(async () => {
  await gw?.close();
});

const precheck = (query: string, extra: Record<string, unknown> = {}) =>
  gw.app.inject({
    method: 'POST',
    url: '/api/policy/pre-check',
    payload: { client_id: 'app', user_token: 'user-1', query, data_sources: [], ...extra },
  });

describe('pre-check in community mode (no credentials)', () => {
  it.each([
    { name: 'a US SSN', query: 'My social security number is 123-45-6789, can you check my benefits?' },
    { name: 'a card number', query: 'Charge my card 4111-1111-1111-1111 for the booking' },
    { name: 'UNION SELECT injection', query: 'Show orders for id 1 UNION SELECT username, password FROM users' },
    { name: 'a stacked DROP TABLE', query: "Find customer Smith'; DROP TABLE customers; --" },
  ])('blocks $name with 200 approved=false and a block reason', async ({ query }) => {
    const res = await precheck(query);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      approved: false,
      policies: expect.arrayContaining([expect.any(String)]),
      block_reason: expect.any(String),
    });
    expect(body.context_id).toMatch(/^ctx_/);
    expect(body.block_reason).not.toContain('123-45-6789');
  });

  it('approves "What is the weather tomorrow?" with the reference fields and a five-minute expiry', async () => {
    const res = await precheck('What is the weather tomorrow?');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ approved: true, policies: [] });
    expect(body).not.toHaveProperty('block_reason');
    expect(new Date(body.expires_at).getTime() - clock.getTime()).toBe(300_000);
  });

  it('records an audit entry for an approved context and commits it before answering', async () => {
    const { context_id } = (await precheck('What is the weather tomorrow?')).json();
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      payload: {
        context_id,
        client_id: 'app',
        provider: 'openai',
        model: 'gpt-4o',
        response_summary: 'Sunny',
        token_usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
        latency_ms: 420,
        metadata: { sdk: 'typescript' },
      },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, recorded: true, audit_id: expect.stringMatching(/^aud_/) });
    const entry = await gw.store.audit.get('community', body.audit_id);
    expect(entry).toMatchObject({
      contextId: context_id,
      model: 'gpt-4o',
      response: 'Sunny',
      totalTokens: 15,
      promptTokens: 12,
    });
  });

  it("accepts the reference's audit field names too", async () => {
    const { context_id } = (await precheck('What is the weather tomorrow?')).json();
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      payload: {
        client_id: 'app',
        user_token: 'user-1',
        context_id,
        prompt: 'weather?',
        response: 'Sunny',
        model: 'm',
        latency_ms: 5,
        tokens: { prompt: 2, completion: 1 },
      },
    });
    const entry = await gw.store.audit.get('community', res.json().audit_id);
    expect(entry).toMatchObject({ prompt: 'weather?', totalTokens: 3 });
  });

  it.each([
    {
      name: 'an unknown context',
      payload: { context_id: 'ctx_nope', client_id: 'app' },
      status: 404,
      code: 'CONTEXT_NOT_FOUND',
    },
    { name: 'no context_id', payload: { client_id: 'app' }, status: 400, code: 'INVALID_REQUEST' },
    { name: 'a body that is not an object', payload: [1, 2], status: 400, code: 'INVALID_REQUEST' },
  ])('refuses an audit with $name', async ({ payload, status, code }) => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/audit/llm-call', payload });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ success: false, code, error: expect.any(String) });
  });

  it("refuses an audit naming another client's context with 403", async () => {
    const { context_id } = (await precheck('hello')).json();
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      payload: { context_id, client_id: 'other-app' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('refuses an audit after the context expired', async () => {
    const { context_id } = (await precheck('hello')).json();
    const saved = clock;
    clock = new Date(clock.getTime() + 301_000);
    try {
      const res = await gw.app.inject({
        method: 'POST',
        url: '/api/audit/llm-call',
        payload: { context_id, client_id: 'app' },
      });
      expect(res.statusCode).toBe(410);
      expect(res.json().code).toBe('CONTEXT_EXPIRED');
    } finally {
      clock = saved;
    }
  });

  it('names every missing pre-check field', async () => {
    const res = await gw.app.inject({ method: 'POST', url: '/api/policy/pre-check', payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/client_id.*user_token.*query/);
  });

  it('tests policies without recording a context', async () => {
    const before = await gw.store.db.query<{ n: string }>('SELECT count(*) AS n FROM precheck_contexts');
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/policies/test',
      payload: { query: 'SSN 123-45-6789', context: {} },
    });
    expect(res.json()).toMatchObject({
      approved: false,
      triggered_policies: expect.arrayContaining([expect.any(String)]),
      evaluation_time_ms: expect.any(Number),
    });
    const after = await gw.store.db.query<{ n: string }>('SELECT count(*) AS n FROM precheck_contexts');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});

describe('health, metrics and clients in community mode', () => {
  it('says community mode on /health with status healthy', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/health' });
    expect(res.json()).toMatchObject({
      status: 'healthy',
      mode: 'community',
      warnings: [expect.stringContaining('community mode')],
    });
  });

  it('reports agent_metrics with blocked requests counted', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/metrics' });
    const m = res.json().agent_metrics;
    expect(m.total_requests).toBeGreaterThan(5);
    expect(m.blocked_requests).toBeGreaterThanOrEqual(4);
    expect(m).toMatchObject({
      p50_ms: expect.any(Number),
      p99_ms: expect.any(Number),
      rps: expect.any(Number),
      success_rate: expect.any(Number),
      uptime_seconds: expect.any(Number),
    });
    expect(res.json().health).toEqual({ status: 'healthy', healthy: true });
  });

  it('serves Prometheus text', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/metrics/prometheus' });
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('# TYPE steward_http_requests_total counter');
  });

  it('creates a client whose API key is shown once and lists it without the key', async () => {
    const created = await gw.app.inject({
      method: 'POST',
      url: '/api/clients',
      payload: { name: 'Travel Web', description: 'booking site' },
    });
    expect(created.statusCode).toBe(201);
    const c = created.json();
    expect(c).toMatchObject({
      id: expect.stringMatching(/^cli_/),
      name: 'Travel Web',
      api_key: expect.stringMatching(/^client-travel-web-prod-/),
    });
    const list = await gw.app.inject({ method: 'GET', url: '/api/clients' });
    expect(list.json().clients).toContainEqual(expect.objectContaining({ id: c.id, name: 'Travel Web' }));
    expect(list.body).not.toContain(c.api_key);
  });

  it('sends X-RateLimit headers on metered responses', async () => {
    const res = await precheck('hello');
    expect(res.headers['x-ratelimit-limit']).toBe('1000');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(1000);
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
  });
});
