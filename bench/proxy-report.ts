/** The proxy benchmark's section of docs/benchmarks.md, from its figures (proxy.ts measures them). */
import { machine, NODE_FLAGS, percentile } from './report.js';
import type { StreamTiming } from './proxy-client.js';

export interface RateRow {
  p50: number;
  p99: number;
  errors: number;
  /** user + system CPU of the row's process per request, ms */
  cpuMsPerReq: number;
  /** the same for the PostgreSQL backends of the run's database (NaN: not a PostgreSQL row) */
  dbMsPerReq: number;
  /** RSS just before the run, bytes */
  rssIdle: number;
  /** largest RSS sampled during the run, bytes */
  rssMax: number;
  /** worker threads of the process at the end of the run */
  workers: number;
  /** share of the machine's CPU time no process used during the run, % */
  idlePct: number;
}

export interface StreamRow {
  label: string;
  timings: StreamTiming[];
}

export interface Figures {
  /** the Steward measured */
  revision: string;
  scale: number;
  rounds: number;
  sequentialPerRow: number;
  streamsPerRow: number;
  chunks: number;
  chunkDelayMs: number;
  cpuRate: number;
  cpuRounds: number;
  cpuRequests: number;
  rssRate: number;
  rssRequests: number;
  connections: number;
  loadBefore: number[];
  loadAfter: number[];
  loadMax: number;
  pgNote: string;
  checks: { label: string; blocked: number; code: string; passed: number }[];
  portkeyConfig: string;
  /** the version of `@hono/node-server` Portkey runs on */
  honoNodeServer: string;
  /** the label of the direct row, the baseline */
  direct: string;
  sequential: { label: string; ms: number[] }[];
  streams: StreamRow[];
  cpu: { label: string; runs: RateRow[] }[];
  rss: { label: string; row: RateRow }[];
}

