import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenseYaml, startTestGateway, type TestGateway } from '../../../testing/gateway.js';

/**
 * What an attacker probing the gateway found (issue 15): bodies PostgreSQL cannot store, numbers past their
 * column, deep structures, media types, echoes of input, body-supplied tenants, other organizations' metrics
 * and license keys with a trailing newline. Each answers 4xx with a code, never 500.
 */
let gw: TestGateway;
let contextId: string;

const ACME = () => ({ 'x-license-key': gw.keys.acme });

beforeAll(async () => {
  gw = await startTestGateway({
    env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000' },
    // A License whose key can never be used: /health must say so.
    manifests: licenseYaml('hooli', 'hooli', 'HOOLI_KEY'),
  });
  const pre = await gw.app.inject({
    method: 'POST',
    url: '/api/policy/pre-check',
    headers: ACME(),
    payload: { client_id: 'app', user_token: 'u', query: 'hello' },
  });
  contextId = pre.json().context_id;
});
afterAll(async () => {
  await gw?.close();
});

/** A context of its own: a context takes one LLM-call audit entry. */
const freshContext = async (headers: Record<string, string> = ACME()) =>
  (
    await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers,
      payload: { client_id: 'app', user_token: 'u', query: 'hello' },
    })
  ).json().context_id as string;

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('bodies that cannot be stored or checked safely are refused with 400 naming the field', () => {
  const audit = (extra: Record<string, unknown>) => ({ client_id: 'app', context_id: contextId, ...extra });
  it.each([
    {
      name: 'tokens.prompt past a 32-bit integer',
      url: '/api/audit/llm-call',
      body: () => audit({ tokens: { prompt: 2147483648 } }),
      field: 'tokens.prompt',
    },
    {
      name: 'token_usage.total_tokens past a 32-bit integer',
      url: '/api/audit/llm-call',
      body: () => audit({ token_usage: { total_tokens: 2 ** 40 } }),
      field: 'token_usage.total_tokens',
    },
    {
      name: 'a token total that overflows',
      url: '/api/audit/llm-call',
      body: () => audit({ tokens: { prompt: 2_000_000_000, completion: 2_000_000_000 } }),
      field: 'tokens',
    },
    {
      name: 'NUL in a metadata key',
      url: '/api/audit/llm-call',
      body: () => audit({ metadata: { 'k\u0000': 'v' } }),
      field: 'metadata',
    },
    {
      name: 'a lone surrogate in a metadata key',
      url: '/api/audit/llm-call',
      body: () => audit({ metadata: { 'k\uD800': 'v' } }),
      field: 'metadata',
    },
    {
      name: 'NUL in a nested metadata value',
      url: '/api/audit/llm-call',
      body: () => audit({ metadata: { a: [{ b: 'x\u0000' }] } }),
      field: 'metadata.a.0.b',
    },
    {
      name: 'NUL in context_id',
      url: '/api/audit/llm-call',
      body: () => audit({ context_id: 'ctx\u0000' }),
      field: 'context_id',
    },
    {
      name: 'a lone surrogate in the prompt',
      url: '/api/audit/llm-call',
      body: () => audit({ prompt: 'hi \uDC00' }),
      field: 'prompt',
    },
    { name: 'NUL in a client name', url: '/api/clients', body: () => ({ name: 'x\u0000y' }), field: 'name' },
    {
      name: 'a lone surrogate in a client description',
      url: '/api/clients',
      body: () => ({ name: 'ok', description: '\uD83D' }),
      field: 'description',
    },
    {
      name: 'NUL in a pre-check query',
      url: '/api/policy/pre-check',
      body: () => ({ client_id: 'app', user_token: 'u', query: 'a\u0000' }),
      field: 'query',
    },
    {
      name: 'NUL in a pre-check context value',
      url: '/api/policy/pre-check',
      body: () => ({ client_id: 'app', user_token: 'u', query: 'q', context: { k: '\u0000' } }),
      field: 'context.k',
    },
  ])('$name', async ({ url, body, field }) => {
    const res = await gw.app.inject({ method: 'POST', url, headers: ACME(), payload: body() });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST', request_id: expect.any(String) });
    expect(
      res
        .json()
        .details.fields.map((f: { field: string }) => f.field)
        .join(' '),
    ).toContain(field);
  });

  it('refuses metadata nested 10,000 levels before parsing it', async () => {
    const payload = `{"context_id":"${contextId}","metadata":${nested(10_000)}}`;
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: { ...ACME(), 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_REQUEST', request_id: res.headers['x-request-id'] });
  });

  it('refuses any JSON body nested deeper than 64 levels, and accepts 60', async () => {
    const deep = await gw.app.inject({
      method: 'POST',
      url: '/api/policies/test',
      headers: { ...ACME(), 'content-type': 'application/json' },
      payload: `{"query":"q","context":${nested(64)}}`,
    });
    expect(deep.json()).toMatchObject({ code: 'INVALID_REQUEST', details: { max_depth: 64 } });
    const fine = await gw.app.inject({
      method: 'POST',
      url: '/api/policies/test',
      headers: { ...ACME(), 'content-type': 'application/json' },
      payload: `{"query":"q","context":${nested(60)}}`,
    });
    expect(fine.statusCode).toBe(200);
  });

  it('stores well-formed surrogate pairs and the largest 32-bit token count', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: ACME(),
      payload: audit({
        context_id: await freshContext(),
        prompt: 'smile 😀',
        tokens: { prompt: 2147483647 },
        metadata: { '😀': ['ok', 1, null, { deep: true }] },
      }),
    });
    expect(res.statusCode).toBe(200);
    const entry = await gw.store.audit.get('acme', res.json().audit_id);
    expect(entry).toMatchObject({ prompt: 'smile 😀', promptTokens: 2147483647 });
  });
});

