/**
 * `POST /orchestrator/parallel` through a real socket, on an in-process pool of five agents whose LLM step calls a
 * fake OpenAI server (the real SDK) that answers after a fixed delay, so batches show in when requests reach it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionSummary, ParallelResult } from '../execute.js';
import {
  agentConfigYaml,
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer, type RecordedRequest } from '../../../../testing/llm/index.js';
import { lastUserText, maxOverlap } from '../../../../testing/llm/server.js';
import { listenUrl } from '../../../http/app.js';

/** A parallel answer (or error), read loosely: the assertions check its shape. */
interface Answer {
  results: ParallelResult[];
  execution_summary: ExecutionSummary;
  request_id: string;
  error: { code: string; message: string; details?: Record<string, unknown> };
}
/** A metrics or health answer, read loosely. */
type Loose = Record<
  string,
  Record<string, Record<string, unknown> & { healthy_agents?: number }> & Record<string, unknown>
>;

const DELAY_MS = 400;
const ALLOW = 'package parallel.t\n\ndeny contains "no secrets" if contains(input.query, "secret")\n';

let llm: FakeOpenAiServer;
let gw: TestGateway;
let orchestrator: TestOrchestrator;
let base: string;
/** When each request reached the LLM stand-in and when it was answered, by the query text. */
const seen: { query: string; at: number }[] = [];

beforeAll(async () => {
  llm = await startFakeOpenAi({
    delayMs: DELAY_MS,
    hangWhen: (req: RecordedRequest) => {
      const query = lastUserText((req.body as { messages?: unknown }).messages);
      seen.push({ query, at: performance.now() });
      return query.includes('HANG');
    },
  });
  gw = await startTestGateway({
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: llm.baseURL, STEWARD_RATE_LIMIT_PER_MINUTE: '1000' },
    manifests: agentConfigYaml('worker', 5, { provider: 'openai', model: 'gpt-4o-mini' }),
  });
  orchestrator = await startTestOrchestrator(gw);
  await orchestrator.app.listen({ host: '127.0.0.1', port: 0 });
  base = listenUrl(orchestrator.app);
});
afterAll(async () => {
  await orchestrator?.close();
  await gw?.close();
  await llm?.close();
});

const query = (text: string, extra: Record<string, unknown> = {}) => ({
  query: text,
  policy: ALLOW,
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
  ...extra,
});

async function parallel(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/orchestrator/parallel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-license-key': gw.keys.acme, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer };
}

