import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { agentSettings } from '../../../cmd/config/settings.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../testing/llm/index.js';
import { throwawayCertificate } from '../../../testing/tls.js';
import { ConfigError } from '../../../platform/config.js';
import { AgentCommunicationError } from '../../orchestrator/pool/errors.js';
import { RemoteAgent } from '../../orchestrator/pool/remote-agent.js';
import { StartupError } from '../../../platform/startup-error.js';
import { startAgent, type RunningAgent } from '../main.js';
import type { WorkItem, WorkResult } from '../work.js';

const MANIFEST = `apiVersion: steward.dev/v1alpha1
kind: AgentConfig
metadata:
  name: flight-search
spec:
  type: specialist
  domain: travel
  description: Finds flights.
  llm:
    provider: openai
    model: gpt-flights
`;

const ALLOW = 'package q\n\ndeny contains "no SSNs" if contains(input.query, "SSN")\n';

let dir: string;
let openai: FakeOpenAiServer;

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    LOG_LEVEL: 'silent',
    STEWARD_HOST: '127.0.0.1',
    STEWARD_AGENT_PORT: '0',
    STEWARD_MANIFESTS: dir,
    STEWARD_AGENT_NAME: 'flight-search',
    STEWARD_AGENT_ID: 'flight-search-0',
    OPENAI_API_KEY: 'sk-agent',
    OPENAI_BASE_URL: openai.baseURL,
    ...extra,
  };
}