describe('media types and echoes', () => {
  it('answers text/plain with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/policies/test',
      headers: { ...ACME(), 'content-type': 'text/plain' },
      payload: 'query=hello',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', request_id: expect.any(String) });
  });

  it('does not echo a 500 KB provider name', async () => {
    const provider = 'p'.repeat(500 * 1024);
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      headers: ACME(),
      payload: { prompt: 'hello', provider },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(2048);
  });

  it('refuses a policy-evaluated body past twice the policy input limit while it arrives (413), before parsing it', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: ACME(),
      payload: { client_id: 'c', user_token: 'u', query: '\n'.repeat(400_000) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', request_id: expect.any(String) });
  });

  it('repeats at most 64 characters of an unknown provider name', async () => {
    const provider = 'x'.repeat(64);
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      headers: ACME(),
      payload: { prompt: 'hello', provider },
    });
    expect(res.json()).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED' });
    expect(res.json().error).toContain(provider);
  });

  it('bounds the path a 404 repeats', async () => {
    const res = await gw.app.inject({ method: 'GET', url: `/${'a'.repeat(8000)}`, headers: ACME() });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.length).toBeLessThan(200);
  });
});

describe('identity comes from the credential only', () => {
  it('drops tenant_id and organization_id from audit metadata', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: ACME(),
      payload: {
        client_id: 'app',
        context_id: await freshContext(),
        metadata: { tenant_id: 'victim', organization_id: 'globex', kept: 'yes' },
      },
    });
    expect(res.statusCode).toBe(200);
    const entry = await gw.store.audit.get('acme', res.json().audit_id);
    expect(entry?.metadata).toMatchObject({ kept: 'yes' });
    expect(entry?.metadata).not.toHaveProperty('tenant_id');
    expect(entry?.metadata).not.toHaveProperty('organization_id');
  });

  it('takes the tenant of a tenant-scoped credential over the body', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/audit/llm-call',
      headers: { ...ACME(), 'x-tenant-id': 'eu' },
      payload: { client_id: 'app', context_id: await freshContext(), metadata: { tenant_id: 'us' } },
    });
    const entry = await gw.store.audit.get('acme', res.json().audit_id);
    expect(entry?.metadata).toMatchObject({ tenant_id: 'eu' });
  });

  it('shows each organization only its own metrics', async () => {
    const globex = { 'x-license-key': gw.keys.globex };
    const before = (await gw.app.inject({ method: 'GET', url: '/metrics', headers: globex })).json().agent_metrics
      .total_requests;
    await gw.app.inject({ method: 'POST', url: '/api/policies/test', headers: ACME(), payload: { query: 'hello' } });
    const acme = (await gw.app.inject({ method: 'GET', url: '/metrics', headers: ACME() })).json().agent_metrics
      .total_requests;
    const after = (await gw.app.inject({ method: 'GET', url: '/metrics', headers: globex })).json().agent_metrics
      .total_requests;
    expect(acme).toBeGreaterThan(0);
    expect(after).toBe(before);
    // The Prometheus scrape covers every organization: an operator's, not a tenant's.
    const prom = await gw.app.inject({ method: 'GET', url: '/metrics/prometheus', headers: globex });
    expect(prom.statusCode).toBe(403);
  });
});

describe('license keys from the environment', () => {
  it('says on /health that a License key cannot be used, with the reason', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/health' });
    expect(res.json()).toMatchObject({ status: 'degraded', mode: 'licensed' });
    expect(res.json().warnings.join('\n')).toMatch(/License hooli .*HOOLI_KEY is not set/);
  });

  it('accepts a key whose environment value ends in a newline', async () => {
    const other = await startTestGateway({
      env: { ACME_KEY: `${gw.keys.acme}\n`, GLOBEX_KEY: `  ${gw.keys.globex}\r\n` },
    });
    try {
      const res = await other.app.inject({
        method: 'POST',
        url: '/api/policies/test',
        headers: { 'x-license-key': gw.keys.acme },
        payload: { query: 'hello' },
      });
      expect(res.statusCode).toBe(200);
      const health = (await other.app.inject({ method: 'GET', url: '/health' })).json();
      expect(health).toMatchObject({ status: 'healthy', mode: 'licensed' });
    } finally {
      await other.close();
    }
  });
});
