/**
 * Parallel surface benchmark (issue 17): `POST /orchestrator/parallel` with N = 1, 5, 10, 20 I/O-bound queries over
 * a pool of five agents, each query's LLM step calling an OpenAI stand-in (this process, the real SDK) that answers
 * 200 ms after the request arrived. Two pools: five in-process agents (standalone), and five `steward agent`
 * processes reached over HTTP/2 with TLS 1.3 (STEWARD_AGENT_ENDPOINTS). The orchestrator runs in this process and
 * is called over a real socket.
 *
 * Figures per N: the measured speedup (the summary's, sum of query latencies over wall time) against the ideal
 * min(N, 5); the overhead per query (its latency as the orchestrator measured it, minus the stand-in's 200 ms: the
 * policy decision, the SDK call, the transport to the agent and back) at p50 and p99; the request's wall time over
 * the ideal ceil(N / 5) × 200 ms; CPU of this process per query; and a check that every query came back exactly
 * once and reached the stand-in exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import {
  agentConfigYaml,
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer, type RecordedRequest } from '../testing/llm/index.js';
import { lastUserText } from '../testing/llm/server.js';
import { freePort } from '../testing/ports.js';
import { throwawayCertificate } from '../testing/tls.js';
import { listenUrl } from '../runtime/http/app.js';
import type { ParallelResult } from '../runtime/orchestrator/parallel/execute.js';
import { RemoteAgent } from '../runtime/orchestrator/pool/remote-agent.js';
import { machine, NODE_FLAGS, percentile, processFlags } from './report.js';

const STAND_IN_MS = 200;
const POOL = 5;
const SIZES = [1, 5, 10, 20];
const REQUESTS = Number(process.env.BENCH_PARALLEL_REQUESTS ?? 15);
const POLICY = 'package bench.parallel\n\ndeny contains "no secrets" if contains(input.query, "secret")\n';
const TOKEN = 'bench-agent-token-0123456789';

interface Row {
  pool: string;
  n: number;
  speedupP50: number;
  ideal: number;
  overheadP50: number;
  overheadP99: number;
  ownP50: number;
  ownP99: number;
  wallOverIdealP50: number;
  cpuMsPerQuery: number;
  lost: number;
  duplicated: number;
}

interface Answer {
  results: ParallelResult[];
  execution_summary: { total_time_ms: number; parallel_speedup: string };
}

async function measure(
  pool: string,
  url: string,
  headers: Record<string, string>,
  dispatcher: Agent,
  arrivals: Map<string, number>,
): Promise<Row[]> {
  const rows: Row[] = [];
  let serial = 0;
  for (const n of SIZES) {
    const speedups: number[] = [];
    const overheads: number[] = [];
    /** the orchestrator's own part: its latency minus the agent's own */
    const own: number[] = [];
    const walls: number[] = [];
    let lost = 0;
    let duplicated = 0;
    // Two requests to warm up (connections, compiled policy, JIT), not counted.
    for (let r = -2; r < REQUESTS; r++) {
      const tag = `r${serial++}`;
      const cpu = process.cpuUsage();
      const res = await fetch(`${url}/orchestrator/parallel`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          queries: Array.from({ length: n }, (_, i) => ({
            query: `${tag} q${i}`,
            policy: POLICY,
            llm: { provider: 'openai', model: 'gpt-4o-mini' },
          })),
        }),
      });
      const body = (await res.json()) as Answer;
      const used = process.cpuUsage(cpu);
      if (res.status !== 200) throw new Error(`${pool} N=${n}: ${res.status} ${JSON.stringify(body)}`);
      if (r < 0) continue;
      const indexes = body.results.map((q) => q.query_index);
      lost += n - new Set(indexes).size;
      duplicated += indexes.length - new Set(indexes).size;
      for (let i = 0; i < n; i++) {
        const reached = arrivals.get(`${tag} q${i}`) ?? 0;
        if (reached === 0) lost++;
        if (reached > 1) duplicated += reached - 1;
      }
      if (body.results.some((q) => q.status !== 'success'))
        throw new Error(`${pool} N=${n}: ${JSON.stringify(body.results.find((q) => q.status !== 'success'))}`);
      speedups.push(parseFloat(body.execution_summary.parallel_speedup));
      for (const q of body.results) {
        overheads.push(q.metadata.latency_ms - STAND_IN_MS);
        own.push(q.metadata.latency_ms - q.metadata.agent_latency_ms);
      }
      walls.push(body.execution_summary.total_time_ms / (Math.ceil(n / POOL) * STAND_IN_MS));
      cpuTotals.set(`${pool}/${n}`, (cpuTotals.get(`${pool}/${n}`) ?? 0) + (used.user + used.system) / 1000);
    }
    const sort = (a: number[]) => [...a].sort((x, y) => x - y);
    rows.push({
      pool,
      n,
      speedupP50: percentile(sort(speedups), 50),
      ideal: Math.min(n, POOL),
      overheadP50: percentile(sort(overheads), 50),
      overheadP99: percentile(sort(overheads), 99),
      ownP50: percentile(sort(own), 50),
      ownP99: percentile(sort(own), 99),
      wallOverIdealP50: percentile(sort(walls), 50),
      cpuMsPerQuery: cpuTotals.get(`${pool}/${n}`)! / (REQUESTS * n),
      lost,
      duplicated,
    });
  }
  return rows;
}

