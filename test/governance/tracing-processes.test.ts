import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../api/index.js';
import { waitUntil } from '../../testing/eventually.js';
import { agentConfigYaml, licenseYaml, TEST_SIGNING_SECRET } from '../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../testing/otlp.js';
import { freePort } from '../../testing/ports.js';

/**
 * One plan, one trace, across processes (issue 36, item 4): `steward gateway`, `steward orchestrator` and a
 * `steward agent` on local ports, each exporting to the OTLP receiver in this test. The caller's `traceparent`
 * reaches the gateway; the forwarded plan, the work item and the agent's provider call carry the trace on, so that
 * every process's spans join one trace, parent to child.
 */
const BIN = new URL('../../bin/steward.mjs', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = 'tracing-processes-internal-secret-0123456789';
const TOKEN = 'agent-token-for-tracing-tests';

let tmp: string;
let otlp: OtlpReceiver;
let llm: FakeOpenAiServer;
let key: string;
let gatewayUrl: string;
let orchestratorUrl: string;
const children: ChildProcess[] = [];
const output: string[] = [];

function start(command: string, env: Record<string, string>): void {
  const child = spawn(process.execPath, [BIN, command], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      DATABASE_URL: '',
      REDIS_URL: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => output.push(`${command} ${String(d)}`));
  child.stderr!.on('data', (d) => output.push(`${command} ${String(d)}`));
  children.push(child);
}

async function ready(url: string, wanted: (body: Record<string, unknown>) => boolean = () => true): Promise<void> {
  await waitUntil(
    `${url} ready`,
    async () => {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
        return res.status === 200 && wanted((await res.json()) as Record<string, unknown>);
      } catch {
        return false;
      }
    },
    // NB: a deadline, not a speed target: three processes start at once on a busy two-core machine.
    { timeoutMs: 180_000, everyMs: 250, diagnose: () => output.join('').slice(-4000) },
  );
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'steward-tracing-proc-'));
  otlp = await startOtlpReceiver();
  llm = await startFakeOpenAi({ otherwise: () => ({ kind: 'reply', text: 'Two days by the river.' }) });
  key = issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2099-12-31T00:00:00Z'), secret: TEST_SIGNING_SECRET });
  // NB: the manifests in a folder of their own: a folder source reads its folders recursively, and the processes'
  // data folders (PGlite's files, written while the others start) must not be under it.
  await mkdir(join(tmp, 'manifests'));
  await writeFile(
    join(tmp, 'manifests', 'manifests.yaml'),
    licenseYaml('acme', 'acme', 'ACME_KEY') +
      agentConfigYaml('worker', 1, { provider: 'openai', model: 'gpt-4o-mini' }),
  );
  const shared = {
    STEWARD_MANIFESTS: join(tmp, 'manifests'),
    STEWARD_WATCH_MANIFESTS: 'false',
    STEWARD_HOST: '127.0.0.1',
    STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
    ACME_KEY: key,
  };
  const [agentPort, orchestratorPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  start('agent', {
    ...shared,
    STEWARD_AGENT_PORT: String(agentPort),
    STEWARD_AGENT_NAME: 'worker',
    STEWARD_AGENT_ID: 'worker-0',
    STEWARD_AGENT_TOKEN: TOKEN,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: llm.baseURL,
  });
  start('orchestrator', {
    ...shared,
    PORT: String(orchestratorPort),
    STEWARD_DATA_DIR: join(tmp, 'orchestrator'),
    STEWARD_AGENT_ENDPOINTS: `http://127.0.0.1:${agentPort}`,
    STEWARD_AGENT_TOKEN: TOKEN,
    STEWARD_AGENT_PROBE_INTERVAL_MS: '300',
    STEWARD_INTERNAL_SECRET: SECRET,
  });
  orchestratorUrl = `http://127.0.0.1:${orchestratorPort}`;
  start('gateway', {
    ...shared,
    STEWARD_GATEWAY_PORT: String(gatewayPort),
    STEWARD_DATA_DIR: join(tmp, 'gateway'),
    STEWARD_ORCHESTRATOR_URL: orchestratorUrl,
    STEWARD_INTERNAL_SECRET: SECRET,
  });
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await ready(
    `${orchestratorUrl}/orchestrator/health`,
    (b) => (b as { components?: { agents?: { healthy_agents?: number } } }).components?.agents?.healthy_agents === 1,
  );
  await ready(`${gatewayUrl}/readyz`);
}, 240_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await llm?.close();
  await otlp?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('a plan across steward gateway, orchestrator and agent processes', () => {
  it('is one trace, each process a child of the one before, the provider called within it', async () => {
    const traceId =
      'f'.repeat(8) +
      [...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const res = await fetch(`${gatewayUrl}/api/request`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-license-key': key,
        traceparent: `00-${traceId}-bbbbbbbbbbbbbbbb-01`,
      },
      body: JSON.stringify({ query: 'Plan a weekend in Porto', request_type: 'multi-agent-plan', user_token: 'u' }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(200);

    const services = () => new Set(otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.service));
    await waitUntil(
      'spans of all three processes',
      () => ['steward-gateway', 'steward-orchestrator', 'steward-agent'].every((s) => services().has(s)),
      { timeoutMs: 30_000, diagnose: () => [...services()].join(', ') + '\n' + output.join('').slice(-2000) },
    );
    // NB: the gateway's server span ends last; wait for it so that the parent chain is complete.
    await waitUntil('the gateway span', () =>
      otlp.spans.some((s) => s.traceId === traceId && s.name === 'POST /api/request'),
    );
    const spans = otlp.spans.filter((s) => s.traceId === traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);

    const gateway = spans.find((s) => s.service === 'steward-gateway' && s.name === 'POST /api/request')!;
    expect(gateway.parentSpanId).toBe('bbbbbbbbbbbbbbbb');
    const orchestrator = spans.find((s) => s.service === 'steward-orchestrator' && s.kind === 2)!;
    expect(parentOf(orchestrator)?.service).toBe('steward-gateway');
    const step = spans.find((s) => s.service === 'steward-orchestrator' && s.name.startsWith('invoke_agent'))!;
    expect(step.attributes['gen_ai.agent.name']).toBe('worker');
    const agentServer = spans.find((s) => s.service === 'steward-agent' && s.name === 'POST /v1/work')!;
    expect(agentServer.parentSpanId).toBe(step.spanId);
    const agentChat = spans.find((s) => s.service === 'steward-agent' && s.name.startsWith('chat'))!;
    expect(agentChat.parentSpanId).toBe(agentServer.spanId);
    expect(agentChat.attributes['gen_ai.provider.name']).toBe('openai');
    // the provider saw the agent's chat span as its parent
    const call = llm.requests.find((r) => r.headers.traceparent?.includes(traceId));
    expect(call?.headers.traceparent).toBe(`00-${traceId}-${agentChat.spanId}-01`);
    // and every span of the trace chains up to the caller
    for (const s of spans) {
      let at: ReceivedSpan | undefined = s;
      for (let hops = 0; at && parentOf(at) && hops < 50; hops++) at = parentOf(at);
      expect(at?.parentSpanId, `${s.service} ${s.name}`).toBe('bbbbbbbbbbbbbbbb');
    }
  }, 90_000);
});