describe('POST /orchestrator/parallel', () => {
  it('runs 12 queries over a pool of 5 in three batches, results in query order', async () => {
    const from = seen.length;
    const res = await parallel(
      { queries: Array.from({ length: 12 }, (_, i) => query(`question ${i}`)) },
      { 'x-request-id': 'batch-req-1' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { results, execution_summary: summary, request_id } = res.body;
    expect(request_id).toBe('batch-req-1');
    expect(results.map((r: { query_index: number }) => r.query_index)).toEqual([...Array(12).keys()]);
    for (const r of results) {
      expect(r).toMatchObject({
        status: 'success',
        metadata: {
          policy_decision: 'allow',
          request_id: 'batch-req-1',
          agent_id: expect.stringMatching(/^worker-[0-4]$/),
        },
      });
      expect(r.result).toContain(`question ${r.query_index}`);
      expect(r.metadata.latency_ms).toBeGreaterThanOrEqual(DELAY_MS);
    }
    // Five agents, each ran two or three of the twelve: never more than five at once, so three waves.
    const counts = Object.values(summary.agent_utilization as Record<string, number>).sort();
    expect(counts).toEqual([2, 2, 2, 3, 3]);
    const arrivals = seen.slice(from).map((s) => s.at);
    expect(arrivals).toHaveLength(12);
    expect(maxOverlap(arrivals, DELAY_MS)).toBeLessThanOrEqual(5);
    expect(summary.total_time_ms).toBeGreaterThanOrEqual(3 * DELAY_MS);
    expect(summary).toMatchObject({
      total_queries: 12,
      successful: 12,
      failed: 0,
      parallel_speedup: expect.stringMatching(/^\d+\.\dx$/),
    });
    expect(parseFloat(summary.parallel_speedup)).toBeGreaterThan(1);
  });

  it('answers 400 naming query 7 when its policy does not compile, before any query runs', async () => {
    const from = seen.length;
    const queries = Array.from({ length: 10 }, (_, i) => query(`q${i}`));
    queries[7] = query('q7', { policy: 'package parallel.bad\n\ndeny contains msg if {\n  msg := \n}\n' });
    const res = await parallel({ queries });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'INVALID_REQUEST',
        details: { query_index: 7, field: 'policy', reason: expect.stringMatching(/query\.rego:\d+:\d+/) },
        request_id: expect.any(String),
      },
    });
    expect(seen.length).toBe(from);
  });

  it('names the query and field of a shape error', async () => {
    const res = await parallel({
      queries: [query('a'), query('b', { llm: { provider: 'openai', model: 'm', temperature: 1.5 } })],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { query_index: 1, field: 'llm.temperature' },
    });
    const tooMany = await parallel({ queries: Array.from({ length: 101 }, () => query('x')) });
    expect(tooMany.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'queries' } });
  });

  it('gives a hung query QUERY_TIMEOUT while the others succeed', async () => {
    const res = await parallel({ queries: [query('fine 0'), query('HANG please'), query('fine 2')], timeout_ms: 1500 });
    expect(res.status).toBe(200);
    const [a, hung, c] = res.body.results;
    expect(a.status).toBe('success');
    expect(c.status).toBe('success');
    expect(hung).toMatchObject({
      status: 'error',
      error: { code: 'QUERY_TIMEOUT' },
      metadata: { policy_decision: 'allow' },
    });
    expect(res.body.execution_summary).toMatchObject({ successful: 2, failed: 1 });
  });

  it('runs one query at a time in sequential mode', async () => {
    const from = seen.length;
    const res = await parallel({ queries: [query('s0'), query('s1'), query('s2')], execution_mode: 'sequential' });
    expect(res.status).toBe(200);
    expect(
      maxOverlap(
        seen.slice(from).map((s) => s.at),
        DELAY_MS,
      ),
    ).toBe(1);
    expect(res.body.execution_summary.total_time_ms).toBeGreaterThanOrEqual(3 * DELAY_MS);
  });

  it('never runs the LLM step of a query its policy denies', async () => {
    const from = seen.length;
    const res = await parallel({ queries: [query('tell me the secret'), query('hello')] });
    expect(res.body.results[0]).toMatchObject({
      status: 'success',
      metadata: { policy_decision: 'deny' },
      result: { deny: ['no secrets'] },
    });
    expect(res.body.results[1].metadata.policy_decision).toBe('allow');
    expect(seen.slice(from).map((s) => s.query)).toEqual(['hello']);
  });

  it('answers CONNECTOR_NOT_AVAILABLE for an MCP step, inside a 200', async () => {
    const res = await parallel({
      queries: [{ query: 'rows', policy: ALLOW, mcp: { connector: 'pg', operation: 'query' } }],
    });
    expect(res.body.results[0]).toMatchObject({ status: 'error', error: { code: 'CONNECTOR_NOT_AVAILABLE' } });
  });

  it('refuses a request without the license key, and an X-Organization-ID of another organization', async () => {
    const none = await fetch(`${base}/orchestrator/parallel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"queries":[]}',
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as Answer).error.code).toBe('UNAUTHORIZED');
    const other = await parallel({ queries: [query('x')] }, { 'x-organization-id': 'globex' });
    expect(other.status).toBe(401);
    const own = await parallel({ queries: [query('x')] }, { 'x-organization-id': 'acme' });
    expect(own.status).toBe(200);
  });

  it('reports requests, speedups and every agent on /orchestrator/metrics and GET /metrics', async () => {
    const res = await fetch(`${base}/orchestrator/metrics`, { headers: { 'x-license-key': gw.keys.acme } });
    expect(res.status).toBe(200);
    const { metrics } = (await res.json()) as { metrics: Loose };
    expect(metrics.requests.total).toBeGreaterThanOrEqual(5);
    expect(metrics.parallel_execution.total_parallel_queries).toBeGreaterThanOrEqual(12);
    expect(metrics.parallel_execution.max_speedup_observed).toBeGreaterThan(1);
    expect(Object.keys(metrics.agent_utilization).sort()).toEqual([
      'worker-0',
      'worker-1',
      'worker-2',
      'worker-3',
      'worker-4',
    ]);
    const processed = Object.values(
      metrics.agent_utilization as Record<string, { queries_processed: number; memory_mb: number }>,
    );
    expect(processed.reduce((n, a) => n + a.queries_processed, 0)).toBeGreaterThanOrEqual(12);
    for (const a of processed) expect(a.memory_mb).toBeGreaterThan(0);
    const alias = await fetch(`${base}/metrics`, { headers: { 'x-license-key': gw.keys.acme } });
    expect(((await alias.json()) as { metrics: Loose }).metrics.requests!.total).toBe(metrics.requests.total);
  });

  it('shows a healthy pool on /orchestrator/health', async () => {
    const res = await fetch(`${base}/orchestrator/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'healthy',
      components: {
        database: { status: 'connected' },
        agents: { status: 'healthy', available: 5, desired: 5, healthy_agents: 5, unhealthy_agents: 0 },
        load_balancer: { status: 'healthy' },
      },
    });
  });
});

