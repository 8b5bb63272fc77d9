/**
 * Tokens benchmark (issue 32 item 8): 3,000 315-character prompts to `POST /v1/execute` at 200 requests/s, open loop
 * (steady.ts), against a stand-in that reports 26 tokens per call, under the default LLM tokens per minute. Each call
 * reserves prompt characters / 4 plus the default max_tokens; before 2adbc95 the reservation stayed for the whole
 * minute and the minute ran out after ~1,700 calls, since then it settles to the tokens used.
 *
 * The gateway runs in its own process: `bench/gateway-server.ts gateway` (standalone wiring, community mode, the
 * built-in pack, request limits out of the way) under tsx, from the Steward tree measured — this checkout, and with
 * `BENCH_TOKENS_BEFORE=<another checkout>` that tree as well — on a fresh PostgreSQL database each, with
 * `STEWARD_LLM_TOKENS_PER_MINUTE` unset. The stand-in (testing/llm's fake OpenAI) runs here.
 *
 * NB: the limiter's windows are aligned to the clock's minutes; the load starts just after one begins, so all of it
 * falls in one window (the case, the strictest). A probe call that then asks for the whole minute is refused
 * with what the window has left: the organization's use as the limiter sees it.
 */
import { spawnSync } from 'node:child_process';
import { standaloneSettings } from '../cmd/config/settings.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempDatabase } from '../testing/pgdb.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../testing/llm/index.js';
import { freePort } from '../testing/ports.js';
import { DEFAULT_MAX_TOKENS } from '../runtime/llm/config.js';
import { spawnReady, UPSTREAM_KEY } from './proxy-servers.js';
import { machine, NODE_FLAGS } from './report.js';
import { steadyLoad, type SteadyResult } from './steady.js';

const RATE = 200;
const REQUESTS = 3000;
const CONNECTIONS = 10;
const WARM_UP = 200;
/** The stand-in's usage on every answer: 24 + 2 = 26 tokens, the figure. */
const USAGE = { promptTokens: 24, completionTokens: 2 };
const PG_BASE = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const HERE = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** 315 characters, no PII, secret or injection: the pack lets it through. */
export const PROMPT =
  "Summarise our travel policy for our team's trip to Berlin next month: which fares may be booked, how far ahead flights and hotels must be reserved, what the daily meal allowance covers, and which receipts the finance team needs afterwards. Reply in five short bullet points and keep the tone friendly for new staff.";
const SSN_PROMPT = 'Please update my employee file: my SSN is 123-45-6789 and my new address follows.';

export interface TokensRow {
  label: string;
  /** the limit the gateway applied (the probe's 429 details) */
  limit: number | undefined;
  load: SteadyResult;
  /** refusals the gateway counted against its token window (steward_rate_limit_rejections_total{window="tokens-60s"}) */
  tokenRefusals: number;
  /** calls of the load that reached the stand-in */
  upstreamCalls: number;
  /** tokens the organization's window held after the load (limit − the probe's remaining); undefined: not read */
  windowUsed: number | undefined;
  checks: string;
}

/** The Steward tree at `root`: its commit, and whether its server sources differ from it. */
function revision(root: string): string {
  const git = (...args: string[]) => spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return `${root} (not a git checkout)`;
  const dirty = git('status', '--porcelain', '--', 'api', 'platform', 'rego', 'runtime', 'config').stdout.trim();
  return `commit ${head.stdout.trim()}${dirty ? ' with uncommitted changes to the server' : ''}`;
}

/** gateway-server.ts of the tree at `root`, under tsx, with the token limit left to its default; stops on `stop()`. */
async function startGateway(root: string, upstream: FakeOpenAiServer, databaseUrl: string, dataDir: string) {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: undefined,
    DATABASE_URL: databaseUrl,
    STEWARD_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: upstream.baseURL,
    ANTHROPIC_API_KEY: undefined,
    STEWARD_BEDROCK_REGION: undefined,
    OLLAMA_HOST: undefined,
    STEWARD_LLM_ECHO: undefined,
    STEWARD_LLM_AUDIT: undefined,
    // NB: unset on purpose: the default is what is measured.
    STEWARD_LLM_TOKENS_PER_MINUTE: undefined,
  };
  // NB: tsx rather than tsc's output: a tree being edited may not type-check, and tsx only strips types.
  const args = [...NODE_FLAGS, '--import', 'tsx', 'bench/gateway-server.ts', 'gateway', String(port)];
  return spawnReady(`the gateway of ${root}`, args, env, 'READY', port, { cwd: root, timeoutMs: 90_000 });
}

