/**
 * Gateway benchmark (issue 4): POST /api/policy/pre-check with the built-in policy pack against a bare
 * fastify route returning a constant JSON body, the same gateway with no policy enabled (what the
 * gateway costs apart from Rego) and with the pack reduced to its builtin calls (policy-floor.ts: the least any
 * evaluator of the pack could cost). Each server runs alone in its own child process with the same node flags,
 * compiled by tsc as the container image runs it;
 * autocannon runs in this process; same connections, same body. The servers are measured in interleaved
 * rounds and each figure is the median round, so that drift on the machine hits all four alike.
 * Then the latency target: a steady 1,000 requests/s (steady.ts, an open-loop generator: autocannon's own rate
 * mode sends each second's requests in one burst) against the gateway and, as the control, the bare route.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createTempDatabase } from '../testing/pgdb.js';
import { freePort } from '../testing/ports.js';
import { machine, NODE_FLAGS } from './report.js';
import { GATEWAY_QUERY } from './rego-fixtures.js';
import { steadyLoad, type SteadyResult } from './steady.js';

const ROUND_S = Number(process.env.BENCH_DURATION_S ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 50;
const STEADY_RATE = 1000;
const STEADY_ROUNDS = Number(process.env.BENCH_STEADY_ROUNDS ?? 3);
const STEADY_S = 10;
const STEADY_WARMUP_S = 5;
const STEADY_CONNECTIONS = 10;
const BODY = JSON.stringify({
  client_id: 'bench-app',
  user_token: 'user-1',
  query: GATEWAY_QUERY,
  context: { user_role: 'agent', department: 'travel' },
});

type Mode = 'bare' | 'gateway' | 'floor';

interface Server {
  child: ChildProcess;
  url: string;
}

/** Where tsconfig.bench.json compiles the server (and the runtime it imports) to. */
const SERVER_JS = 'dist-bench/bench/gateway-server.js';

/**
 * Compiles the servers with tsc, as the container image runs Steward (`npm run build`, dist/). NB: not under
 * tsx: its loader thread keeps the heap of every module it transformed (~35 MB), and V8's memory reducer
 * compacts that heap some 30 s after start (pauses of 6–30 ms on that thread, seen with --trace-gc), CPU that the
 * image's process never spends, taken from two cores in the middle of a round (docs/benchmarks.md).
 */
export function buildServers(): void {
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.bench.json'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  if (tsc.status !== 0)
    throw new Error(`tsc -p tsconfig.bench.json failed (${tsc.error?.message ?? `exit ${tsc.status}`})`);
}

async function startServer(mode: Mode, env: Record<string, string | undefined>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, SERVER_JS, mode, String(port)], {
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
  /** CPU time of the PostgreSQL backends serving the run's database per request, µs (a local server; else NaN) */
  dbUs: number;
  /** CPU time of this process (autocannon, the load generator) per request, µs */
  loadUs: number;
  /** share of the machine's CPU time that no process used during the round, % (Linux; NaN elsewhere) */
  idlePct: number;
}

/** User + system CPU time of a process in µs, from /proc (Linux). */
export function cpuTimeUs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000; // clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

/** The machine's idle and total CPU time so far, in clock ticks (the first line of /proc/stat). */
export function machineTicks(): { idle: number; total: number } {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is inside user already)
    return { idle: ticks[3]! + ticks[4]!, total: ticks.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return { idle: NaN, total: NaN };
  }
}

/**
 * CPU time of the PostgreSQL backends that serve one database, read from /proc: what the pre-check's context rows
 * cost the database on the machine the servers share. Only for a server on this machine (else `open` gives
 * undefined); a process that is not a postgres one makes the reading NaN rather than a wrong figure.
 */
export class DatabaseCpu {
  private constructor(
    private readonly client: pg.Client,
    private readonly name: string,
  ) {}

  static async open(url: string): Promise<DatabaseCpu | undefined> {
    const u = new URL(url);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) return undefined;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new DatabaseCpu(client, decodeURIComponent(u.pathname.slice(1)));
  }

  /** CPU time so far of each backend, µs by pid (undefined: not a postgres process, so not measurable). */
  async sample(): Promise<Map<number, number> | undefined> {
    const { rows } = await this.client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.name],
    );
    const out = new Map<number, number>();
    for (const { pid } of rows) {
      let comm: string;
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue; // exited since the query
      }
      if (comm !== 'postgres') return undefined;
      const us = cpuTimeUs(pid);
      if (!Number.isNaN(us)) out.set(pid, us);
    }
    return out;
  }

  /**
   * CPU time spent between two samples by the backends alive at the second. NB: per backend, not totals: the
   * pools close idle connections, and a backend that exits in the window must not subtract its whole life.
   */
  static spent(before: Map<number, number> | undefined, after: Map<number, number> | undefined): number {
    if (before === undefined || after === undefined) return NaN;
    let total = 0;
    for (const [pid, us] of after) total += us - (before.get(pid) ?? 0);
    return total;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

async function load(
  server: Server,
  db: DatabaseCpu | undefined,
  opts: { overallRate?: number; durationS: number; connections?: number },
): Promise<Result> {
  const db0 = await db?.sample();
  const cpu0 = cpuTimeUs(server.child.pid);
  const machine0 = machineTicks();
  const own0 = process.cpuUsage();
  const r = await autocannon({
    url: server.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
    connections: opts.connections ?? CONNECTIONS,
    duration: opts.durationS,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  });
  const own = process.cpuUsage(own0);
  const machine1 = machineTicks();
  const cpuUs = (cpuTimeUs(server.child.pid) - cpu0) / r.requests.total;
  const dbUs = DatabaseCpu.spent(db0, await db?.sample()) / r.requests.total;
  const loadUs = (own.user + own.system) / r.requests.total;
  const idlePct = (100 * (machine1.idle - machine0.idle)) / (machine1.total - machine0.total);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    cpuUs,
    dbUs,
    loadUs,
    idlePct,
  };
}

