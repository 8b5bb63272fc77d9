/**
 * `steward orchestrator` and five `steward agent` processes on local ports, the pool given by
 * STEWARD_AGENT_ENDPOINTS, every hop over HTTP/2 with TLS 1.3 (a throwaway certificate), the agents' LLM step
 * calling a fake OpenAI server in this process that answers after a fixed delay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionSummary, ParallelResult } from '../parallel/execute.js';
import { issueLicenseKey } from '../../../api/index.js';
import { agentConfigYaml, licenseYaml, TEST_SIGNING_SECRET } from '../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer, type RecordedRequest } from '../../../testing/llm/index.js';
import { lastUserText, maxOverlap } from '../../../testing/llm/server.js';
import { freePort } from '../../../testing/ports.js';
import { throwawayCertificate, type ThrowawayCertificate } from '../../../testing/tls.js';

const BIN = new URL('../../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const DELAY_MS = 400;
const TOKEN = 'agent-token-for-process-tests';
const POLICY = 'package parallel.t\n\ndeny contains "no secrets" if contains(input.query, "secret")\n';
const AGENTS = 5;

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

let tmp: string;
let tls: ThrowawayCertificate;
let llm: FakeOpenAiServer;
let key: string;
let orchestratorUrl: string;
let client: Agent;
const agents: { id: string; port: number; child: ChildProcess }[] = [];
const children: ChildProcess[] = [];
const output: string[] = [];
/** Requests the LLM stand-in received: the query and when. */
const seen: { query: string; at: number }[] = [];
/** Called by the LLM stand-in on every request (a test sets it to act at an exact moment). */
let onRequest: ((query: string) => void) | undefined;

function start(command: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [BIN, command], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const name = `${command}:${env.STEWARD_AGENT_ID ?? env.PORT}`;
  child.stdout!.on('data', (d) => output.push(`${name} ${String(d)}`));
  child.stderr!.on('data', (d) => output.push(`${name} ${String(d)}`));
  children.push(child);
  return child;
}

interface Health {
  components: { agents: { healthy_agents: number } };
}