describe('the pool and the organization limits', () => {
  let empty: TestGateway;
  let limited: TestGateway;
  afterAll(async () => {
    await empty?.close();
    await limited?.close();
  });

  it('answers 503 ORCHESTRATOR_UNAVAILABLE and an unhealthy /orchestrator/health without agents, INSUFFICIENT_AGENTS below the minimum', async () => {
    empty = await startTestGateway({ manifests: agentConfigYaml('idle', 0) });
    const none = await startTestOrchestrator(empty);
    try {
      const res = await none.app.inject({
        method: 'POST',
        url: '/orchestrator/parallel',
        headers: { 'x-license-key': empty.keys.acme },
        payload: { queries: [{ query: 'q', policy: ALLOW }] },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({
        code: 'ORCHESTRATOR_UNAVAILABLE',
        details: { available_agents: 0, healthy_agents: 0 },
      });
      const health = await none.app.inject({ method: 'GET', url: '/orchestrator/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ status: 'unhealthy', components: { agents: { healthy_agents: 0 } } });
    } finally {
      await none.close();
    }
    const few = await startTestOrchestrator(gw, { requiredAgents: 8 });
    try {
      const res = await few.app.inject({
        method: 'POST',
        url: '/orchestrator/parallel',
        headers: { 'x-license-key': gw.keys.acme },
        payload: { queries: [{ query: 'q', policy: ALLOW }] },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({
        code: 'INSUFFICIENT_AGENTS',
        details: { required_agents: 8, available_agents: 5, healthy_agents: 5, unhealthy_agents: 0 },
      });
    } finally {
      await few.close();
    }
  });

  it('counts one parallel request as one request and answers 429 RATE_LIMIT_EXCEEDED past the limit', async () => {
    limited = await startTestGateway({
      env: { STEWARD_RATE_LIMIT_PER_MINUTE: '2' },
      manifests: agentConfigYaml('w', 2),
    });
    const o = await startTestOrchestrator(limited);
    try {
      const send = () =>
        o.app.inject({
          method: 'POST',
          url: '/orchestrator/parallel',
          headers: { 'x-license-key': limited.keys.acme },
          payload: { queries: Array.from({ length: 6 }, (_, i) => ({ query: `q${i}`, policy: ALLOW })) },
        });
      const first = await send();
      expect(first.statusCode).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect((await send()).statusCode).toBe(200);
      const refused = await send();
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error).toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
        details: { limit: 2, period: '60s', reset_at: expect.any(String) },
      });
      expect(refused.headers['x-ratelimit-limit']).toBe('2');
      // The budget is the gateway's too: the organization's next pre-check is refused as well.
      const precheck = await limited.app.inject({
        method: 'POST',
        url: '/api/policy/pre-check',
        headers: { 'x-license-key': limited.keys.acme },
        payload: { client_id: 'c', user_token: 'u', query: 'hi' },
      });
      expect(precheck.statusCode).toBe(429);
    } finally {
      await o.close();
    }
  });
});
