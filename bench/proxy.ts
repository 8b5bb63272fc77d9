/**
 * Proxy benchmark: Steward's governed `/v1/chat/completions` and `/v1/execute` against the LLM stand-in called
 * directly and against Portkey's open-source gateway with regex input guardrails, same stand-in, same requests,
 * same run. Every server runs alone in its own child process with the same node flags; the clients run here.
 * Rows are measured in interleaved rounds (the order rotates each round) so that drift on the machine hits all alike.
 *
 * 1. sequential: one keep-alive connection, the whole answer; added latency = a row's percentile − the direct one's;
 * 2. streams: the same, time to the first body byte, to the first content chunk, and to the end;
 * 3. a steady 200 requests/s (steady.ts, open loop): CPU per request of the gateway process (/proc);
 * 4. a steady 500 requests/s: the largest resident set of the gateway process (VmRSS sampled every 50 ms).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startOtlpReceiver, type OtlpReceiver } from '../testing/otlp.js';
import { createTempDatabase } from '../testing/pgdb.js';
import { buildServers, cpuTimeUs, DatabaseCpu, machineTicks } from './gateway.js';
import {
  BENIGN_PROMPT,
  chatBody,
  closePools,
  executeBody,
  once,
  sequential,
  sequentialStreams,
  SSN_PROMPT,
  type StreamTiming,
  type Target,
} from './proxy-client.js';
import {
  portkeyConfig,
  portkeyVersions,
  rssBytes,
  rssSampler,
  startPortkey,
  workerThreads,
  startSteward,
  startUpstream,
  UPSTREAM_KEY,
  type Proc,
} from './proxy-servers.js';
import { proxyMarkdown, type Figures, type RateRow, type StreamRow } from './proxy-report.js';
import { steadyLoad } from './steady.js';

/**
 * `BENCH_PROXY_ROWS=core`: Portkey and Steward on PostgreSQL alone (no variants, no PGlite), to compare two commits
 * in a few minutes; the full set is the default and what docs/benchmarks.md keeps.
 */
