import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition, type Exposition } from '../../../testing/prometheus-text.js';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../testing/gateway.js';
import { buildMetricsServer } from '../metrics-server.js';

/**
 * The Prometheus metrics of a gateway and an orchestrator sharing one process registry, read with a real
 * text-format parser after a few requests, on the gateway port, the orchestrator port and the metrics port.
 */
const TOKEN = 'operator-token-for-tests-0001';
const OPERATOR = { authorization: `Bearer ${TOKEN}` };
let gw: TestGateway;
let orchestrator: FastifyInstance;
let metricsPort: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway({
    env: { STEWARD_METRICS_TOKEN: TOKEN, STEWARD_LLM_ECHO: 'true', STEWARD_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const d = gw.parts.deps;
  orchestrator = (await startTestOrchestrator(gw)).app;
  metricsPort = buildMetricsServer({ log: d.log, telemetry: d.telemetry });
  await metricsPort.ready();

  const acme = { 'x-license-key': gw.keys.acme };
  const precheck = (query: string) =>
    gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: acme,
      payload: { client_id: 'app', user_token: 'u', query },
    });
  expect((await precheck('What is the weather tomorrow?')).json().approved).toBe(true);
  expect((await precheck('My SSN is 123-45-6789')).json().approved).toBe(false);
  const exec = await gw.app.inject({
    method: 'POST',
    url: '/v1/execute',
    headers: acme,
    payload: { prompt: 'Say hello', mode: 'chat', provider: 'echo' },
  });
  expect(exec.statusCode, exec.body).toBe(200);
  await gw.app.inject({ method: 'GET', url: '/health' });
  await orchestrator.inject({ method: 'GET', url: '/health' });
  await orchestrator.inject({
    method: 'POST',
    url: '/api/v1/agents/validate',
    headers: acme,
    payload: { kind: 'AgentConfig' },
  });
  await orchestrator.inject({ method: 'GET', url: '/api/v1/agents/travel-agent-42' });
  await orchestrator.inject({ method: 'GET', url: '/api/v1/nowhere/travel-agent-42' });
});
afterAll(async () => {
  await orchestrator?.close();
  await metricsPort?.close();
  await gw?.close();
});

async function scrape(app: FastifyInstance, headers: Record<string, string> = OPERATOR): Promise<Exposition> {
  const res = await app.inject({ method: 'GET', url: '/metrics/prometheus', headers });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.body);
}

const ports = [
  { name: 'gateway port', app: () => gw.app },
  { name: 'orchestrator port', app: () => orchestrator },
  { name: 'metrics port', app: () => metricsPort },
];