const ms = (v: number) => (Number.isNaN(v) ? 'n/a' : v.toFixed(2));
const signed = (v: number) => (Number.isNaN(v) ? 'n/a' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`);
const mb = (v: number) => (Number.isNaN(v) ? 'n/a' : (v / 2 ** 20).toFixed(0));
const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);

function sequentialTable(f: Figures): string {
  const base = sorted(f.sequential.find((r) => r.label === f.direct)!.ms);
  const [b50, b99] = [percentile(base, 50), percentile(base, 99)];
  const rows = f.sequential.map(({ label, ms: xs }) => {
    const s = sorted(xs);
    const [p50, p99] = [percentile(s, 50), percentile(s, 99)];
    const added = label === f.direct ? '— | —' : `${signed(p50 - b50)} | ${signed(p99 - b99)}`;
    return `| ${label} | ${ms(p50)} | ${ms(p99)} | ${added} | ${s.length} |`;
  });
  return `| Row | p50 ms | p99 ms | added p50 ms | added p99 ms | requests |\n|---|---:|---:|---:|---:|---:|\n${rows.join('\n')}`;
}

function streamTable(f: Figures): string {
  const pick = (r: StreamRow, k: keyof StreamTiming) => sorted(r.timings.map((t) => t[k]));
  const base = f.streams.find((r) => r.label === f.direct)!;
  const rows = f.streams.map((r) => {
    const cells = (['firstByteMs', 'firstTokenMs', 'totalMs'] as const).map((k) => {
      const s = pick(r, k);
      const b = pick(base, k);
      const [p50, p99] = [percentile(s, 50), percentile(s, 99)];
      return r === base
        ? `${ms(p50)} / ${ms(p99)}`
        : `${ms(p50)} / ${ms(p99)} (${signed(p50 - percentile(b, 50))} / ${signed(p99 - percentile(b, 99))})`;
    });
    const chunks = percentile(pick(r, 'contentChunks'), 50);
    return `| ${r.label} | ${cells.join(' | ')} | ${chunks} |`;
  });
  return `| Row | first byte p50 / p99 ms (added) | first content chunk p50 / p99 ms (added) | whole stream p50 / p99 ms (added) | content chunks |\n|---|---:|---:|---:|---:|\n${rows.join('\n')}`;
}

function cpuTable(f: Figures): string {
  const median = (xs: number[]) => percentile(sorted(xs), 50);
  const portkey = f.cpu.find((r) => r.label.startsWith('Portkey'));
  const pkCpu = portkey ? median(portkey.runs.map((r) => r.cpuMsPerReq)) : NaN;
  const rows = f.cpu.map(({ label, runs }) => {
    const cpu = median(runs.map((r) => r.cpuMsPerReq));
    const db = median(runs.map((r) => r.dbMsPerReq));
    const who = label === f.direct ? ' (the stand-in)' : '';
    const ratio =
      label === f.direct || !portkey
        ? '—'
        : `${(cpu / pkCpu).toFixed(2)}×${Number.isNaN(db) ? '' : ` (${((cpu + db) / pkCpu).toFixed(2)}× with PostgreSQL)`}`;
    return `| ${label} | ${cpu.toFixed(3)}${who} | ${Number.isNaN(db) ? '—' : db.toFixed(3)} | ${ratio} | ${ms(median(runs.map((r) => r.p50)))} | ${ms(median(runs.map((r) => r.p99)))} | ${runs.reduce((n, r) => n + r.errors, 0)} | ${median(runs.map((r) => r.idlePct)).toFixed(0)} | ${runs.map((r) => r.cpuMsPerReq.toFixed(3)).join(', ')} |`;
  });
  return `| Row | CPU ms/req | PostgreSQL CPU ms/req | CPU vs Portkey | p50 ms | p99 ms | errors | idle % | CPU ms/req of every round |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n${rows.join('\n')}`;
}

function rssTable(f: Figures): string {
  const rows = f.rss.map(({ label, row: r }) => {
    const who = label === f.direct ? ' (the stand-in)' : '';
    return `| ${label} | ${mb(r.rssIdle)}${who} | ${mb(r.rssMax)} | ${r.workers} | ${r.cpuMsPerReq.toFixed(3)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${r.idlePct.toFixed(0)} |`;
  });
  return `| Row | RSS before MB | max RSS MB | worker threads | CPU ms/req | p50 ms | p99 ms | errors | idle % |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n${rows.join('\n')}`;
}

/** What one Budget charging every call adds (issue 35): p50 of that row minus the same gateway's without it. */
function budgetNote(f: Figures): string {
  const p50 = (label: string) => {
    const row = f.sequential.find((r) => r.label === label);
    return row ? percentile(sorted(row.ms), 50) : NaN;
  };
  const out = (['/v1/chat/completions', '/v1/execute'] as const).map((route) => {
    const added =
      p50(`Steward ${route}, PostgreSQL, a Budget charging every call`) - p50(`Steward ${route}, PostgreSQL`);
    return `${route} ${signed(added)} ms`;
  });
  return out.some((s) => s.includes('n/a'))
    ? ''
    : `\nWhat admission with a Budget adds, p50 of the same gateway with and without one Budget that charges every call (a reservation before the upstream call and a settle after it): ${out.join(', ')}.\n`;
}

/** What explains the stream rows: Steward's relay or not (read from the chunks it sent), Portkey's first-chunk wait. */
function streamNotes(f: Figures): string {
  const notes: string[] = [];
  const steward = f.streams.find((r) => r.label.startsWith('Steward'));
  if (steward && percentile(sorted(steward.timings.map((t) => t.contentChunks)), 50) <= 1) {
    notes.push(
      'NB: this Steward calls the provider without streaming and sends the whole answer as one content chunk after the audit commit, so its first content chunk comes after the whole generation.',
    );
  } else if (steward) {
    const direct = f.streams.find((r) => r.label === f.direct)!;
    const chunks = (r: StreamRow) => percentile(sorted(r.timings.map((t) => t.contentChunks)), 50);
    notes.push(
      chunks(steward) < chunks(direct)
        ? `Steward relays the provider's stream through its streaming output redaction (docs/llm-proxy.md, Streams), which holds back what may still become a match (here a word that may begin a key prefix or label, until the next one arrives): ${chunks(steward)} content chunks for the stand-in's ${chunks(direct)}.`
        : "Steward relays the provider's stream chunk by chunk.",
    );
    const plain = f.streams.find((r) => r.label.includes('output redaction disabled'));
    if (plain) {
      const first = (r: StreamRow) => percentile(sorted(r.timings.map((t) => t.firstTokenMs)), 50);
      const cost = first(steward) - first(plain);
      notes.push(
        `What redaction adds to the first content chunk, p50 of the same gateway with and without the pack's output redaction: ${cost >= 0 ? '+' : '−'}${Math.abs(cost).toFixed(2)} ms.`,
      );
    }
  }
  if (f.streams.some((r) => r.label.startsWith('Portkey'))) {
    notes.push(
      "Portkey's stream reader waits 25 ms before it passes on its first chunk (`setTimeout(…, 25)` on the first line of the provider's stream in `build/start-server.js`), which is most of its first-byte overhead.",
    );
  }
  return notes.join(' ');
}

