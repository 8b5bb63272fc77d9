import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../testing/llm/index.js';

/** Every gateway endpoint once over a real TCP socket, with a minted license key (licensed mode). */
let gw: TestGateway;
let openai: FakeOpenAiServer;
let base: string;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-socket' });
  gw = await startTestGateway({
    env: {
      OPENAI_API_KEY: 'sk-socket',
      OPENAI_BASE_URL: openai.baseURL,
      STEWARD_METRICS_TOKEN: 'sockets-operator-token-01',
    },
  });
  await gw.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = gw.app.server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
});

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'x-license-key': gw.keys.acme,
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
};

describe('gateway over real sockets (licensed)', () => {
  it('GET /health and POST /health', async () => {
    expect((await call('GET', '/health')).json()).toMatchObject({ status: 'healthy', mode: 'licensed' });
    expect((await call('POST', '/health')).json().license).toMatchObject({ valid: true, tier: 'ENT' });
  });

  it('pre-check blocks and approves, then audit records against the approved context', async () => {
    const blocked = await call('POST', '/api/policy/pre-check', {
      client_id: 'app',
      user_token: 'u',
      query: 'card 4111-1111-1111-1111',
    });
    expect(blocked.json().approved).toBe(false);
    const ok = await call('POST', '/api/policy/pre-check', {
      client_id: 'app',
      user_token: 'u',
      query: 'What is the weather tomorrow?',
    });
    expect(ok.json().approved).toBe(true);
    const audit = await call('POST', '/api/audit/llm-call', {
      client_id: 'app',
      context_id: ok.json().context_id,
      model: 'm',
      response: 'sunny',
    });
    expect(audit.json()).toMatchObject({ success: true, recorded: true });
  });

  it('policies/test, clients, metrics, prometheus, execute and request', async () => {
    expect((await call('POST', '/api/policies/test', { query: 'hello' })).json()).toMatchObject({ approved: true });
    const created = await call('POST', '/api/clients', { name: 'sock' });
    expect(created.status).toBe(201);
    const apiKey = created.json().api_key as string;
    expect((await call('GET', '/api/clients')).json().clients.length).toBeGreaterThan(0);
    expect(
      (await call('GET', '/metrics', undefined, { authorization: `Bearer ${apiKey}` })).json().agent_metrics
        .total_requests,
    ).toBeGreaterThan(0);
    expect(
      (await call('GET', '/metrics/prometheus', undefined, { authorization: 'Bearer sockets-operator-token-01' })).text,
    ).toContain('steward_http_requests_total');
    openai.enqueue({ kind: 'reply', text: 'hi there' });
    const exec = await fetch(`${base}/v1/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ prompt: 'Say hi', mode: 'chat' }),
    });
    const execBody = (await exec.json()) as Record<string, unknown>;
    expect(execBody, JSON.stringify(execBody)).toMatchObject({ success: true, data: { response: 'hi there' } });
    openai.enqueue({ kind: 'reply', text: 'done' });
    expect(
      (await call('POST', '/api/request', { query: 'Summarise this', request_type: 'chat' })).json(),
    ).toMatchObject({ blocked: false, result: 'done' });
  });

  it('answers a body over the limit with 413 JSON and unknown paths with 404 JSON', async () => {
    const big = await call('POST', '/api/policies/test', { query: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.json().code).toBe('PAYLOAD_TOO_LARGE');
    const missing = await call('GET', '/api/nothing');
    expect(missing.status).toBe(404);
    expect(missing.json().code).toBe('NOT_FOUND');
  });

  it('answers invalid JSON with 400 INVALID_JSON', async () => {
    const res = await fetch(`${base}/api/policy/pre-check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-license-key': gw.keys.acme },
      body: '{"query":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_JSON');
  });
});
