/**
 * Gateway benchmark (issue 4): POST /api/policy/pre-check with the built-in policy pack against a bare
 * fastify route returning a constant JSON body, and the same gateway with no policy enabled (what the
 * gateway costs apart from Rego). Each server runs alone in its own child process with the same node flags;
 * autocannon runs in this process; same connections, same body. The servers are measured in interleaved
 * rounds and each figure is the median round, so that drift on the machine hits all three alike.
 * Then fixed-rate runs at 1,000 requests/s against the gateway for the latency target, and the bare route at the
 * same rate as its control (the latency the machine itself gives).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createTempDatabase } from '../testing/pgdb.js';
import { freePort } from '../testing/ports.js';
import { machine } from './report.js';
import { GATEWAY_QUERY } from './rego-fixtures.js';

const ROUND_S = Number(process.env.BENCH_DURATION_S ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 50;
/** What every Steward process runs with (package.json `start`, the Dockerfile); the bare route gets it too. */
export const NODE_FLAGS = ['--max-semi-space-size=32'];
const BODY = JSON.stringify({
  client_id: 'bench-app',
  user_token: 'user-1',
  query: GATEWAY_QUERY,
  context: { user_role: 'agent', department: 'travel' },
});

type Mode = 'bare' | 'gateway';

interface Server {
  child: ChildProcess;
  url: string;
}

async function startServer(mode: Mode, env: Record<string, string | undefined>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', 'bench/gateway-server.ts', mode, String(port)], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/api/policy/pre-check` };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU time of the server process per request, µs (Linux; NaN elsewhere) */
  cpuUs: number;
}

/** User + system CPU time of a process in µs, from /proc (Linux). */
function cpuTimeUs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000; // clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

async function load(server: Server, opts: { overallRate?: number; durationS: number; connections?: number }): Promise<Result> {
  const cpu0 = cpuTimeUs(server.child.pid);
  const r = await autocannon({
    url: server.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections: opts.connections ?? CONNECTIONS,
    duration: opts.durationS,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  });
  const cpuUs = (cpuTimeUs(server.child.pid) - cpu0) / r.requests.total;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, cpuUs };
}

function median(results: Result[]): Result {
  const sorted = [...results].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function run(): Promise<{ markdown: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-'));
  // A database of its own for this run (dropped afterwards), so that earlier runs' rows do not skew it.
  const database = process.env.DATABASE_URL ? await createTempDatabase(process.env.DATABASE_URL) : undefined;
  // NB: no REDIS_URL: the in-memory rate limiter, as in standalone mode (Redis adds a round trip per request).
  const base = { ...process.env, REDIS_URL: undefined, STEWARD_DATA_DIR: dataDir, DATABASE_URL: database?.url };
  const servers: Record<string, Server> = {};
  const rounds: Record<string, Result[]> = { bare: [], none: [], pack: [] };
  let fixed: Result;
  let fixedBurst: Result;
  let fixedBare: Result;
  try {
    servers.bare = await startServer('bare', base);
    servers.none = await startServer('gateway', { ...base, STEWARD_DATA_DIR: join(dataDir, 'none'), STEWARD_MANIFESTS: 'config/samples' });
    servers.pack = await startServer('gateway', { ...base, STEWARD_DATA_DIR: join(dataDir, 'pack') });
    for (const name of Object.keys(rounds)) await load(servers[name]!, { durationS: 2 }); // warm-up: JIT, pools
    for (let i = 0; i < ROUNDS; i++) {
      for (const name of Object.keys(rounds)) rounds[name]!.push(await load(servers[name]!, { durationS: ROUND_S }));
    }
    fixed = await load(servers.pack, { durationS: 10, overallRate: 1000, connections: 10 });
    // The control for the latency target: what this machine gives a constant answer at the same rate.
    fixedBare = await load(servers.bare, { durationS: 10, overallRate: 1000, connections: 10 });
    fixedBurst = await load(servers.pack, { durationS: 10, overallRate: 1000 });
  } finally {
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const bare = median(rounds.bare!);
  const none = median(rounds.none!);
  const pack = median(rounds.pack!);
  const ratio = pack.rps / bare.rps;
  const db = database ? 'PostgreSQL 15 over TCP (a fresh database per run)' : 'PGlite (embedded)';
  const row = (label: string, r: Result, all?: Result[]) =>
    `| ${label} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${Number.isNaN(r.cpuUs) ? 'n/a' : r.cpuUs.toFixed(1)} | ${r.errors} | ${r.non2xx} | ${all ? all.map((x) => x.rps.toFixed(0)).join(', ') : '—'} |`;
  const markdown = `## Gateway pre-check vs a bare route

Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}. Store: ${db}; rate limiter in memory.
Method: \`npm run bench -- gateway\`. Three servers, each in its own child process (\`bench/gateway-server.ts\`, node
${NODE_FLAGS.join(' ')} under tsx, as \`npm start\` runs); autocannon in the parent, ${CONNECTIONS} connections, the same 260-byte JSON body.
After a 2 s warm-up each, ${ROUNDS} interleaved rounds of ${ROUND_S} s per server; each row is the median round (requests/s of every
round in the last column). The gateway runs in community mode; every pre-check evaluates every enabled policy and commits a
context row (group commit, \`synchronous_commit=off\` for contexts only: visible to every replica at once, lost only in a
database crash). "CPU µs/req" is the server process's user + system time per answered request (from /proc).

| Server | Requests/s | p50 ms | p99 ms | CPU µs/req | errors | non-2xx | every round, req/s |
|---|---:|---:|---:|---:|---:|---:|---|
${row('bare fastify route (constant JSON)', bare, rounds.bare)}
${row('POST /api/policy/pre-check, no policy enabled', none, rounds.none)}
${row('POST /api/policy/pre-check, built-in pack (5 policies)', pack, rounds.pack)}
${row('pre-check (pack) at a fixed 1,000 req/s, 10 connections', fixed)}
${row(`pre-check (pack) at a fixed 1,000 req/s, ${CONNECTIONS} connections`, fixedBurst)}
${row('bare route at a fixed 1,000 req/s, 10 connections (control)', fixedBare)}

Throughput ratio pre-check / bare: **${(ratio * 100).toFixed(1)}%** (target ≥ 50%); without policies **${((none.rps / bare.rps) * 100).toFixed(1)}%**.
p99 at 1,000 req/s: **${fixed.p99} ms** (target ≤ 5 ms); the bare route at the same rate: ${fixedBare.p99} ms.
NB: autocannon's fixed rate is per connection and its connections fire on the same tick, so ${CONNECTIONS} connections at
1,000 req/s arrive as bursts of ${CONNECTIONS} every 50 ms; the 10-connection run is the steadier arrival pattern, and both are shown.
Latency figures are whole milliseconds (autocannon's resolution).`;
  return { markdown };
}
