/**
 * The first hour of a newcomer (issue 32): `steward standalone` as `npm start` runs it, on the shipped samples, with
 * one provider key only (OpenAI, here a stand-in reached through the real SDK), driven over real sockets by clients
 * that know nothing of Steward's internals: the `openai` SDK with a placeholder key, and plain HTTP for the plan,
 * `/api/request` and the parallel surface. The samples name Anthropic and Ollama too: those agents run on the
 * default provider and say so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../testing/eventually.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { freePort, waitForHttp } from '../../testing/ports.js';

const BIN = new URL('../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;

let llm: FakeOpenAiServer;
let child: ChildProcess;
let output = '';
let tmp: string;
let gateway: string;
let orchestrator: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-one-provider-'));
  llm = await startFakeOpenAi();
  const [gw, orch] = [await freePort(), await freePort()];
  gateway = `http://127.0.0.1:${gw}`;
  orchestrator = `http://127.0.0.1:${orch}`;
  // NB: a clean environment: only what a newcomer sets (one key), and where to listen.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(STEWARD_|DATABASE_URL$|REDIS_URL$|LOG_|OPENAI_|ANTHROPIC_|OLLAMA_)/.test(k),
    ),
  );
  child = spawn(process.execPath, [BIN, 'standalone'], {
    cwd: ROOT,
    env: {
      ...base,
      OPENAI_API_KEY: 'sk-newcomer',
      OPENAI_BASE_URL: llm.baseURL,
      STEWARD_HOST: '127.0.0.1',
      STEWARD_GATEWAY_PORT: String(gw),
      STEWARD_ORCHESTRATOR_PORT: String(orch),
      STEWARD_DATA_DIR: join(tmp, 'data'),
      STEWARD_WATCH_MANIFESTS: 'false',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  // NB: a deadline, not a speed target: a fresh data folder runs initdb, slow on a busy 2-core machine.
  await waitForHttp(`${gateway}/health`, 120_000);
  await waitForHttp(`${orchestrator}/health`, 10_000);
}, 150_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await llm?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** An answer read loosely: the assertions check its shape. */
interface Answer {
  success?: boolean;
  blocked?: boolean;
  metadata: { tasks: Task[] };
  results: { status: string; error?: unknown; metadata: { provider?: string; fallback?: boolean } }[];
  api_key?: string;
  client_id?: string;
  id?: string;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

interface Task {
  name: string;
  agent: string;
  status: string;
  provider?: string;
  fallback?: boolean;
  requested_provider?: string;
}

describe('npm start with only an OpenAI key', () => {
  it('warns at start-up of each sample agent that runs on the default provider', () => {
    const warnings = output
      .split('\n')
      .filter((l) => l.includes('which is not configured: it runs on the default provider openai'))
      .map((l) => (JSON.parse(l) as { agentConfig: string }).agentConfig);
    // The samples that name anthropic or ollama (config/samples/agents-*.yaml).
    expect(warnings).toEqual(expect.arrayContaining(['hotel-search', 'transaction-reviewer']));
    expect(warnings).not.toContain('flight-search');
  });

  it.each(['travel', 'healthcare', 'finance', 'generic'])(
    'runs a %s plan on the sample agents, with the fallback in its tasks',
    async (domain) => {
      const { status, body } = await post(`${orchestrator}/api/v1/plan`, {
        query: `Help me with a ${domain} question about next week`,
        domain,
      });
      expect(status).toBe(200);
      expect(body.success).toBe(true);
      const tasks = body.metadata.tasks;
      expect(tasks.length).toBeGreaterThan(0);
      for (const t of tasks) expect(t).toMatchObject({ status: 'completed', provider: 'openai' });
      for (const t of tasks.filter((x) => x.fallback))
        expect(t.requested_provider).toMatch(/^(anthropic|ollama|aws-bedrock)$/);
    },
  );

  it('runs a plan whose agent names Anthropic through /api/request, as an SDK sends it', async () => {
    const { status, body } = await post(`${gateway}/api/request`, {
      query: 'Plan a trip to Rome: find flights and a hotel',
      request_type: 'multi-agent-plan',
      user_token: 'me',
      client_id: 'demo',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, blocked: false });
    const hotel = body.metadata.tasks.find((t) => t.agent === 'hotel-search');
    expect(hotel).toMatchObject({
      status: 'completed',
      provider: 'openai',
      fallback: true,
      requested_provider: 'anthropic',
    });
  });

  it('answers parallel queries on the sample agents, each naming the provider it ran on', async () => {
    const queries = Array.from({ length: 6 }, (_, i) => ({
      query: `question ${i}`,
      policy: 'package q\n\nallow := true\n',
    }));
    const { status, body } = await post(`${orchestrator}/orchestrator/parallel`, { queries });
    expect(status).toBe(200);
    const results = body.results;
    expect(results.map((r) => r.error ?? r.status)).toEqual(queries.map(() => 'success'));
    // NB: a query that lands on a coordinator (no spec.llm) is answered with its policy decision, without a model call.
    const called = results.filter((r) => r.metadata.provider !== undefined);
    expect(called.length).toBeGreaterThan(0);
    for (const r of called) expect(r.metadata.provider).toBe('openai');
  });

  it("admits the OpenAI SDK's placeholder key as the community identity, and says so in a header", async () => {
    const client = new OpenAI({ baseURL: `${gateway}/v1`, apiKey: 'anything', maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toContain('Say hello');
    expect(response.headers.get('x-steward-auth')).toContain('community');
    // NB: the process's log reaches this test through a pipe, after the answer
    await eventually(() =>
      expect(output.split('\n').filter((l) => l.includes('community mode admits bearer values'))).toHaveLength(1),
    );
  });

  it('still refuses a key revoked with DELETE /api/clients/{id}', async () => {
    const created = await post(`${gateway}/api/clients`, { name: 'to-revoke' });
    expect(created.status).toBe(201);
    const key = String(created.body.api_key);
    const id = String(created.body.client_id ?? created.body.id);
    const client = new OpenAI({ baseURL: `${gateway}/v1`, apiKey: key, maxRetries: 0 });
    const ok = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'before' }] })
      .withResponse();
    expect(ok.response.headers.get('x-steward-auth')).toBeNull();
    const revoked = await fetch(`${gateway}/api/clients/${id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    const refused = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'after' }] })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('api_key_revoked');
  });
});