async function execute(origin: string, body: Record<string, unknown>): Promise<{ status: number; body: string }> {
  const res = await fetch(`${origin}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

/** steward_rate_limit_rejections_total{window="tokens-60s"} of the gateway now (community mode may read it). */
async function tokenRefusals(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics/prometheus`)).text();
  const m = /^steward_rate_limit_rejections_total\{window="tokens-60s"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

/** The 429 details of a call that reserves the whole minute, or nothing when it passed (an unused window). */
async function probe(origin: string): Promise<{ limit?: number; remaining?: number; status: number }> {
  const r = await execute(origin, { prompt: PROMPT, model: 'gpt-4o-mini', max_tokens: 1_000_000 });
  if (r.status !== 429) return { status: r.status };
  const b = JSON.parse(r.body) as { details?: Record<string, unknown>; error?: { details?: Record<string, unknown> } };
  const d = b.error?.details ?? b.details ?? {};
  return { status: 429, limit: Number(d.limit), remaining: Number(d.remaining) };
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/** One tree: its gateway on a fresh database, the checks, a warm-up, then the load at the start of a minute. */
async function measure(label: string, root: string, upstream: FakeOpenAiServer): Promise<TokensRow> {
  const database = await createTempDatabase(PG_BASE);
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-bench-tokens-'));
  try {
    const gw = await startGateway(root, upstream, database.url, dataDir);
    try {
      const benign = await execute(gw.origin, { prompt: PROMPT, model: 'gpt-4o-mini' });
      const ssn = await execute(gw.origin, { prompt: SSN_PROMPT, model: 'gpt-4o-mini' });
      if (benign.status !== 200 || ssn.status !== 403)
        throw new Error(
          `${label}: benign prompt ${benign.status} ${benign.body.slice(0, 300)}, SSN prompt ${ssn.status}`,
        );
      const body = JSON.stringify({ prompt: PROMPT, model: 'gpt-4o-mini' });
      const load = { url: `${gw.origin}/v1/execute`, body, rate: RATE, connections: CONNECTIONS };
      await steadyLoad({ ...load, durationS: WARM_UP / RATE });
      // The warm-up ends in the minute before the load's.
      const start = (minuteOf(Date.now()) + 1) * 60_000 + 500;
      console.log(`${label}: the load starts at ${new Date(start).toISOString()}`);
      await new Promise((r) => setTimeout(r, start - Date.now()));
      const refused0 = await tokenRefusals(gw.origin);
      const calls0 = upstream.requests.length;
      const result = await steadyLoad({ ...load, durationS: REQUESTS / RATE });
      const calls = upstream.requests.length - calls0;
      const refused = (await tokenRefusals(gw.origin)) - refused0;
      const p = await probe(gw.origin);
      const sameWindow = minuteOf(Date.now()) === minuteOf(start);
      return {
        label,
        limit: p.limit,
        load: result,
        tokenRefusals: refused,
        upstreamCalls: calls,
        windowUsed: !sameWindow ? undefined : p.status === 429 ? p.limit! - p.remaining! : 0,
        checks: `benign prompt ${benign.status}, SSN prompt ${ssn.status}`,
      };
    } finally {
      await gw.stop();
    }
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<{ markdown: string }> {
  if (PROMPT.length !== 315) throw new Error(`the prompt has ${PROMPT.length} characters, not 315`);
  const loadBefore = loadavg();
  const upstream = await startFakeOpenAi({
    apiKey: UPSTREAM_KEY,
    otherwise: () => ({ kind: 'reply', text: 'Book early and keep every receipt.', usage: USAGE }),
  });
  const rows: TokensRow[] = [];
  try {
    rows.push(await measure(`after: ${revision(HERE)}`, HERE, upstream));
    const before = process.env.BENCH_TOKENS_BEFORE;
    if (before)
      rows.push(await measure(`before: ${revision(before)} (\`BENCH_TOKENS_BEFORE\`)`, resolve(before), upstream));
  } finally {
    await upstream.close();
  }
  return { markdown: tokensMarkdown(rows, loadBefore, loadavg()) };
}

function tokensMarkdown(rows: readonly TokensRow[], loadBefore: number[], loadAfter: number[]): string {
  const perMinute = standaloneSettings({}).access.llmTokensPerMinute;
  const reserve = Math.ceil(PROMPT.length / 4) + DEFAULT_MAX_TOKENS;
  const used = USAGE.promptTokens + USAGE.completionTokens;
  const f = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '—' : n.toLocaleString('en-US'));
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const table = rows.map((r) => {
    const ok = r.load.requests - r.load.errors - r.load.non2xx;
    const other = r.load.errors + r.load.non2xx - r.tokenRefusals;
    return `| ${r.label} | ${f(r.limit)} | ${f(r.load.requests)} | ${f(ok)} | ${f(r.tokenRefusals)} | ${f(other)} | ${f(r.upstreamCalls)} | ${r.load.p50.toFixed(2)} | ${r.load.p99.toFixed(2)} | ${f(r.windowUsed)} |`;
  });
  return `## Issue 32: token reservations at 200 requests/s

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()} (two cores shared with other work). Load average
(1 / 5 / 15 min) ${load(loadBefore)} before, ${load(loadAfter)} after.
Method: \`npm run bench -- tokens\` (\`bench/tokens.ts\`; \`BENCH_TOKENS_BEFORE=<checkout>\` adds a row for that tree). Each
row's gateway runs alone in its own process, \`node ${NODE_FLAGS.join(' ')} --import tsx bench/gateway-server.ts gateway\`
from the tree measured (standalone wiring, community mode, the built-in pack, request limits out of the way, in-memory
limiter), on a fresh PostgreSQL 15 database (local, TCP, dropped afterwards), with \`STEWARD_LLM_TOKENS_PER_MINUTE\` unset:
its default is ${f(perMinute)} tokens per organization per minute (cmd/config/env.ts). The stand-in (testing/llm's fake
OpenAI, in the bench process) answers every call with usage ${USAGE.promptTokens} + ${USAGE.completionTokens} = ${used} tokens.
Each call is \`POST /v1/execute\` \`{"prompt": <${PROMPT.length} characters>, "model": "gpt-4o-mini"}\`, no max_tokens, so it reserves
⌈${PROMPT.length} / 4⌉ + ${DEFAULT_MAX_TOKENS} (the default max_tokens) = ${reserve} tokens. Checks first (${rows.map((r) => r.checks)[0] ?? '—'}), then ${WARM_UP}
calls of warm-up, then ${f(REQUESTS)} calls at ${RATE} requests/s (bench/steady.ts, open loop, ${CONNECTIONS} keep-alive connections;
latency from each call's due time, 429s included) starting 0.5 s into a minute, so all of them fall in one window of the
limiter (windows are aligned to the clock's minutes). 429s are the gateway's own count of token-limit refusals
(\`steward_rate_limit_rejections_total{window="tokens-60s"}\`); "other" is every other non-2xx answer or failed request.
"Tokens in the window" is the organization's use as the limiter sees it right after the load: a probe call asking for the
whole minute (max_tokens 1,000,000) is refused with the tokens the window has left, and this is the limit minus those.

| Steward | tokens/min applied | requests | 2xx | 429 RATE_LIMITED (tokens) | other | reached the stand-in | p50 ms | p99 ms | tokens in the window |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${table.join('\n')}

At ${reserve} tokens per reservation a minute of ${f(perMinute)} holds ${f(Math.floor(perMinute / reserve))} calls when reservations stay, ${(perMinute / reserve / 60).toFixed(1)}
calls/s over a minute; settled to ${used} tokens it holds ${f(Math.floor(perMinute / used))}. ${f(REQUESTS)} calls of ${used} tokens are ${f(REQUESTS * used)}.
`;
}