describe.each(ports)('on the $name', ({ app }) => {
  let m: Exposition;
  beforeAll(async () => {
    m = await scrape(app());
  });

  it('exposes the default process and Node.js metrics and steward_build_info', () => {
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(m.families.has(name), name).toBe(true);
    }
    expect(m.find('steward_build_info', { version: 'test', node_version: process.version })).toEqual([
      expect.objectContaining({ value: 1 }),
    ]);
  });

  it('counts HTTP requests by server, route pattern, method and status class, with latency histograms', () => {
    expect(m.families.get('steward_http_requests_total')?.type).toBe('counter');
    expect(m.families.get('steward_http_request_duration_seconds')?.type).toBe('histogram');
    const precheck = { server: 'gateway', route: '/api/policy/pre-check', method: 'POST' };
    expect(
      m.find('steward_http_requests_total', { ...precheck, status_class: '2xx' })[0]?.value,
    ).toBeGreaterThanOrEqual(2);
    expect(m.find('steward_http_request_duration_seconds_count', precheck)[0]?.value).toBeGreaterThanOrEqual(2);
    expect(
      m.find('steward_http_request_duration_seconds_bucket', { ...precheck, le: '+Inf' })[0]?.value,
    ).toBeGreaterThanOrEqual(2);
    expect(
      m.find('steward_http_requests_total', {
        server: 'orchestrator',
        route: '/api/v1/agents/validate',
        method: 'POST',
        status_class: '2xx',
      }),
    ).toHaveLength(1);
    expect(
      m.find('steward_http_requests_total', { server: 'orchestrator', route: 'unmatched', status_class: '4xx' }),
    ).toHaveLength(1);
    // The route label is the pattern, never the raw URL.
    const routes = new Set(m.find('steward_http_requests_total').map((s) => s.labels.route));
    expect(routes.has('/api/v1/agents/travel-agent-42')).toBe(false);
    expect(routes.has('/api/v1/agents/:name')).toBe(true);
    expect(routes.has('/api/v1/nowhere/travel-agent-42')).toBe(false);
    for (const s of m.find('steward_http_requests_total'))
      expect(Object.keys(s.labels).sort()).toEqual(['method', 'route', 'server', 'status_class']);
  });

  it('counts policy decisions per policy and outcome, and times evaluations', () => {
    expect(
      m.find('steward_policy_decisions_total', { policy: 'builtin-pii', outcome: 'deny' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(
      m.find('steward_policy_decisions_total', { policy: 'builtin-pii', outcome: 'allow' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(
      m.find('steward_policy_evaluation_duration_seconds_count', { approved: 'false' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(
      m.find('steward_policy_evaluation_duration_seconds_count', { approved: 'true' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(m.families.get('steward_policy_evaluation_failures_total')?.type).toBe('counter');
  });

  it('counts LLM calls and tokens per provider and model', () => {
    const call = { provider: 'echo', model: 'echo' };
    expect(m.find('steward_llm_requests_total', { ...call, outcome: 'success' })[0]?.value).toBe(1);
    expect(m.find('steward_llm_tokens_total', { ...call, kind: 'prompt' })[0]?.value).toBeGreaterThan(0);
    expect(m.find('steward_llm_tokens_total', { ...call, kind: 'completion' })[0]?.value).toBeGreaterThan(0);
    expect(m.find('steward_llm_request_duration_seconds_count', call)[0]?.value).toBe(1);
  });

  it('times store writes of contexts and audit entries', () => {
    expect(
      m.find('steward_store_write_duration_seconds_count', { table: 'precheck_contexts' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(
      m.find('steward_store_write_duration_seconds_count', { table: 'audit_entries' })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(m.families.get('steward_rate_limit_rejections_total')?.type).toBe('counter');
  });
});

describe('who may scrape', () => {
  it.each([
    { name: 'no credentials', headers: {}, status: 401 },
    {
      name: "an organization's license key",
      headers: (): Record<string, string> => ({ 'x-license-key': gw.keys.acme }),
      status: 401,
    },
    { name: 'a wrong bearer token', headers: { authorization: 'Bearer not-the-operator-token' }, status: 401 },
  ])('refuses $name on the gateway and orchestrator ports', async ({ headers, status }) => {
    const h = typeof headers === 'function' ? headers() : headers;
    expect((await gw.app.inject({ method: 'GET', url: '/metrics/prometheus', headers: h })).statusCode).toBe(status);
    expect((await orchestrator.inject({ method: 'GET', url: '/metrics/prometheus', headers: h })).statusCode).toBe(
      status,
    );
  });

  it('serves the metrics port without credentials when no token is set, and asks for it when one is', async () => {
    expect((await metricsPort.inject({ method: 'GET', url: '/metrics/prometheus' })).statusCode).toBe(200);
    const guarded = buildMetricsServer({ log: gw.parts.deps.log, telemetry: gw.parts.deps.telemetry, token: TOKEN });
    try {
      expect((await guarded.inject({ method: 'GET', url: '/metrics/prometheus' })).statusCode).toBe(401);
      expect((await guarded.inject({ method: 'GET', url: '/metrics/prometheus', headers: OPERATOR })).statusCode).toBe(
        200,
      );
    } finally {
      await guarded.close();
    }
  });

  it('answers 403 naming the settings when no operator token is configured (licensed mode)', async () => {
    const bare = await startTestGateway();
    try {
      const res = await bare.app.inject({
        method: 'GET',
        url: '/metrics/prometheus',
        headers: { 'x-license-key': bare.keys.acme },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatch(/STEWARD_METRICS_TOKEN.*STEWARD_METRICS_PORT/);
    } finally {
      await bare.close();
    }
  });
});

describe('in community mode', () => {
  it('serves the scrape without credentials and counts rate-limit rejections by window', async () => {
    const community = await startTestGateway({ licensed: false, env: { STEWARD_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await community.app.inject({ method: 'POST', url: '/api/policies/test', payload: { query: 'hello' } }))
            .statusCode,
        );
      expect(statuses).toEqual([200, 200, 429]);
      const m = await scrape(community.app, {});
      expect(m.find('steward_rate_limit_rejections_total', { window: '60s' })[0]?.value).toBe(1);
      expect(
        m.find('steward_http_requests_total', {
          server: 'gateway',
          route: '/api/policies/test',
          status_class: '4xx',
        })[0]?.value,
      ).toBe(1);
    } finally {
      await community.close();
    }
  });
});