type Steady = SteadyResult & { cpuUs: number };

async function steadyRun(server: Server, durationS = STEADY_S): Promise<Steady> {
  const cpu0 = cpuTimeUs(server.child.pid);
  const r = await steadyLoad({
    url: server.url,
    body: BODY,
    rate: STEADY_RATE,
    durationS,
    connections: STEADY_CONNECTIONS,
  });
  return { ...r, cpuUs: (cpuTimeUs(server.child.pid) - cpu0) / r.requests };
}

function medianBy<T>(results: readonly T[], key: (r: T) => number): T {
  const sorted = [...results].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor(sorted.length / 2)]!;
}

function median(results: Result[]): Result {
  return medianBy(results, (r) => r.rps);
}

export async function run(): Promise<{ markdown: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-'));
  // A database of its own for this run (dropped afterwards), so that earlier runs' rows do not skew it.
  const database = process.env.DATABASE_URL ? await createTempDatabase(process.env.DATABASE_URL) : undefined;
  // NB: no REDIS_URL: the in-memory rate limiter, as in standalone mode (Redis adds a round trip per request).
  const base = { ...process.env, REDIS_URL: undefined, STEWARD_DATA_DIR: dataDir, DATABASE_URL: database?.url };
  const servers: Record<string, Server> = {};
  const rounds: Record<string, Result[]> = { bare: [], none: [], floor: [], pack: [] };
  const steady: Record<'pack' | 'bare', Steady[]> = { pack: [], bare: [] };
  let burst: Result;
  let dbCpu: DatabaseCpu | undefined;
  try {
    if (database) dbCpu = await DatabaseCpu.open(database.url);
    buildServers();
    servers.bare = await startServer('bare', base);
    servers.none = await startServer('gateway', {
      ...base,
      STEWARD_DATA_DIR: join(dataDir, 'none'),
      STEWARD_MANIFESTS: 'config/samples',
      STEWARD_BUILTIN_POLICY_PACK: 'disabled',
    });
    servers.floor = await startServer('floor', { ...base, STEWARD_DATA_DIR: join(dataDir, 'floor') });
    servers.pack = await startServer('gateway', { ...base, STEWARD_DATA_DIR: join(dataDir, 'pack') });
    for (const name of Object.keys(rounds)) await load(servers[name]!, dbCpu, { durationS: 2 }); // warm-up: JIT, pools
    for (let i = 0; i < ROUNDS; i++) {
      for (const name of Object.keys(rounds))
        rounds[name]!.push(await load(servers[name]!, dbCpu, { durationS: ROUND_S }));
    }
    // NB: a warm-up at the rate first, so that the first round measures the steady rate and not the change of load
    // (the fourth session's 6–9 ms pauses after the load drop were most likely the tsx loader thread's, which the
    // compiled servers no longer have: see docs/benchmarks.md).
    for (const name of Object.keys(steady)) await steadyRun(servers[name]!, STEADY_WARMUP_S);
    for (let i = 0; i < STEADY_ROUNDS; i++) {
      for (const name of Object.keys(steady)) steady[name as keyof typeof steady].push(await steadyRun(servers[name]!));
    }
    // autocannon's own fixed-rate mode, for comparison with earlier figures (bursts: see steady.ts).
    burst = await load(servers.pack, dbCpu, {
      durationS: STEADY_S,
      overallRate: STEADY_RATE,
      connections: STEADY_CONNECTIONS,
    });
  } finally {
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    await dbCpu?.close();
    await new Promise((r) => setTimeout(r, 500));
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const bare = median(rounds.bare!);
  const none = median(rounds.none!);
  const floor = median(rounds.floor!);
  const pack = median(rounds.pack!);
  const ratio = pack.rps / bare.rps;
  const steadyPack = medianBy(steady.pack, (r) => r.p99);
  const steadyBare = medianBy(steady.bare, (r) => r.p99);
  const db = database ? 'PostgreSQL 15 over TCP (a fresh database per run)' : 'PGlite (embedded)';
  const oneDecimal = (v: number) => (Number.isNaN(v) ? 'n/a' : v.toFixed(1));
  const row = (label: string, r: Result, all?: Result[]) =>
    `| ${label} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${oneDecimal(r.cpuUs)} | ${oneDecimal(r.dbUs)} | ${oneDecimal(r.loadUs)} | ${oneDecimal(r.idlePct)} | ${r.errors} | ${r.non2xx} | ${all ? all.map((x) => x.rps.toFixed(0)).join(', ') : '—'} |`;
  const ms = (v: number) => v.toFixed(2);
  const steadyRow = (label: string, r: Steady, all: Steady[]) =>
    `| ${label} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.p999)} | ${ms(r.max)} | ${ms(r.sendLagP99)} | ${oneDecimal(r.cpuUs)} | ${r.errors} | ${r.non2xx} | ${all.map((x) => ms(x.p99)).join(', ')} |`;
  const markdown = `## Gateway pre-check vs a bare route

Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}. Store: ${db}; rate limiter in memory.
Method: \`npm run bench -- gateway\`. Four servers, each in its own child process (\`bench/gateway-server.ts\` compiled
by tsc with \`tsconfig.bench.json\`, run by node ${NODE_FLAGS.join(' ')} as the container image runs Steward); the load
generators run in the parent. The gateway runs in
community mode; every pre-check evaluates every enabled policy and commits a context row (group commit,
\`synchronous_commit=off\` for contexts only: visible to every replica at once, lost only in a database crash).
"CPU µs/req" is the server process's user + system time per answered request (from /proc); "PostgreSQL CPU µs/req" the
same for the database backends serving the run's database (a local server shares the two cores with the servers
and the load generator), "load generator" the same for autocannon's process; "idle %" is the share of the machine's
CPU time that no process used during the round (/proc/stat): the servers answer from one thread, so a round can
leave CPU unused and still be limited by that thread.

**Throughput**: autocannon, ${CONNECTIONS} connections, the same 260-byte JSON body. After a 2 s warm-up each, ${ROUNDS}
interleaved rounds of ${ROUND_S} s per server; each row is the median round (requests/s of every round in the last column).

| Server | Requests/s | p50 ms | p99 ms | CPU µs/req | PostgreSQL CPU µs/req | load generator CPU µs/req | idle % | errors | non-2xx | every round, req/s |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
${row('bare fastify route (constant JSON)', bare, rounds.bare)}
${row('POST /api/policy/pre-check, no policy enabled', none, rounds.none)}
${row("POST /api/policy/pre-check, floor: only the pack's builtin calls", floor, rounds.floor)}
${row('POST /api/policy/pre-check, built-in pack (5 policies)', pack, rounds.pack)}

Throughput ratio pre-check / bare: **${(ratio * 100).toFixed(1)}%** (target ≥ 50%); without policies **${((none.rps / bare.rps) * 100).toFixed(1)}%**;
floor **${((floor.rps / bare.rps) * 100).toFixed(1)}%**. The floor server (\`bench/policy-floor.ts\`) is the gateway with the pack's evaluation
reduced to the builtin calls it makes on this query (\`lower\`, \`regex.match\`, …, recorded once at start and replayed on
each request's text, the engine's answer kept): what any evaluator of these policies would cost at the least.

**Latency at ${STEADY_RATE.toLocaleString('en')} requests/s**: \`bench/steady.ts\`, an open-loop generator (undici, ${STEADY_CONNECTIONS} keep-alive
connections): request i is due at i ms whatever happened to the others, and its latency runs from that due time
to the end of its response, so a stall counts for every request due during it. ${STEADY_ROUNDS} interleaved rounds of
${STEADY_S} s (${(STEADY_RATE * STEADY_S).toLocaleString('en')} requests) per server after a ${STEADY_WARMUP_S} s warm-up at the same rate; each row is the round with
the median p99.
"send lag" is how late the generator's own timers sent requests (1 ms resolution): it is inside every latency.

| Server | p50 ms | p99 ms | p99.9 ms | max ms | send lag p99 ms | CPU µs/req | errors | non-2xx | p99 of every round |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
${steadyRow('POST /api/policy/pre-check, built-in pack', steadyPack, steady.pack)}
${steadyRow('bare fastify route (control)', steadyBare, steady.bare)}

p99 at ${STEADY_RATE.toLocaleString('en')} req/s: **${ms(steadyPack.p99)} ms** (target ≤ 5 ms); the bare route at the same rate: ${ms(steadyBare.p99)} ms.

For comparison with earlier runs, autocannon's own fixed-rate mode (\`overallRate: ${STEADY_RATE}\`, ${STEADY_CONNECTIONS} connections) on the
pack: p50 ${burst.p50} ms, p99 ${burst.p99} ms (whole ms), ${oneDecimal(burst.cpuUs)} µs CPU/req. That mode is not a steady rate: each connection
sends its ${STEADY_RATE / STEADY_CONNECTIONS} requests of the second back to back and then waits for the next one-second tick, so it measures
${STEADY_CONNECTIONS} connections at full speed for ~100 ms of every second; and its coordinated-omission correction adds synthetic
samples at 1 ms steps below every response slower than 1 ms.`;
  return { markdown };
}
