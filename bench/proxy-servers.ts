/**
 * The processes of the proxy benchmark, each alone in its own child process with the same node flags: the LLM
 * stand-in (upstream-server.ts), Portkey's open-source gateway with regex input guardrails, and Steward's gateway
 * (gateway-server.ts compiled by tsc, standalone wiring, built-in policy pack) on PGlite or PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '../testing/ports.js';
import { NODE_FLAGS } from './report.js';

export interface Proc {
  child: ChildProcess;
  origin: string;
  pid: number;
  /** SIGTERM, then the exit (SIGKILL after 10 s) */
  stop(): Promise<void>;
}

/** The key every client sends upstream; the stand-in accepts any. */
export const UPSTREAM_KEY = 'sk-bench';

/** Spawns `node <flags> <args>` (in `options.cwd`) and waits for `ready` on its stdout, at most `options.timeoutMs`. */
export async function spawnReady(
  label: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: string,
  port: number,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<Proc> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, args, {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    let seen = '';
    child.stdout!.on('data', (d: Buffer) => {
      // NB: keep reading stdout after READY, or a chatty child blocks on a full pipe.
      if (seen.includes(ready)) return;
      seen += d.toString();
      if (seen.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code} before it was ready`));
    });
  });
  return {
    child,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The stand-in: JSON at once, or `chunks` SSE chunks `chunkDelayMs` apart (upstream-server.ts). */
export async function startUpstream(chunks: number, chunkDelayMs: number): Promise<Proc> {
  const port = await freePort();
  const script = join(dirname(new URL(import.meta.url).pathname), 'upstream-server.ts');
  return spawnReady(
    'the stand-in',
    [...NODE_FLAGS, script, String(port), String(chunks), String(chunkDelayMs)],
    { PATH: process.env.PATH },
    'READY',
    port,
  );
}

/** Portkey's version (package.json pins it) and that of the `@hono/node-server` it runs on. */
export function portkeyVersions(): { portkey: string; honoNodeServer: string } {
  const pkg = createRequire(import.meta.url).resolve('@portkey-ai/gateway/package.json');
  const version = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  // NB: the package's exports hide its package.json; its entry point sits in dist/.
  const hono = createRequire(pkg).resolve('@hono/node-server');
  return { portkey: version(pkg), honoNodeServer: version(join(dirname(hono), '..', 'package.json')) };
}

/**
 * Portkey's gateway as its README starts it (`build/start-server.js --port=N`), `--headless` (no console UI routes),
 * through portkey-server.ts (a repair its streams need with our `@hono/node-server`; see there).
 */
export async function startPortkey(): Promise<Proc> {
  const port = await freePort();
  const script = join(dirname(new URL(import.meta.url).pathname), 'portkey-server.ts');
  // NB: no REDIS_CONNECTION_STRING: its in-memory caches, as Steward's in-memory rate limiter.
  return spawnReady(
    'Portkey',
    [...NODE_FLAGS, script, `--port=${port}`, '--headless'],
    { PATH: process.env.PATH, NODE_ENV: 'production' },
    'PATCHED',
    port,
  );
}

/**
 * The regex guardrails Portkey runs on the last user message (`default.regexMatch`, one `new RegExp(rule)` each):
 * the same four concerns as Steward's built-in pack, as plain patterns. A check passes when its pattern does not
 * match (`not: true`); the guardrail denies the request (446 `hooks_failed`) when a check fails.
 */
export const PORTKEY_GUARDRAIL_RULES: Record<string, string> = {
  ssn: String.raw`\b(?!000|666|9\d\d)\d{3}[- ](?!00)\d{2}[- ](?!0000)\d{4}\b`,
  card: String.raw`\b(?:4\d{3}|5[1-5]\d{2}|3[47]\d{2}|6011)(?:[ -]?\d{4}){2}[ -]?\d{1,4}\b`,
  sql_injection: String.raw`(?i:\bunion\s+(?:all\s+)?select\b|\bor\s+['"]?1['"]?\s*=\s*['"]?1\b|\bdrop\s+(?:table|database)\b|;\s*--|\bsleep\s*\(\s*\d+\s*\))`,
  prompt_injection: String.raw`(?i:\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:the\s+)?(?:previous|prior|above)\s+(?:instructions|prompts|rules)\b|\breveal\s+(?:your|the)\s+system\s+prompt\b|\byou\s+are\s+now\s+(?:DAN|in\s+developer\s+mode)\b)`,
};

/** The `x-portkey-config` header: the OpenAI provider at the stand-in, the guardrails above as input guardrails. */
export function portkeyConfig(upstream: string): string {
  const checks = Object.fromEntries(
    Object.entries(PORTKEY_GUARDRAIL_RULES).map(([name, rule]) => [
      name,
      { id: 'default.regexMatch', rule, not: true },
    ]),
  );
  return JSON.stringify({
    provider: 'openai',
    api_key: UPSTREAM_KEY,
    custom_host: `${upstream}/v1`,
    input_guardrails: [{ deny: true, ...checks }],
  });
}

/** Where tsconfig.bench.json compiles gateway-server.ts (gateway.ts `buildServers`). */
const SERVER_JS = 'dist-bench/bench/gateway-server.js';

/**
 * Steward's gateway (gateway-server.ts `gateway`: standalone wiring, built-in pack, community mode, rate limits out
 * of the way) with the OpenAI provider at the stand-in. `databaseUrl` absent: embedded PGlite in `dataDir`.
 */
export async function startSteward(opts: {
  upstream: string;
  dataDir: string;
  databaseUrl?: string;
  nodeArgs?: string[];
  env?: Record<string, string>;
}): Promise<Proc> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: undefined,
    DATABASE_URL: opts.databaseUrl,
    STEWARD_DATA_DIR: opts.dataDir,
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: `${opts.upstream}/v1`,
    ANTHROPIC_API_KEY: undefined,
    STEWARD_BEDROCK_REGION: undefined,
    OLLAMA_HOST: undefined,
    STEWARD_LLM_ECHO: undefined,
    // NB: the token budget per organization, at its largest: each request is charged prompt chars / 4 + max_tokens (proxy-client.ts).
    STEWARD_LLM_TOKENS_PER_MINUTE: '1000000',
    ...opts.env,
  };
  return spawnReady(
    'Steward',
    [...NODE_FLAGS, ...(opts.nodeArgs ?? []), SERVER_JS, 'gateway', String(port)],
    env,
    'READY',
    port,
  );
}

/** Resident set size of a process now, bytes (Linux /proc; NaN elsewhere). */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; the largest sample. */
export function rssSampler(pid: number, everyMs = 50): { stop(): number } {
  let max = rssBytes(pid);
  const timer = setInterval(() => {
    const v = rssBytes(pid);
    if (v > max || Number.isNaN(max)) max = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, rssBytes(pid));
    },
  };
}

/** Worker threads of a process now (node's `worker_threads` are named WorkerThread in /proc; NaN elsewhere). */
export function workerThreads(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).filter(
      (t) => readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim() === 'WorkerThread',
    ).length;
  } catch {
    return NaN;
  }
}