const cpuTotals = new Map<string, number>();

async function standIn(): Promise<{ llm: FakeOpenAiServer; arrivals: Map<string, number> }> {
  const arrivals = new Map<string, number>();
  const llm = await startFakeOpenAi({
    delayMs: STAND_IN_MS,
    hangWhen: (req: RecordedRequest) => {
      const q = lastUserText((req.body as { messages?: unknown }).messages);
      arrivals.set(q, (arrivals.get(q) ?? 0) + 1);
      return false;
    },
  });
  return { llm, arrivals };
}

/** Five in-process agents, as `steward standalone` runs them. */
async function inProcess(): Promise<Row[]> {
  const { llm, arrivals } = await standIn();
  let gw: TestGateway | undefined;
  let o: TestOrchestrator | undefined;
  const dispatcher = new Agent();
  try {
    gw = await startTestGateway({
      env: {
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_BASE_URL: llm.baseURL,
        STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
        STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
      },
      manifests: agentConfigYaml('worker', POOL, { provider: 'openai', model: 'gpt-4o-mini' }),
      policyPack: false,
    });
    o = await startTestOrchestrator(gw);
    // NB: the gateway's policy isolation workers start (and compile) shortly after it; their CPU is not the surface's.
    await (gw.parts.deps.policies as { ready?: () => Promise<void> }).ready?.();
    await o.app.listen({ host: '127.0.0.1', port: 0 });
    return await measure('in-process', listenUrl(o.app), { 'x-license-key': gw.keys.acme }, dispatcher, arrivals);
  } finally {
    await o?.close();
    await gw?.close();
    await dispatcher.close();
    await llm.close();
  }
}