function item(overrides: Partial<WorkItem> = {}): WorkItem {
  return {
    requestId: 'req-7',
    queryIndex: 3,
    query: 'flights to Oslo',
    policy: ALLOW,
    timeoutMs: 10_000,
    ...overrides,
  };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/v1/work`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'steward-agent-'));
  writeFileSync(join(dir, 'agents.yaml'), MANIFEST);
  openai = await startFakeOpenAi({ apiKey: 'sk-agent' });
});
afterAll(async () => {
  await openai.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('steward agent over plain HTTP/1.1', () => {
  let running: RunningAgent;
  beforeAll(async () => {
    running = await startAgent(agentSettings(env()));
  });
  afterAll(async () => {
    await running.close();
  });

  it('runs a work item and answers its WorkResult', async () => {
    const { status, body } = await post(running.url, item());
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'success', policyDecision: 'allow', agentId: 'flight-search-0' });
    expect(body.result).toMatch(/^Fake OpenAI reply to: flights to Oslo/);
    expect((openai.lastRequest().body as { model: string }).model).toBe('gpt-flights');
  });

  it('answers a deny as a 200 success with decision deny', async () => {
    const { status, body } = await post(running.url, item({ query: 'my SSN' }));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'success', policyDecision: 'deny', result: { deny: ['no SSNs'], warn: [] } });
  });

  it('refuses a body that is not a work item with 400 INVALID_REQUEST naming the fields', async () => {
    const { status, body } = await post(running.url, { query: 'x' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
    expect(JSON.stringify(body)).toContain('timeoutMs');
  });

  it('answers 429 AGENT_BUSY while its one slot is taken, and takes work again afterwards', async () => {
    openai.enqueue({ kind: 'hang' });
    const first = post(running.url, item({ timeoutMs: 400 }));
    // The first item holds the slot once the stats say so (no sleeping on a guess).
    for (;;) {
      const stats = (await (await fetch(`${running.url}/v1/stats`)).json()) as { inFlight: number };
      if (stats.inFlight === 1) break;
      await new Promise((r) => setImmediate(r));
    }
    const busy = await post(running.url, item({ queryIndex: 4 }));
    expect(busy.status).toBe(429);
    expect(busy.body).toMatchObject({
      success: false,
      error: { code: 'AGENT_BUSY', details: { agent_id: 'flight-search-0', max_in_flight: 1 } },
    });
    const timedOut = await first;
    expect(timedOut.body).toMatchObject({ status: 'error', error: { code: 'QUERY_TIMEOUT' } });
    expect((await post(running.url, item({ queryIndex: 5 }))).status).toBe(200);
  });

  it('stops the work when the caller closes the request', async () => {
    openai.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    // A minute of budget: only the caller's close can end this item within the test's deadline.
    const sent = fetch(`${running.url}/v1/work`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(item({ timeoutMs: 60_000 })),
      signal: controller.signal,
    });
    while (running.agent.stats().inFlight === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    await expect(sent).rejects.toThrow();
    while (running.agent.stats().inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    expect((await post(running.url, item({ queryIndex: 6 }))).status).toBe(200);
  });

  it('reports its stats', async () => {
    const res = await fetch(`${running.url}/v1/stats`);
    const stats = (await res.json()) as Record<string, number | string>;
    expect(stats).toMatchObject({ agentId: 'flight-search-0', inFlight: 0, maxInFlight: 1 });
    expect(stats.queriesProcessed).toBeGreaterThanOrEqual(3);
    expect(stats.memoryMb).toBeGreaterThan(1);
  });

  it('is alive and ready', async () => {
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', agentId: 'flight-search-0' });
  });

  it('answers an unknown path with 404 NOT_FOUND', async () => {
    const res = await fetch(`${running.url}/v1/nothing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('steward agent shutting down', () => {
  it('fails readiness at once, answers the item in flight, then closes', async () => {
    const running = await startAgent(agentSettings(env()));
    try {
      openai.enqueue({ kind: 'hang' });
      const inFlight = post(running.url, item({ timeoutMs: 300 }));
      while (running.agent.stats().inFlight === 0) await new Promise((r) => setImmediate(r));
      const closing = running.close();
      expect(running.agent.notReadyReason()).toMatch(/shutting down/);
      expect((await inFlight).body).toMatchObject({ status: 'error', error: { code: 'QUERY_TIMEOUT' } });
      await closing;
    } finally {
      await running.close();
    }
  });
});

describe('steward agent start-up', () => {
  it('fails with a StartupError naming STEWARD_AGENT_NAME when the AgentConfig is missing', async () => {
    const err = await startAgent(agentSettings(env({ STEWARD_AGENT_NAME: 'nope' }))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).setting).toBe('STEWARD_AGENT_NAME');
    expect((err as Error).message).toContain('found: default/flight-search');
  });

  it('refuses a certificate without its key', () => {
    expect(() => agentSettings(env({ STEWARD_TLS_CERT_FILE: '/x.pem' }))).toThrow(ConfigError);
  });

  it('refuses to listen beyond loopback without STEWARD_AGENT_TOKEN', () => {
    expect(() => agentSettings(env({ STEWARD_HOST: '0.0.0.0' }))).toThrow(
      /STEWARD_AGENT_TOKEN: required when STEWARD_HOST/,
    );
    expect(
      agentSettings(env({ STEWARD_HOST: '0.0.0.0', STEWARD_AGENT_TOKEN: 'agent-token-0123456789' })).agent.token,
    ).toBe('agent-token-0123456789');
  });

  it('requires STEWARD_AGENT_NAME', () => {
    const { STEWARD_AGENT_NAME: _name, ...rest } = env();
    expect(() => agentSettings(rest)).toThrow(/STEWARD_AGENT_NAME/);
  });
});