/** GET until the status (and body) are as wanted; the body, or throw with the processes' output after the deadline. */
async function waitFor(
  url: string,
  deadlineMs: number,
  ok: (status: number) => boolean = (status) => status === 200,
  wanted: (body: unknown) => boolean = () => true,
): Promise<unknown> {
  const until = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await undiciFetch(url, { dispatcher: client, signal: AbortSignal.timeout(2000) });
      const body = await res.json();
      if (ok(res.status) && wanted(body)) return body;
      last = `${res.status} ${JSON.stringify(body)}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready within ${deadlineMs} ms (${last}); output:\n${output.join('').slice(-4000)}`);
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-orch-proc-'));
  tls = throwawayCertificate(tmp);
  client = new Agent({ allowH2: true, connect: { ca: tls.cert } });
  llm = await startFakeOpenAi({
    delayMs: DELAY_MS,
    hangWhen: (req: RecordedRequest) => {
      const query = lastUserText((req.body as { messages?: unknown }).messages);
      seen.push({ query, at: performance.now() });
      onRequest?.(query);
      return query.includes('HANG');
    },
  });
  key = issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2099-12-31T00:00:00Z'), secret: TEST_SIGNING_SECRET });
  // NB: the manifests in a folder of their own, apart from the orchestrator's data folder (folder sources recurse).
  await mkdir(join(tmp, 'manifests'));
  await writeFile(
    join(tmp, 'manifests', 'manifests.yaml'),
    licenseYaml('acme', 'acme', 'ACME_KEY') +
      agentConfigYaml('worker', AGENTS, { provider: 'openai', model: 'gpt-4o-mini' }),
  );
  const shared = {
    STEWARD_MANIFESTS: join(tmp, 'manifests'),
    STEWARD_BUILTIN_POLICY_PACK: 'disabled',
    STEWARD_TLS_CERT_FILE: tls.certFile,
    STEWARD_TLS_KEY_FILE: tls.keyFile,
    STEWARD_AGENT_TOKEN: TOKEN,
  };
  for (let i = 0; i < AGENTS; i++) {
    const port = await freePort();
    const id = `agent-${i}`;
    const child = start('agent', {
      ...shared,
      STEWARD_HOST: '127.0.0.1',
      STEWARD_AGENT_PORT: String(port),
      STEWARD_AGENT_NAME: 'worker',
      STEWARD_AGENT_ID: id,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: llm.baseURL,
    });
    agents.push({ id, port, child });
  }
  const port = await freePort();
  start('orchestrator', {
    ...shared,
    PORT: String(port),
    STEWARD_HOST: '127.0.0.1',
    STEWARD_DATA_DIR: join(tmp, 'data'),
    STEWARD_AGENT_ENDPOINTS: agents.map((a) => `https://127.0.0.1:${a.port}`).join(','),
    STEWARD_AGENT_CA_FILE: tls.certFile,
    STEWARD_AGENT_PROBE_INTERVAL_MS: '300',
    STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
    ACME_KEY: key,
  });
  orchestratorUrl = `https://127.0.0.1:${port}`;
  // NB: a deadline, not a speed target: six processes start at once on a busy two-core machine.
  await waitFor(
    `${orchestratorUrl}/orchestrator/health`,
    180_000,
    (status) => status === 200,
    (body) => (body as Health).components.agents.healthy_agents === AGENTS,
  );
}, 240_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await client?.close();
  await llm?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function parallel(body: unknown): Promise<{ status: number; body: Answer }> {
  const res = await undiciFetch(`${orchestratorUrl}/orchestrator/parallel`, {
    method: 'POST',
    dispatcher: client,
    headers: { 'content-type': 'application/json', 'x-license-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

const query = (text: string) => ({ query: text, policy: POLICY, llm: { provider: 'openai', model: 'gpt-4o-mini' } });

describe('steward orchestrator with steward agent processes over HTTP/2 and TLS 1.3', () => {
  it('speaks h2 to clients that offer it, and HTTP/1.1 to those that do not', async () => {
    const session = http2.connect(orchestratorUrl, { ca: tls.cert });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '/orchestrator/health' });
        stream.on('response', (h) => resolve(Number(h[':status'])));
        stream.on('error', reject);
        stream.end();
      });
      expect(status).toBe(200);
      expect(session.alpnProtocol).toBe('h2');
    } finally {
      session.close();
    }
    const legacy = await new Promise<{ status: number; protocol: string | false | null }>((resolve, reject) => {
      const agent = new https.Agent({ ca: tls.cert, ALPNProtocols: ['http/1.1'] });
      const req = https.get(`${orchestratorUrl}/orchestrator/health`, { agent }, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, protocol: (res.socket as import('node:tls').TLSSocket).alpnProtocol });
      });
      req.on('error', reject);
    });
    expect(legacy).toEqual({ status: 200, protocol: 'http/1.1' });
  });

  it('runs 12 queries over the 5 agent processes in three batches', async () => {
    const from = seen.length;
    const res = await parallel({ queries: Array.from({ length: 12 }, (_, i) => query(`question ${i}`)) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.every((r: { status: string }) => r.status === 'success')).toBe(true);
    const utilization = res.body.execution_summary.agent_utilization as Record<string, number>;
    expect(Object.keys(utilization).sort()).toEqual(agents.map((a) => a.id));
    expect(Object.values(utilization).sort()).toEqual([2, 2, 2, 3, 3]);
    expect(
      maxOverlap(
        seen.slice(from).map((s) => s.at),
        DELAY_MS,
      ),
    ).toBeLessThanOrEqual(5);
  });

  it('refuses a policy that does not compile in query 7 before any query runs', async () => {
    const from = seen.length;
    const queries = Array.from({ length: 9 }, (_, i) => query(`q${i}`));
    queries[7] = { ...query('q7'), policy: 'package p\n\nallow if {\n' };
    const res = await parallel({ queries });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: { query_index: 7, field: 'policy', reason: expect.stringMatching(/query\.rego:\d+:\d+/) },
    });
    expect(seen.length).toBe(from);
  });

  it('gives the query of a hung provider QUERY_TIMEOUT and runs sequential mode one at a time', async () => {
    const hung = await parallel({ queries: [query('ok'), query('HANG'), query('ok too')], timeout_ms: 1500 });
    expect(
      hung.body.results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status),
    ).toEqual(['success', 'QUERY_TIMEOUT', 'success']);
    const from = seen.length;
    const seq = await parallel({ queries: [query('s0'), query('s1'), query('s2')], execution_mode: 'sequential' });
    expect(seq.status).toBe(200);
    expect(
      maxOverlap(
        seen.slice(from).map((s) => s.at),
        DELAY_MS,
      ),
    ).toBe(1);
  });

  it('answers AGENT_COMMUNICATION_ERROR for the query of an agent killed mid-request, and marks it unhealthy', async () => {
    const victim = agents[2]!;
    let inFlight = 0;
    onRequest = () => {
      // Every query has reached the LLM stand-in, so every agent holds one: kill one of them now.
      if (++inFlight === AGENTS) victim.child.kill('SIGKILL');
    };
    try {
      const res = await parallel({ queries: Array.from({ length: AGENTS }, (_, i) => query(`k${i}`)) });
      expect(res.status).toBe(200);
      const failed = res.body.results.filter((r: { status: string }) => r.status === 'error');
      expect(failed).toHaveLength(1);
      // NB: not retried on another agent: the item had been sent, and the agent may have run its LLM call.
      expect(failed[0]).toMatchObject({
        error: { code: 'AGENT_COMMUNICATION_ERROR' },
        metadata: { agent_id: victim.id },
      });
      expect(res.body.execution_summary).toMatchObject({ successful: AGENTS - 1, failed: 1 });
    } finally {
      onRequest = undefined;
    }
    const health = (await waitFor(`${orchestratorUrl}/orchestrator/health`, 10_000)) as Loose;
    expect(health.components.agents).toMatchObject({
      status: 'degraded',
      desired: AGENTS,
      healthy_agents: AGENTS - 1,
      unhealthy_agents: 1,
    });
    // The survivors take every query while it is down.
    const after = await parallel({ queries: Array.from({ length: 4 }, (_, i) => query(`a${i}`)) });
    expect(Object.keys(after.body.execution_summary.agent_utilization)).not.toContain(victim.id);
  });

  it('answers 503 ORCHESTRATOR_UNAVAILABLE, and /orchestrator/health 503, once every agent is down', async () => {
    for (const a of agents) if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
    const health = (await waitFor(
      `${orchestratorUrl}/orchestrator/health`,
      30_000,
      (status) => status === 503,
    )) as Loose;
    expect(health).toMatchObject({
      status: 'unhealthy',
      components: { agents: { healthy_agents: 0, unhealthy_agents: AGENTS }, load_balancer: { status: 'unhealthy' } },
    });
    const res = await parallel({ queries: [query('anyone?')] });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({
      code: 'ORCHESTRATOR_UNAVAILABLE',
      details: { healthy_agents: 0, unhealthy_agents: AGENTS },
    });
  });
});
