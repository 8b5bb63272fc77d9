/**
 * `npm run bench -- memory` (issue 38): resident memory of `steward gateway` on PostgreSQL, idle and at 500 governed
 * requests/s, and of standalone (PGlite) idle. Each process runs alone (gateway-server.ts compiled by tsc, the node
 * flags of the image) with the OpenAI provider at the LLM stand-in; RSS is VmRSS of the process (all its threads).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTempDatabase } from '../testing/pgdb.js';
import { freePort } from '../testing/ports.js';
import { buildServers } from './gateway.js';
import { BENIGN_PROMPT, chatBody, sequential } from './proxy-client.js';
import { rssBytes, rssSampler, spawnReady, startUpstream, UPSTREAM_KEY, type Proc } from './proxy-servers.js';
import { machine, NODE_FLAGS } from './report.js';
import { steadyLoad } from './steady.js';

const BASE_DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SERVER_JS = 'dist-bench/bench/gateway-server.js';
/** How long after READY the idle figure is read: the start-up GC (platform/memory.ts) has run by then. */
const SETTLE_MS = 10_000;
const RATE = 500;
const DURATION_S = 10;
/** Requests/s of the warm-up steps, 5 s each. */
const WARM_UP_RATES = [100, 200, 300, 400];
/** Sequential requests before the warm-up steps. */
const WARM_UP_SEQUENTIAL = 900;

interface Row {
  label: string;
  idleMb: number;
  peakStartMb?: number;
  maxLoadMb?: number;
  afterLoadMb?: number;
  load?: { requests: number; errors: number; non2xx: number; p50: number; p99: number };
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

function hwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function start(mode: string, env: NodeJS.ProcessEnv): Promise<Proc> {
  const port = await freePort();
  return spawnReady(mode, [...NODE_FLAGS, SERVER_JS, mode, String(port)], env, 'READY', port, { timeoutMs: 180_000 });
}

async function measure(label: string, p: Proc, load: boolean): Promise<Row> {
  await sleep(SETTLE_MS);
  const row: Row = { label, idleMb: mb(rssBytes(p.pid)), peakStartMb: mb(hwm(p.pid)) };
  if (!load) return row;
  const at = (rate: number, durationS: number) =>
    steadyLoad({
      url: `${p.origin}/v1/chat/completions`,
      body: chatBody({ stream: false, prompt: BENIGN_PROMPT }),
      rate,
      durationS,
      connections: 10,
    });
  // NB: warmed up first (JIT, pools), as the proxy benchmark's rows are: a cold process queues at 500 requests/s.
  await sequential(
    { label, origin: p.origin, path: '/v1/chat/completions', headers: {}, body: chatBody, pid: p.pid },
    WARM_UP_SEQUENTIAL,
  );
  for (const rate of WARM_UP_RATES) await at(rate, 5);
  const sampler = rssSampler(p.pid);
  const r = await at(RATE, DURATION_S);
  row.maxLoadMb = mb(sampler.stop());
  await sleep(SETTLE_MS);
  row.afterLoadMb = mb(rssBytes(p.pid));
  row.load = { requests: r.requests, errors: r.errors, non2xx: r.non2xx, p50: r.p50, p99: r.p99 };
  return row;
}

export async function run(): Promise<{ markdown: string }> {
  buildServers();
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-bench-memory-'));
  const db = await createTempDatabase(BASE_DB);
  const upstream = await startUpstream(0, 0);
  const env = (more: Record<string, string | undefined>): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_FORMAT: 'json',
    REDIS_URL: undefined,
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: `${upstream.origin}/v1`,
    STEWARD_LLM_TOKENS_PER_MINUTE: '1000000',
    ...more,
  });
  const rows: Row[] = [];
  try {
    const gw = await start(
      'gateway-process',
      env({
        DATABASE_URL: db.url,
        STEWARD_DATA_DIR: join(dataDir, 'gw'),
        STEWARD_HOST: '127.0.0.1',
        // NB: as standalone without a License: one organization, no credentials (the gateway process asks for them by default)
        STEWARD_COMMUNITY_MODE: 'true',
      }),
    );
    try {
      rows.push(await measure('`steward gateway`, PostgreSQL', gw, true));
    } finally {
      await gw.stop();
    }
    // NB: standalone twice on one data folder: the first start creates the database; the second is a restart.
    for (const label of ['standalone, PGlite, first start', 'standalone, PGlite, restart']) {
      const sa = await start('gateway', env({ DATABASE_URL: undefined, STEWARD_DATA_DIR: join(dataDir, 'sa') }));
      try {
        rows.push(await measure(label, sa, false));
      } finally {
        await sa.stop();
      }
    }
  } finally {
    await upstream.stop();
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const cell = (v: number | undefined) => (v === undefined ? '—' : String(v));
  const table = [
    '| Process | RSS idle MB | start-up peak (VmHWM) MB | max RSS at 500 req/s MB | RSS 10 s after the load MB | requests | errors | p50 / p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.idleMb} | ${cell(r.peakStartMb)} | ${cell(r.maxLoadMb)} | ${cell(r.afterLoadMb)} | ${cell(r.load?.requests)} | ${cell(r.load ? r.load.errors + r.load.non2xx : undefined)} | ${r.load ? `${r.load.p50.toFixed(2)} / ${r.load.p99.toFixed(2)}` : '—'} |`,
    ),
  ].join('\n');
  const markdown = `## Memory (issue 38)

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}.
Method: \`npm run bench -- memory\` (\`bench/memory.ts\`). Each Steward process runs alone, \`node ${NODE_FLAGS.join(' ')}\`,
compiled by tsc (\`bench/gateway-server.ts\`): \`gateway-process\` is the \`steward gateway\` wiring (folder source with the built-in
pack, \`STEWARD_COMMUNITY_MODE=true\`) on a fresh PostgreSQL database; \`gateway\` is standalone (gateway, orchestrator and agent pool in one
process) on PGlite. The OpenAI provider points at the LLM stand-in (JSON at once). "Idle" is VmRSS ${SETTLE_MS / 1000} s after the
process said READY; after a warm-up (${WARM_UP_SEQUENTIAL} requests one at a time, then 5 s each at ${WARM_UP_RATES.join(', ')} requests/s) the load is ${RATE} requests/s of \`/v1/chat/completions\` for ${DURATION_S} s (bench/steady.ts, open loop,
10 connections), VmRSS sampled every 50 ms.

${table}
`;
  return { markdown };
}
