/**
 * Hostile-traffic benchmark (issue 15): a real `steward standalone` (a child process, `bin/steward.mjs`, PGlite
 * unless DATABASE_URL is set) measured at a steady modest rate — GET /health and a benign pre-check, open loop —
 * first on its own, then in the same run while a concurrent stream of hostile requests of every defect class
 * arrives: 400,000-newline pre-checks, "union/**\/select " × 5,000 policy tests, a 30,000-key YAML validate,
 * 10,000-level JSON and slow-header clients. It reports quiet vs hostile p99, their ratio (target ≤ 2×), what the
 * hostile requests were answered, and the process RSS before and after.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTempDatabase } from '../testing/pgdb.js';
import { freePort, waitForHttp } from '../testing/ports.js';
import { REPRO_POLICIES, reproTable, runReproductions, type ReproResult } from './hostile-repro.js';
import { HOSTILE_IN_FLIGHT, HOSTILE_MAX, HOSTILE_RATE, SLOW_CLIENTS, type AttackReport } from './hostile-attacker.js';
import { machine, NODE_FLAGS } from './report.js';
import { steadyLoad, type SteadyResult } from './steady.js';

const PHASE_S = Number(process.env.BENCH_HOSTILE_PHASE_S ?? 20);
const WARMUP_S = 5;
const HEALTH_RATE = 50;
const PRECHECK_RATE = 200;
const BENIGN = JSON.stringify({
  client_id: 'bench-app',
  user_token: 'user-1',
  query: 'What is the weather in Paris tomorrow?',
  context: { user_role: 'agent' },
});

/** Resident set size of a process, MiB (Linux; NaN elsewhere). */
function rssMiB(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb) / 1024;
  } catch {
    return NaN;
  }
}

