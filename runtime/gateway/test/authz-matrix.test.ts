import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';

/**
 * Endpoint × credential kind × valid/invalid/expired/other tenant: outside community mode no endpoint but
 * GET /health is reachable without the right credentials, and GET /metrics/prometheus with none of a tenant's.
 */
let gw: TestGateway;
let apiKey: string;
let tenantKey: string;
let clientId: string;

beforeAll(async () => {
  gw = await startTestGateway({ env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000' } });
  const created = await gw.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: { 'x-license-key': gw.keys.acme },
    payload: { name: 'matrix' },
  });
  apiKey = created.json().api_key;
  clientId = created.json().id;
  const tenant = await gw.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: { 'x-license-key': gw.keys.acme, 'x-tenant-id': 'eu' },
    payload: { name: 'eu' },
  });
  tenantKey = tenant.json().api_key;
});
afterAll(async () => {
  await gw?.close();
});

const ENDPOINTS = [
  { method: 'POST', url: '/api/policy/pre-check', payload: { client_id: 'matrix', user_token: 'u', query: 'hello' } },
  { method: 'POST', url: '/api/audit/llm-call', payload: { context_id: 'ctx_none', client_id: 'matrix' } },
  { method: 'POST', url: '/api/policies/test', payload: { query: 'hello' } },
  { method: 'GET', url: '/api/clients' },
  { method: 'POST', url: '/api/clients', payload: { name: 'x' } },
  { method: 'GET', url: '/metrics' },
  { method: 'GET', url: '/metrics/prometheus' },
  { method: 'POST', url: '/v1/execute', payload: { prompt: 'hello', mode: 'chat' } },
  { method: 'POST', url: '/api/request', payload: { query: 'hello', request_type: 'chat' } },
] as const;

type Cred = { name: string; headers: () => Record<string, string>; expect: 'denied' | 'allowed' | 'admin-only' };
const CREDENTIALS: Cred[] = [
  { name: 'no credentials', headers: () => ({}), expect: 'denied' },
  { name: 'a malformed license key', headers: () => ({ 'x-license-key': 'STW-ENT-xx' }), expect: 'denied' },
  { name: 'an expired license key', headers: () => ({ 'x-license-key': gw.keys.expired }), expect: 'denied' },
  {
    name: 'a signed but unregistered license key',
    headers: () => ({ 'x-license-key': gw.keys.unregistered }),
    expect: 'denied',
  },
  {
    name: 'a license key with a trailing space',
    headers: () => ({ 'x-license-key': `${gw.keys.acme} ` }),
    expect: 'denied',
  },
  {
    name: 'an invalid bearer key',
    headers: () => ({ authorization: 'Bearer client-x-prod-invalid' }),
    expect: 'denied',
  },
  {
    name: 'legacy client id and secret after the sunset',
    headers: () => ({ 'x-client-id': clientId, 'x-client-secret': apiKey }),
    expect: 'denied',
  },
  {
    name: 'a tenant key asking for another tenant',
    headers: () => ({ authorization: `Bearer ${tenantKey}`, 'x-tenant-id': 'us' }),
    expect: 'denied',
  },
  { name: 'a valid license key', headers: () => ({ 'x-license-key': gw.keys.acme }), expect: 'allowed' },
  { name: 'a valid bearer API key', headers: () => ({ authorization: `Bearer ${apiKey}` }), expect: 'admin-only' },
  {
    name: 'valid Basic client credentials',
    headers: () => ({ authorization: `Basic ${Buffer.from(`${clientId}:${apiKey}`).toString('base64')}` }),
    expect: 'admin-only',
  },
];

const cases = ENDPOINTS.flatMap((e) =>
  CREDENTIALS.map((c) => ({ ...e, cred: c, label: `${e.method} ${e.url} with ${c.name}` })),
);

describe('authorization matrix (licensed mode)', () => {
  it.each(cases)('$label', async ({ method, url, cred, ...rest }) => {
    const res = await gw.app.inject({
      method,
      url,
      headers: cred.headers(),
      ...('payload' in rest ? { payload: rest.payload } : {}),
    });
    const adminOnly = url === '/api/clients';
    // The Prometheus scrape is the installation's, every organization's: no tenant credential reaches it.
    const operatorOnly = url === '/metrics/prometheus';
    if (cred.expect === 'denied' || operatorOnly) {
      expect([401, 403]).toContain(res.statusCode);
      expect(res.json()).toMatchObject({ success: false, code: expect.any(String) });
    } else if (cred.expect === 'admin-only' && adminOnly) {
      expect(res.statusCode).toBe(403);
    } else {
      // Past authentication: any answer but 401/403 (404 for the made-up context, 503 without an LLM provider).
      expect([401, 403]).not.toContain(res.statusCode);
    }
  });

  it('keeps GET /health public', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('scopes audit contexts to the organization of the credential', async () => {
    const pre = await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: { 'x-license-key': gw.keys.acme },
      payload: { client_id: 'c', user_token: 'u', query: 'hello' },
    });
    const { context_id } = pre.json();
    const other = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: { 'x-license-key': gw.keys.globex },
      payload: { context_id, client_id: 'c' },
    });
    expect(other.statusCode).toBe(404);
    const same = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: { 'x-license-key': gw.keys.acme },
      payload: { context_id, client_id: 'c' },
    });
    expect(same.statusCode).toBe(200);
  });

  it('reports the license on POST /health: valid for a registered key, invalid with a reason otherwise', async () => {
    const ok = await gw.app.inject({ method: 'POST', url: '/health', headers: { 'x-license-key': gw.keys.acme } });
    expect(ok.json().license).toMatchObject({ valid: true, tier: 'ENT', maxNodes: 50, organization_id: 'acme' });
    const expired = await gw.app.inject({
      method: 'POST',
      url: '/health',
      headers: { 'x-license-key': gw.keys.expired },
    });
    expect(expired.json().license).toMatchObject({ valid: false, reason: expect.stringContaining('expired') });
    const missing = await gw.app.inject({ method: 'POST', url: '/health' });
    expect(missing.statusCode).toBe(400);
  });
});