export function proxyMarkdown(f: Figures): string {
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  const checks = f.checks.map((c) => `${c.label}: ${c.blocked} ${c.code}, benign ${c.passed}`).join('; ');
  return `## LLM proxy: Steward vs Portkey vs the upstream called directly

Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}. Load average (1 / 5 / 15 min)
${load(f.loadBefore)} before, ${load(f.loadAfter)} after, highest 1-min reading during the run ${f.loadMax.toFixed(2)}: the machine's two cores are shared
with other work, so compare rows of one run, not runs.${f.pgNote ? ` ${f.pgNote}.` : ''}
Method: \`npm run bench -- proxy\` (\`bench/proxy.ts\`; \`BENCH_PROXY_SCALE=4\` for four times the requests, scale ${f.scale} here). Each server runs
alone in its own child process, \`node ${NODE_FLAGS.join(' ')}\`: the LLM stand-in (\`bench/upstream-server.ts\`, OpenAI Chat Completions wire,
JSON at once, or SSE: the role chunk, then ${f.chunks} content chunks ${f.chunkDelayMs} ms apart, finish and usage); Portkey's gateway
(\`@portkey-ai/gateway\` \`build/start-server.js --headless\`, \`NODE_ENV=production\`, in-memory caches, on \`@hono/node-server\` ${f.honoNodeServer}
through \`bench/portkey-server.ts\`, which copies a fetch \`Response\` used as another's init as 1.14.2 did: without it every Portkey stream
fails with \`TypeError: immutable\`, Portkey-AI/gateway#1389); Steward's gateway
(${f.revision}; \`bench/gateway-server.ts\` compiled by tsc: standalone wiring, community mode, the built-in policy pack, OpenAI provider at the
stand-in, rate limits out of the way) once on embedded PGlite and once on PostgreSQL 15 (a fresh database, local, TCP). Every
Steward request evaluates the pack, commits a context row, calls the stand-in and commits an audit entry before it answers;
Portkey runs its four regular expressions on the last message and keeps no record of the request (its log middleware has no
listener here). The pack's policies do more than those patterns (SSN area rules, Luhn, SQL statement shapes): the comparison is
of what each gateway does by default for these four concerns, not of equal work.
Clients run in the parent: undici, keep-alive. The rows are measured in ${f.rounds} interleaved rounds (the order rotates each round).

Guardrails checked in this run before the measurements (an SSN prompt, then a benign one): ${checks}.
Portkey's config (\`x-portkey-config\` header; \`default.regexMatch\` runs \`new RegExp(rule)\` on the last message, \`not: true\` passes
when the pattern does not match, \`deny: true\` answers 446 when a check fails):
\`${f.portkeyConfig}\`

**Sequential** (one connection, ${f.sequentialPerRow} requests per row after 200 of warm-up; the whole answer). "Added" is the row's percentile minus
the direct row's.

${sequentialTable(f)}
${budgetNote(f)}

**CPU at ${f.cpuRate} requests/s** (bench/steady.ts, open loop, ${f.connections} connections; ${f.cpuRounds} rounds of ${f.cpuRequests} requests per row; median round).
CPU is the user + system time of the row's process per answered request (/proc/<pid>/stat; the stand-in's own for the direct row);
PostgreSQL CPU that of the database backends serving the run's database; "idle %" the machine's CPU no process used.

${cpuTable(f)}

**Memory at ${f.rssRate} requests/s** (${f.rssRequests} requests per row, same generator): VmRSS of the row's process sampled every 50 ms
(all its threads). Steward's worker threads are its policy isolation pools (\`runtime/policy/isolate\`, two workers per policy engine, one
engine for the gateway and one for the orchestrator in standalone mode), each a V8 isolate of its own with the pack compiled, ~66 MB; they
start with the first policy input above the inline threshold (8 KiB), which these requests never reach, so the column counts 0. Before
they started lazily (2 s after the engine, load or not) the PostgreSQL row peaked at 546 MB with four of them.

${rssTable(f)}

**Streams** (one connection, ${f.streamsPerRow} streams per row, \`stream: true\` with \`include_usage\`). The stand-in takes ${f.chunks} × ${f.chunkDelayMs} ms
for a stream, and as long for a non-streaming answer of the same model, as a real model does. p50 / p99 ms, and in brackets added over
the direct row. ${streamNotes(f)}

${streamTable(f)}

Targets for later optimisation: Steward's added latency and CPU per request at most half of Portkey's; RSS below 150 MB at 500 requests/s.`;
}
