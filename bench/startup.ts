/**
 * Start-up benchmark (issue 16): how long `steward standalone` takes from spawn to both ports answering
 * GET /health 200, with a fresh data folder (what a pod without a volume does on every start) and with the data
 * folder of an earlier start (a restart). Each run is a new process as `npm start` runs it (`bin/steward.mjs`, tsx);
 * /health is polled every 10 ms on both ports. Besides wall time, the child's CPU time (user + system, /proc) at
 * that moment: on a shared machine it moves less than wall time with the load of other processes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTemplate } from '../runtime/store/pglite-template.js';
import { freePort } from '../testing/ports.js';
import { machine, NODE_FLAGS } from './report.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const POLL_MS = 10;
const TIMEOUT_MS = 120_000;
const CLK_TCK = 100; // Linux USER_HZ

interface Start {
  /** spawn to both /health 200 */
  ms: number;
  /** the child's CPU time at that moment */
  cpuMs: number;
}

/** User + system CPU time of a process so far, ms (Linux; NaN elsewhere). */
function cpuMs(pid: number): number {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** One start: spawn, poll both ports, then SIGTERM and wait for the exit (a clean shutdown keeps the folder reusable). */
async function startOnce(dataDir: string): Promise<Start> {
  const [gw, orch] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, 'bin/steward.mjs', 'standalone'], {
    env: {
      ...process.env,
      STEWARD_DATA_DIR: dataDir,
      STEWARD_GATEWAY_PORT: String(gw),
      STEWARD_ORCHESTRATOR_PORT: String(orch),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const up = { gw: false, orch: false };
    while (!(up.gw && up.orch)) {
      if (child.exitCode !== null)
        throw new Error(`steward standalone exited (${child.exitCode}) before it was healthy`);
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`steward standalone not healthy within ${TIMEOUT_MS} ms`);
      [up.gw, up.orch] = await Promise.all([
        up.gw || healthy(`http://127.0.0.1:${gw}/health`),
        up.orch || healthy(`http://127.0.0.1:${orch}/health`),
      ]);
      if (!(up.gw && up.orch)) await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return { ms: performance.now() - started, cpuMs: cpuMs(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function row(label: string, runs: readonly Start[]): string {
  const ms = runs.map((r) => r.ms);
  const cpu = runs.map((r) => r.cpuMs);
  const s = (v: number) => (v / 1000).toFixed(2);
  return `| ${label} | ${runs.length} | ${s(median(ms))} | ${s(Math.max(...ms))} | ${s(median(cpu))} | ${ms.map(s).join(', ')} |`;
}

export async function run(): Promise<{ markdown: string }> {
  const root = mkdtempSync(join(tmpdir(), 'steward-bench-startup-'));
  const load = loadavg()[0]!;
  try {
    // An unmeasured first start makes the database template if this machine has none yet (runtime/store/pglite-template.ts).
    const hadTemplate = findTemplate() !== undefined;
    const first = await startOnce(join(root, 'first'));
    const fresh: Start[] = [];
    for (let i = 0; i < RUNS; i++) fresh.push(await startOnce(join(root, `fresh-${i}`)));
    const warmDir = join(root, 'fresh-0');
    const warm: Start[] = [];
    for (let i = 0; i < RUNS; i++) warm.push(await startOnce(warmDir));
    const loadAfter = loadavg()[0]!;
    const firstRow = hadTemplate
      ? ''
      : `\n${row('first start on this machine (no template cached yet; makes it)', [first])}`;
    const markdown = `## Start-up

Measured ${new Date().toISOString().slice(0, 10)} on ${machine()}; 1-minute load average ${load.toFixed(1)} before, ${loadAfter.toFixed(1)} after.
Method: \`npm run bench -- startup\` (\`bench/startup.ts\`). Each run spawns \`node ${NODE_FLAGS.join(' ')} bin/steward.mjs standalone\`
(tsx, as \`npm start\`) on two free ports and polls GET /health on both every ${POLL_MS} ms; the time is from spawn to both
answering 200. "CPU s" is the process's user + system time at that moment. *Fresh*: a new, empty STEWARD_DATA_DIR
each run, as a pod without a volume starts (the embedded database is copied from the template cached per PGlite
version). *Warm*: the data folder of an earlier start. Targets: fresh < 5 s, warm < 2 s.

| Start | runs | median s | max s | median CPU s | every run, s |
|---|---:|---:|---:|---:|---|
${row('fresh data folder', fresh)}
${row('warm (data folder of an earlier start)', warm)}${firstRow}

Before issue 16 (Node 20.20, initdb in every new data folder, isolation workers started with the engine, the LLM SDKs
loaded at start), measured the same way on the same machine on 2026-11-26: fresh 6.77 s median (7.83 s max, 10.81 s
CPU), warm 3.73 s median (4.05 s max, 6.35 s CPU). The first start on a machine still runs initdb once to make the
template (about 4.5 s more; \`creating the embedded database\` in the log).
`;
    return { markdown };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