/** A `steward agent` process serving AgentConfig `worker` of `dir` on 127.0.0.1:`port`, with `env` added. */
function spawnAgent(port: number, dir: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...NODE_FLAGS, 'bin/steward.mjs', 'agent'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      STEWARD_HOST: '127.0.0.1',
      STEWARD_AGENT_PORT: String(port),
      STEWARD_AGENT_NAME: 'worker',
      STEWARD_MANIFESTS: dir,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Five `steward agent` processes over HTTP/2 with TLS 1.3, the orchestrator in this process. */
async function remote(): Promise<Row[]> {
  const { llm, arrivals } = await standIn();
  const dir = mkdtempSync(join(tmpdir(), 'steward-bench-parallel-'));
  const tls = throwawayCertificate(dir);
  writeFileSync(
    join(dir, 'agents.yaml'),
    agentConfigYaml('worker', POOL, { provider: 'openai', model: 'gpt-4o-mini' }),
  );
  const children: ChildProcess[] = [];
  const dispatcher = new Agent();
  let gw: TestGateway | undefined;
  let o: TestOrchestrator | undefined;
  try {
    const endpoints: string[] = [];
    for (let i = 0; i < POOL; i++) {
      const port = await freePort();
      endpoints.push(`https://127.0.0.1:${port}`);
      children.push(
        spawnAgent(port, dir, {
          STEWARD_AGENT_ID: `agent-${i}`,
          STEWARD_TLS_CERT_FILE: tls.certFile,
          STEWARD_TLS_KEY_FILE: tls.keyFile,
          STEWARD_AGENT_TOKEN: TOKEN,
          OPENAI_API_KEY: 'sk-bench',
          OPENAI_BASE_URL: llm.baseURL,
        }),
      );
    }
    gw = await startTestGateway({
      env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000', STEWARD_RATE_LIMIT_PER_HOUR: '1000000' },
      policyPack: false,
    });
    o = await startTestOrchestrator(gw, {
      agentEndpoints: endpoints,
      agentToken: TOKEN,
      agentCa: tls.cert,
      probeIntervalMs: 200,
    });
    await (gw.parts.deps.policies as { ready?: () => Promise<void> }).ready?.();
    const deadline = Date.now() + 120_000;
    while (o.parts.pool.status().healthy < POOL) {
      if (Date.now() > deadline) throw new Error(`agents not healthy: ${JSON.stringify(o.parts.pool.status())}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await o.app.listen({ host: '127.0.0.1', port: 0 });
    return await measure(
      '5 agent processes, h2 + TLS 1.3',
      listenUrl(o.app),
      { 'x-license-key': gw.keys.acme },
      dispatcher,
      arrivals,
    );
  } finally {
    await o?.close();
    await gw?.close();
    for (const c of children) c.kill('SIGKILL');
    await dispatcher.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The transport alone: one `steward agent` process per protocol, a policy-only work item (no LLM step), sent one at
 * a time through RemoteAgent; the figure is the call's time minus the agent's own.
 */
async function transport(): Promise<{ protocol: string; p50: number; p99: number }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-bench-transport-'));
  const tls = throwawayCertificate(dir);
  writeFileSync(join(dir, 'agents.yaml'), agentConfigYaml('worker', 1));
  const out: { protocol: string; p50: number; p99: number }[] = [];
  try {
    for (const secure of [false, true]) {
      const port = await freePort();
      const child = spawnAgent(
        port,
        dir,
        secure ? { STEWARD_TLS_CERT_FILE: tls.certFile, STEWARD_TLS_KEY_FILE: tls.keyFile } : {},
      );
      const agent = new RemoteAgent({ endpoint: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`, ca: tls.cert });
      try {
        const deadline = Date.now() + 120_000;
        for (;;) {
          try {
            await agent.probe(AbortSignal.timeout(1000));
            break;
          } catch (err) {
            if (Date.now() > deadline) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        const item = (i: number) => ({
          requestId: 'bench',
          queryIndex: i,
          query: 'hello',
          policy: POLICY,
          timeoutMs: 5000,
        });
        for (let i = 0; i < 300; i++) await agent.execute(item(i));
        const own: number[] = [];
        for (let i = 0; i < 2000; i++) {
          const t = performance.now();
          const r = await agent.execute(item(i));
          own.push(performance.now() - t - r.latencyMs);
        }
        own.sort((a, b) => a - b);
        out.push({
          protocol: secure ? 'HTTP/2 + TLS 1.3' : 'HTTP/1.1',
          p50: percentile(own, 50),
          p99: percentile(own, 99),
        });
      } finally {
        await agent.close();
        child.kill('SIGKILL');
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

export async function run(): Promise<{ markdown: string }> {
  const load = loadavg()[0]!.toFixed(2);
  const rows = [...(await inProcess()), ...(await remote())];
  const hops = await transport();
  const lines = rows.map(
    (r) =>
      `| ${r.pool} | ${r.n} | ${fmt(r.speedupP50, 1)}x (${fmt(r.speedupP50 / r.ideal)} of ${r.ideal}) | ${fmt(r.ownP50)} | ${fmt(r.ownP99)} | ${fmt(r.overheadP50)} | ${fmt(r.overheadP99)} | ${fmt(r.wallOverIdealP50, 3)} | ${fmt(r.cpuMsPerQuery)} | ${r.lost} / ${r.duplicated} |`,
  );
  const markdown = `## Parallel surface (issue 17)

${new Date().toISOString().slice(0, 10)} · ${machine()} · ${processFlags()} · load average at start ${load}

Method: \`npm run bench -- parallel\` (bench/parallel.ts). \`POST /orchestrator/parallel\` over a real socket, ${REQUESTS} requests per N after 2 warm-up requests, one request at a time; every query's policy allows it and its LLM step calls an OpenAI stand-in in the bench process (the real SDK) that answers ${STAND_IN_MS} ms after the request arrived. Speedup: the summary's (sum of query latencies over wall time), p50, against the ideal min(N, ${POOL}). Orchestrator overhead per query: its latency as the orchestrator measured it (hand-over to the agent until the answer) minus the agent's own (\`metadata.agent_latency_ms\`): the pool's dispatch and the transport both ways. Around the LLM call: the orchestrator's latency minus the stand-in's ${STAND_IN_MS} ms (also the agent's policy decision and its SDK call). Wall / ideal: the request's wall time over ceil(N / ${POOL}) × ${STAND_IN_MS} ms. CPU: this process (orchestrator, stand-in and, in the first pool, the agents) per query. Lost / duplicated: queries missing from or repeated in the answers or at the stand-in.

| Pool | N | Speedup p50 | Orchestrator overhead/query p50 ms | p99 ms | Around the LLM call p50 ms | p99 ms | Wall / ideal p50 | CPU ms/query | Lost / duplicated |
|---|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}

The transport alone (a policy-only work item, no LLM step, one at a time, 2000 calls after 300 warm-up calls; the
call's time through RemoteAgent minus the agent's own): ${hops.map((h) => `${h.protocol} p50 ${fmt(h.p50, 3)} ms, p99 ${fmt(h.p99, 3)} ms`).join('; ')}.
With the LLM step, the remote figures above also hold the agent's event loop finishing the SDK call and, for N ≥ 5,
five agent processes, the stand-in and the orchestrator answering at the same moment on ${cpus().length} cores.
`;
  return { markdown };
}