async function startStandalone(
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; gateway: string; orchestrator: string }> {
  const [gw, orch] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [...NODE_FLAGS, 'bin/steward.mjs', 'standalone'], {
    env: { ...env, STEWARD_GATEWAY_PORT: String(gw), STEWARD_ORCHESTRATOR_PORT: String(orch), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const gateway = `http://127.0.0.1:${gw}`;
  const orchestrator = `http://127.0.0.1:${orch}`;
  await waitForHttp(`${gateway}/health`, 90_000);
  await waitForHttp(`${orchestrator}/health`, 10_000);
  return { child, gateway, orchestrator };
}

/** The attacker in a process of its own (bench/hostile-attacker.ts); `stop` ends it and returns its report. */
function startAttacker(target: { gateway: string; orchestrator: string; only?: string }): {
  stop(): Promise<AttackReport>;
} {
  const child = fork(new URL('./hostile-attacker.ts', import.meta.url).pathname, [JSON.stringify(target)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const report = new Promise<AttackReport>((resolve, reject) => {
    child.once('message', (m) => resolve(m as AttackReport));
    child.once('exit', (code) => reject(new Error(`the attacker exited (${code}) without a report`)));
  });
  return {
    async stop() {
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      try {
        return await report;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

async function measure(gateway: string, durationS: number): Promise<{ health: SteadyResult; precheck: SteadyResult }> {
  const [health, precheck] = await Promise.all([
    steadyLoad({ url: `${gateway}/health`, method: 'GET', rate: HEALTH_RATE, durationS, connections: 8 }),
    steadyLoad({
      url: `${gateway}/api/policy/pre-check`,
      body: BENIGN,
      rate: PRECHECK_RATE,
      durationS,
      connections: 8,
    }),
  ]);
  return { health, precheck };
}

export async function run(): Promise<{ markdown: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-hostile-'));
  const database = process.env.DATABASE_URL ? await createTempDatabase(process.env.DATABASE_URL) : undefined;
  const manifests = join(dataDir, 'manifests');
  mkdirSync(manifests);
  writeFileSync(join(manifests, 'repro-policies.yaml'), REPRO_POLICIES);
  const env = {
    ...process.env,
    REDIS_URL: undefined,
    STEWARD_DATA_DIR: dataDir,
    STEWARD_MANIFESTS: `config/samples,config/policies,${manifests}`,
    DATABASE_URL: database?.url,
    STEWARD_RATE_LIMIT_PER_MINUTE: '10000000',
    STEWARD_RATE_LIMIT_PER_HOUR: '100000000',
  };
  let server: Awaited<ReturnType<typeof startStandalone>> | undefined;
  const outcomes = new Map<string, number>();
  let slowOutcomes: string[] = [];
  let quiet: Awaited<ReturnType<typeof measure>>;
  let hostile: Awaited<ReturnType<typeof measure>>;
  const rss: Record<string, number> = {};
  let hostileSent = 0;
  let repro: ReproResult[] = [];
  try {
    server = await startStandalone(env);
    await measure(server.gateway, WARMUP_S);
    rss.before = rssMiB(server.child.pid);
    quiet = await measure(server.gateway, PHASE_S);
    rss.afterQuiet = rssMiB(server.child.pid);
    // BENCH_HOSTILE_ONLY=text: only the hostile classes whose name contains it (to see which class costs what).
    const attacker = startAttacker({
      gateway: server.gateway,
      orchestrator: server.orchestrator,
      only: process.env.BENCH_HOSTILE_ONLY,
    });
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server!.child.pid))), 250);
    let report: AttackReport;
    try {
      hostile = await measure(server.gateway, PHASE_S);
    } finally {
      clearInterval(sampler);
      report = await attacker.stop();
    }
    for (const [k, n] of report.outcomes) outcomes.set(k, n);
    slowOutcomes = report.slowOutcomes;
    hostileSent = report.sent;
    rss.peak = peak;
    rss.after = rssMiB(server.child.pid);
    repro = await runReproductions({ gateway: server.gateway, orchestrator: server.orchestrator });
    rss.afterRepro = rssMiB(server.child.pid);
  } finally {
    server?.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const ms = (v: number) => (Number.isNaN(v) ? 'n/a' : v.toFixed(2));
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
  const row = (label: string, q: SteadyResult, h: SteadyResult) =>
    `| ${label} | ${ms(q.p50)} | ${ms(q.p99)} | ${ms(h.p50)} | ${ms(h.p99)} | ${ms(h.max)} | ${ratio(h.p99, q.p99)}× | ${q.errors + h.errors} | ${q.non2xx + h.non2xx} |`;
  const slowCounts = new Map<string, number>();
  for (const o of slowOutcomes) slowCounts.set(o, (slowCounts.get(o) ?? 0) + 1);
  const db = database ? 'PostgreSQL 15 over TCP (a fresh database per run)' : 'PGlite (embedded)';
  const markdown = `## Latency under hostile traffic

Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}. Store: ${db}; community mode; rate limits raised out of the way.
Method: \`npm run bench -- hostile\` (\`bench/hostile.ts\`). One \`steward standalone\` child process (\`bin/steward.mjs\`, tsx,
node ${NODE_FLAGS.join(' ')}); the load runs in the parent. Open loop (latency from each request's due time): GET /health at
${HEALTH_RATE}/s and a benign pre-check at ${PRECHECK_RATE}/s, ${WARMUP_S} s warm-up, then ${PHASE_S} s quiet, then ${PHASE_S} s with, at
the same time, each hostile class below sent at ${HOSTILE_RATE}/s (open loop; at most ${HOSTILE_IN_FLIGHT} unanswered per class, ${HOSTILE_MAX} in all) and
${SLOW_CLIENTS} clients sending their headers one byte every 500 ms. Target: hostile p99 ≤ 2× quiet p99.

| Request | quiet p50 ms | quiet p99 ms | hostile p50 ms | hostile p99 ms | hostile max ms | p99 ratio | errors | non-2xx |
|---|---|---|---|---|---|---|---|---|
${row('GET /health', quiet!.health, hostile!.health)}
${row('benign pre-check', quiet!.precheck, hostile!.precheck)}

Hostile requests sent: ${hostileSent}. Answers:

| Class: answer | count |
|---|---|
${[...outcomes]
  .sort()
  .map(([k, v]) => `| ${k} | ${v} |`)
  .join('\n')}
${[...slowCounts]
  .sort()
  .map(([k, v]) => `| slow-header client: ${k} | ${v} |`)
  .join('\n')}

Gateway process RSS: ${rss.before!.toFixed(0)} MiB before, ${rss.afterQuiet!.toFixed(0)} MiB after the quiet phase, peak ${rss.peak!.toFixed(0)} MiB during the hostile phase, ${rss.after!.toFixed(0)} MiB after it, ${rss.afterRepro!.toFixed(0)} MiB after the reproductions.

### The issue's reproductions

Then, on the same server with no other load, each reproduction of issue 15 five times in a row while GET /health is
polled every 10 ms (\`bench/hostile-repro.ts\`; user policies loaded from a manifest folder). Time is the client's, from
sending to the last byte. Acceptance: each within its 200 ms deadline plus 50 ms, blocked or refused with a code;
/health within 100 ms.

${reproTable(repro)}
`;
  return { markdown };
}