const CORE = process.env.BENCH_PROXY_ROWS === 'core';
/** Multiplies every count (longer runs: `BENCH_PROXY_SCALE=4`). */
const SCALE = Number(process.env.BENCH_PROXY_SCALE ?? 1);
const ROUNDS = 5;
const SEQUENTIAL = Math.round(300 * SCALE);
const STREAMS = Math.round(100 * SCALE);
const CHUNKS = Number(process.env.BENCH_PROXY_CHUNKS ?? 10);
const CHUNK_DELAY_MS = Number(process.env.BENCH_PROXY_CHUNK_DELAY_MS ?? 5);
const CPU_RATE = 200;
const CPU_ROUNDS = 3;
const CPU_REQUESTS = Math.round(1000 * SCALE);
const RSS_RATE = 500;
const RSS_REQUESTS = Math.round(4000 * SCALE);
const CONNECTIONS = 10;
/** PostgreSQL rows: a fresh database on this server (DATABASE_URL, else the local test server). */
const PG_BASE = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const UNCHAINED = 'PostgreSQL, audit hash chain off (trigger disabled)';
const TRACED = 'PostgreSQL, traces and GenAI metrics exported (OTLP/HTTP)';
/** The audit chain's insert trigger (migration 9), off: the row is inserted as before the chain existed. */
const CHAIN_OFF = 'ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_chain';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The Steward measured: the commit, and whether the server's sources differ from it. */
function revision(): string {
  if (process.env.BENCH_PROXY_REVISION) return process.env.BENCH_PROXY_REVISION;
  const git = (...args: string[]) => spawnSync('git', args, { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return 'not a git checkout';
  const dirty = git('status', '--porcelain', '--', 'api', 'platform', 'rego', 'runtime', 'config').stdout.trim();
  return `commit ${head.stdout.trim()}${dirty ? ' with uncommitted changes to the server (work in progress)' : ''}`;
}

/** The pack's output redaction, disabled by a user document of the same name (user folders win). */
/** A Budget whose empty scope charges every call, with limits no run reaches. */
const EVERY_CALL_BUDGET = `apiVersion: steward.dev/v1alpha1
kind: Budget
metadata: {name: every-call}
spec:
  limit: {usd: 1000000000, tokens: 1000000000000}
  window: {period: month, timeZone: Europe/Lisbon}
---
`;

const OUTPUT_REDACTION_OFF = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: builtin-output-redaction}
spec:
  type: pii
  action: redact
  enabled: false
  redact: {kinds: [pii, secrets]}
  scope: {surfaces: [llm_output]}
`;

/** The targets in the order of round `i` (rotated, so no row always follows the same one). */
function rotate<T>(xs: readonly T[], i: number): T[] {
  const k = i % xs.length;
  return [...xs.slice(k), ...xs.slice(0, k)];
}

export async function run(): Promise<{ markdown: string }> {
  const loads: number[] = [loadavg()[0]!];
  const loadBefore = loadavg();
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-proxy-'));
  const procs: Proc[] = [];
  let database: Awaited<ReturnType<typeof createTempDatabase>> | undefined;
  let unchained: Awaited<ReturnType<typeof createTempDatabase>> | undefined;
  let otlp: OtlpReceiver | undefined;
  let dbCpu: DatabaseCpu | undefined;
  let pgNote = '';
  try {
    try {
      database = await createTempDatabase(PG_BASE);
      dbCpu = await DatabaseCpu.open(database.url);
    } catch (err) {
      pgNote = `PostgreSQL rows left out: ${(err as Error).message}`;
      console.error(pgNote);
    }
    buildServers();
    const upstream = await startUpstream(CHUNKS, CHUNK_DELAY_MS);
    procs.push(upstream);
    const portkey = await startPortkey();
    procs.push(portkey);
    const lite = CORE ? undefined : await startSteward({ upstream: upstream.origin, dataDir: join(dataDir, 'pglite') });
    if (lite) procs.push(lite);
    // The PostgreSQL gateways, each one setting apart (the same built-in pack and stand-in):
    // - the durability trade-off (STEWARD_LLM_AUDIT=background: context and audit entry written behind the answer);
    // - what streaming redaction adds to the first chunk: the pack's output redaction disabled;
    // - what admission with budgets adds (issue 35): one Budget that charges every call, never refused;
    // - what the audit hash chain adds (issue 36): a database of its own whose chain trigger is disabled;
    // - what tracing adds (issue 36): spans and GenAI metrics exported over OTLP/HTTP to a receiver in this process.
    if (database) otlp = await startOtlpReceiver({ keep: false });
    const manifests = (name: string, yaml: string) => {
      const dir = join(dataDir, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'manifest.yaml'), yaml);
      return dir;
    };
    const pgVariant = async (name: string, env: Record<string, string> = {}, url = database?.url) => {
      if (!url || (CORE && name !== 'pg')) return undefined;
      const p = await startSteward({ upstream: upstream.origin, dataDir: join(dataDir, name), databaseUrl: url, env });
      procs.push(p);
      return p;
    };
    const pgGw = await pgVariant('pg');
    const bgGw = await pgVariant('pg-bg', { STEWARD_LLM_AUDIT: 'background' });
    const plainGw = await pgVariant('pg-plain', {
      STEWARD_MANIFESTS: manifests('no-output-redaction', OUTPUT_REDACTION_OFF),
    });
    const budgetGw = await pgVariant('pg-budget', { STEWARD_MANIFESTS: manifests('budget', EVERY_CALL_BUDGET) });
    if (database && !CORE) unchained = await createTempDatabase(PG_BASE);
    const unchainedGw = await pgVariant('pg-unchained', {}, unchained?.url);
    if (unchained) await withClient(unchained.url, (c) => c.query(CHAIN_OFF));
    const tracedGw = await pgVariant(
      'pg-traced',
      otlp ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '1000' } : {},
    );

    const direct: Target = {
      label: 'stand-in called directly',
      origin: upstream.origin,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
      body: chatBody,
    };
    const pk: Target = {
      label: `Portkey ${portkeyVersions().portkey}, regex input guardrails`,
      origin: portkey.origin,
      path: '/v1/chat/completions',
      headers: { 'x-portkey-config': portkeyConfig(upstream.origin) },
      body: chatBody,
      pid: portkey.pid,
    };
    const steward = (p: Proc, store: string, route: 'chat' | 'execute'): Target => ({
      label: `Steward ${route === 'chat' ? '/v1/chat/completions' : '/v1/execute'}, ${store}`,
      origin: p.origin,
      path: route === 'chat' ? '/v1/chat/completions' : '/v1/execute',
      headers: {},
      body: route === 'chat' ? chatBody : executeBody,
      pid: p.pid,
    });
    const chatRows = [
      pk,
      ...(pgGw ? [steward(pgGw, 'PostgreSQL', 'chat')] : []),
      ...(bgGw ? [steward(bgGw, 'PostgreSQL, STEWARD_LLM_AUDIT=background', 'chat')] : []),
      ...(budgetGw ? [steward(budgetGw, 'PostgreSQL, a Budget charging every call', 'chat')] : []),
      ...(unchainedGw ? [steward(unchainedGw, UNCHAINED, 'chat')] : []),
      ...(tracedGw ? [steward(tracedGw, TRACED, 'chat')] : []),
      ...(lite ? [steward(lite, 'PGlite', 'chat')] : []),
    ];
    const gateways = [
      ...chatRows,
      ...(pgGw ? [steward(pgGw, 'PostgreSQL', 'execute')] : []),
      ...(bgGw ? [steward(bgGw, 'PostgreSQL, STEWARD_LLM_AUDIT=background', 'execute')] : []),
      ...(budgetGw ? [steward(budgetGw, 'PostgreSQL, a Budget charging every call', 'execute')] : []),
      ...(unchainedGw ? [steward(unchainedGw, UNCHAINED, 'execute')] : []),
      ...(tracedGw ? [steward(tracedGw, TRACED, 'execute')] : []),
      ...(lite ? [steward(lite, 'PGlite', 'execute')] : []),
    ];
    const plainRow = plainGw ? [steward(plainGw, 'PostgreSQL, output redaction disabled', 'chat')] : [];
    const all = [direct, ...gateways];

    // Fairness: every gateway blocks the SSN prompt before the stand-in and passes the benign one.
    const checks: Figures['checks'] = [];
    for (const t of gateways) {
      const blocked = await once(t, SSN_PROMPT);
      const passed = await once(t, BENIGN_PROMPT);
      if (blocked.status < 400 || passed.status !== 200)
        throw new Error(
          `${t.label}: SSN prompt ${blocked.status}, benign prompt ${passed.status} ${passed.body.slice(0, 300)}`,
        );
      checks.push({ label: t.label, blocked: blocked.status, code: codeOf(blocked.body), passed: passed.status });
    }

    console.log('warm-up …');
    for (const t of all) await sequential(t, 200);
    for (const t of [direct, ...chatRows, ...plainRow]) await sequentialStreams(t, 10);
    for (const t of all) await steady(t, CPU_RATE, 400);

    console.log('sequential …');
    const seq = new Map<Target, number[]>(all.map((t) => [t, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of rotate(all, r)) seq.get(t)!.push(...(await sequential(t, Math.ceil(SEQUENTIAL / ROUNDS))));
      loads.push(loadavg()[0]!);
    }

    console.log('streams …');
    const streamTargets = [direct, ...chatRows, ...plainRow];
    const streams = new Map<Target, StreamTiming[]>(streamTargets.map((t) => [t, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of rotate(streamTargets, r))
        streams.get(t)!.push(...(await sequentialStreams(t, Math.ceil(STREAMS / ROUNDS))));
      loads.push(loadavg()[0]!);
    }

    console.log(`${CPU_RATE} requests/s …`);
    const cpuRuns = new Map<Target, RateRow[]>(all.map((t) => [t, []]));
    for (let r = 0; r < CPU_ROUNDS; r++) {
      for (const t of rotate(all, r))
        cpuRuns
          .get(t)!
          .push(
            await rateRun(
              t,
              CPU_RATE,
              CPU_REQUESTS,
              t.label.includes('PostgreSQL') ? dbCpu : undefined,
              t.pid ?? upstream.pid,
            ),
          );
      loads.push(loadavg()[0]!);
    }

    console.log(`${RSS_RATE} requests/s …`);
    const rssRows = new Map<Target, RateRow>();
    for (const t of [direct, ...chatRows]) {
      rssRows.set(
        t,
        await rateRun(
          t,
          RSS_RATE,
          RSS_REQUESTS,
          t.label.includes('PostgreSQL') ? dbCpu : undefined,
          t.pid ?? upstream.pid,
        ),
      );
      loads.push(loadavg()[0]!);
    }

    const figures: Figures = {
      revision: revision(),
      scale: SCALE,
      rounds: ROUNDS,
      sequentialPerRow: Math.ceil(SEQUENTIAL / ROUNDS) * ROUNDS,
      streamsPerRow: Math.ceil(STREAMS / ROUNDS) * ROUNDS,
      chunks: CHUNKS,
      chunkDelayMs: CHUNK_DELAY_MS,
      cpuRate: CPU_RATE,
      cpuRounds: CPU_ROUNDS,
      cpuRequests: CPU_REQUESTS,
      rssRate: RSS_RATE,
      rssRequests: RSS_REQUESTS,
      connections: CONNECTIONS,
      loadBefore,
      loadAfter: loadavg(),
      loadMax: Math.max(...loads),
      pgNote,
      checks,
      honoNodeServer: portkeyVersions().honoNodeServer,
      portkeyConfig: pk.headers['x-portkey-config']!.replace(upstream.origin, 'http://127.0.0.1:<stand-in>'),
      direct: direct.label,
      sequential: all.map((t) => ({ label: t.label, ms: seq.get(t)! })),
      streams: streamTargets.map((t): StreamRow => ({ label: t.label, timings: streams.get(t)! })),
      cpu: all.map((t) => ({ label: t.label, runs: cpuRuns.get(t)! })),
      rss: [direct, ...chatRows].map((t) => ({ label: t.label, row: rssRows.get(t)! })),
    };
    return { markdown: proxyMarkdown(figures) };
  } finally {
    await closePools();
    await Promise.all(procs.map((p) => p.stop()));
    await dbCpu?.close();
    await database?.drop();
    await unchained?.drop();
    await otlp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Steward's error code or Portkey's error type, from an error body. */
function codeOf(body: string): string {
  try {
    const b = JSON.parse(body) as { code?: string; error?: { code?: string | null; type?: string } };
    return b.code ?? b.error?.code ?? b.error?.type ?? '?';
  } catch {
    return '?';
  }
}

/** `n` requests at `rate` per second (open loop), unmeasured. */
async function steady(t: Target, rate: number, n: number) {
  return steadyLoad({
    url: `${t.origin}${t.path}`,
    body: t.body({ stream: false, prompt: BENIGN_PROMPT }),
    headers: t.headers,
    rate,
    durationS: n / rate,
    connections: CONNECTIONS,
  });
}

/** `n` requests at `rate`: latency, CPU of `pid` (and the database backends) per request, the largest RSS of `pid`. */
async function rateRun(t: Target, rate: number, n: number, db: DatabaseCpu | undefined, pid: number): Promise<RateRow> {
  const rssIdle = rssBytes(pid);
  const db0 = await db?.sample();
  const cpu0 = cpuTimeUs(pid);
  const m0 = machineTicks();
  const rss = rssSampler(pid);
  const r = await steady(t, rate, n);
  const rssMax = rss.stop();
  const m1 = machineTicks();
  return {
    p50: r.p50,
    p99: r.p99,
    errors: r.errors + r.non2xx,
    cpuMsPerReq: (cpuTimeUs(pid) - cpu0) / 1000 / r.requests,
    dbMsPerReq: db ? DatabaseCpu.spent(db0, await db.sample()) / 1000 / r.requests : NaN,
    rssIdle,
    rssMax,
    workers: workerThreads(pid),
    idlePct: (100 * (m1.idle - m0.idle)) / (m1.total - m0.total),
  };
}