describe('steward agent with a token', () => {
  const TOKEN = 'agent-token-0123456789';
  let running: RunningAgent;
  beforeAll(async () => {
    running = await startAgent(agentSettings(env({ STEWARD_AGENT_TOKEN: TOKEN })));
  });
  afterAll(async () => {
    await running?.close();
  });

  const work = (headers: Record<string, string>) =>
    fetch(`${running.url}/v1/work`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(item()),
    });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: 'no Authorization', headers: {} },
    { name: 'a wrong token', headers: { authorization: 'Bearer agent-token-0123456780' } },
    { name: 'the token without Bearer', headers: { authorization: TOKEN } },
  ])('refuses work with $name (401 UNAUTHORIZED)', async ({ headers }) => {
    const res = await work(headers);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('takes work and serves stats with the token, and keeps the probes public', async () => {
    const res = await work({ authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'success', policyDecision: 'allow' });
    expect((await fetch(`${running.url}/v1/stats`)).status).toBe(401);
    expect((await fetch(`${running.url}/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
  });

  it("is reached by the pool's RemoteAgent with the token, and refuses it without", async () => {
    const withToken = new RemoteAgent({ endpoint: running.url, token: TOKEN });
    const without = new RemoteAgent({ endpoint: running.url });
    try {
      await withToken.probe(AbortSignal.timeout(10_000));
      expect(await withToken.execute(item())).toMatchObject({ status: 'success', agentId: 'flight-search-0' });
      await expect(without.execute(item())).rejects.toBeInstanceOf(AgentCommunicationError);
    } finally {
      await Promise.all([withToken.close(), without.close()]);
    }
  });
});

describe('steward agent over TLS (a throwaway certificate from openssl)', () => {
  let running: RunningAgent;
  let cert: string;
  beforeAll(async () => {
    const made = throwawayCertificate(dir);
    cert = made.cert;
    running = await startAgent(
      agentSettings(env({ STEWARD_TLS_CERT_FILE: made.certFile, STEWARD_TLS_KEY_FILE: made.keyFile })),
    );
  });
  afterAll(async () => {
    await running?.close();
  });

  it('serves a work item over HTTP/2 with TLS 1.3 to undici with allowH2', async () => {
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const client = new Client(running.url, { allowH2: true, connect: { ca: cert } });
    try {
      const res = await client.request({
        path: '/v1/work',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(item()),
      });
      const body = (await res.body.json()) as WorkResult;
      expect(res.statusCode).toBe(200);
      expect(body).toMatchObject({ status: 'success', policyDecision: 'allow' });
      const ready = await client.request({ path: '/readyz', method: 'GET' });
      expect(ready.statusCode).toBe(200);
      await ready.body.dump();
      // What ALPN picks for a client offering both: h2.
      const socketInfo = await new Promise<string | false | null>((resolve, reject) => {
        const tls = tlsConnect(
          {
            host: '127.0.0.1',
            port: Number(new URL(running.url).port),
            ca: cert,
            ALPNProtocols: ['h2', 'http/1.1'],
            servername: 'localhost',
          },
          () => {
            resolve(tls.alpnProtocol);
            tls.end();
          },
        );
        tls.on('error', reject);
      });
      expect(socketInfo).toBe('h2');
    } finally {
      await client.close();
    }
  });

  it('falls back to HTTP/1.1 by ALPN for clients without h2 and refuses TLS 1.2', async () => {
    const client = new Client(running.url, { connect: { ca: cert } });
    try {
      const res = await client.request({ path: '/healthz', method: 'GET' });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toMatchObject({ status: 'ok' });
    } finally {
      await client.close();
    }
    const old = new Client(running.url, { connect: { ca: cert, maxVersion: 'TLSv1.2' } });
    try {
      await expect(old.request({ path: '/healthz', method: 'GET' })).rejects.toThrow();
    } finally {
      await old.close();
    }
  });

  it('answers 503 AGENT_CLOSING to work sent on an open HTTP/2 session while it drains', async () => {
    // NB: undici sends a POST on a busy HTTP/2 session only when it is marked idempotent (and pipelining allows
    // more than one stream); otherwise it waits for the item in flight.
    const client = new Client(running.url, { allowH2: true, pipelining: 10, connect: { ca: cert } });
    const send = async (body: unknown) => {
      const res = await client.request({
        path: '/v1/work',
        method: 'POST',
        idempotent: true,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
    };
    try {
      openai.enqueue({ kind: 'hang' });
      const first = send(item({ timeoutMs: 300 }));
      while (running.agent.stats().inFlight === 0) await new Promise((r) => setImmediate(r));
      const closing = running.close();
      const late = await send(item({ queryIndex: 9 }));
      expect(late.status).toBe(503);
      expect(late.body).toMatchObject({ success: false, error: { code: 'AGENT_CLOSING' } });
      expect((await first).body).toMatchObject({ status: 'error', error: { code: 'QUERY_TIMEOUT' } });
      await closing;
    } finally {
      await client.close();
    }
  });
});
