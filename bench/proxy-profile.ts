/**
 * Where Steward's governed `/v1/chat/completions` spends its CPU under a steady load: starts the LLM stand-in and
 * Steward's gateway (as the proxy benchmark does) with `node --cpu-prof`, drives it at a fixed rate (steady.ts),
 * stops it with SIGTERM so that V8 writes the profile, and prints the functions with the most self time and the
 * self and inclusive time per subsystem (npm package, or runtime/<folder> of ours).
 *
 * `node --import tsx bench/proxy-profile.ts [pg|pglite] [rate] [seconds]` (default pg 200 20; `pg` uses DATABASE_URL or the
 * local test server). The profiles stay in the folder printed at the end (open them in Chrome DevTools or speedscope);
 * `node --import tsx bench/proxy-profile.ts --summary <folder>` prints the summary of that folder again.
 * A diagnostic, not a benchmark: it writes nothing to docs/.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTempDatabase } from '../testing/pgdb.js';
import { buildServers, cpuTimeUs } from './gateway.js';
import { BENIGN_PROMPT, chatBody } from './proxy-client.js';
import { startSteward, startUpstream } from './proxy-servers.js';
import { steadyLoad } from './steady.js';

interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** The subsystem a script belongs to: an npm package, a folder of ours, node's internals, or V8's pseudo-frames. */
export function subsystem(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : `(native) ${fn}`;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/dist-bench\/((?:runtime|api)\/[^/]+|platform|rego|bench)\//.exec(url);
  if (ours) return ours[1]!;
  if (url.startsWith('node:internal/deps/undici')) return 'node:undici (fetch)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  return url;
}

/** Busy (not idle) sampled time of a profile between `to − windowUs` and `to`, µs. */
function busyUs(profile: CpuProfile, windowUs: number, tailUs: number, end: number): number {
  const to = end - tailUs;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let t = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i]!;
    if (t >= to - windowUs && t <= to && !idle.has(id)) busy += profile.timeDeltas[i + 1] ?? 0;
  });
  return busy;
}

/** Summary of the samples in the last `windowUs` before `endTime − tailUs` (the measured load, not start-up or warm-up). */
/** Where a subsystem's time goes, in the terms of the gateway's request path; undefined: node's or V8's own. */
export function bucket(sub: string): string | undefined {
  if (/^(openai|node:undici \(fetch\)|undici)$/.test(sub)) return 'provider call (HTTP client to the provider)';
  // NB: wasm frames are not a subsystem of their own: PGlite's Postgres and fetch's HTTP parser (llhttp) both are wasm.
  if (/^(pg|pg-pool|pg-protocol|pg-types|pg-connection-string|@electric-sql\/pglite|runtime\/store)$/.test(sub))
    return 'store (context row, audit entry)';
  if (/^(rego|runtime\/policy|re2js)$/.test(sub)) return 'policy evaluation (rego)';
  if (
    /^(fastify|find-my-way|avvio|light-my-request|fast-json-stringify|secure-json-parse|@fastify\/.*|fast-querystring|runtime\/http|runtime\/auth|runtime\/limits)$/.test(
      sub,
    )
  )
    return 'HTTP server (fastify, auth, limits)';
  if (/^(prom-client|runtime\/metrics|tdigest|bintrees)$/.test(sub)) return 'metrics (prom-client)';
  if (/^(pino|sonic-boom|thread-stream|pino-std-serializers)$/.test(sub)) return 'logging (pino)';
  if (/^runtime\/(redact|output)$/.test(sub)) return 'output redaction (runtime/redact)';
  if (/^(runtime\/gateway|runtime\/llm)$/.test(sub)) return 'gateway route and LLM glue';
  if (sub === 'zod') return 'validation (zod)';
  if (sub.startsWith('(garbage') || sub === '(program)') return sub;
  if (/^api\//.test(sub) || sub === 'platform') return 'api, platform';
  return undefined;
}

/** JSON work wherever it is called from: V8's parse/stringify and the packages that wrap them. */
function isJson(f: { functionName: string; url: string }): boolean {
  return (
    (!f.url && /^(parse|stringify|JSONParse|JSONStringify)$/.test(f.functionName)) ||
    /\/(fast-json-stringify|secure-json-parse)\//.test(f.url) ||
    /parseJSONFromBytes/.test(f.functionName)
  );
}

function summarise(profile: CpuProfile, windowUs: number, tailUs: number): string {
  const to = profile.endTime - tailUs;
  const from = to - windowUs;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // NB: timeDeltas[i] is the time before sample i; the time after it (deltas[i + 1]) is what the sampled frame ran for.
  const self = new Map<number, number>();
  const inclusive = new Map<string, number>();
  const buckets = new Map<string, number>();
  let jsonUs = 0;
  let total = 0;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i]!;
    if (t < from || t > to) return;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    total += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
    const seen = new Set<string>();
    let where: string | undefined;
    let json = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (f.functionName === '(root)') continue;
      const sub = subsystem(f.url, f.functionName);
      seen.add(sub);
      where ??= bucket(sub);
      json ||= isJson(f);
    }
    for (const s of seen) inclusive.set(s, (inclusive.get(s) ?? 0) + dt);
    // NB: node's and V8's frames (socket writes, streams, microtasks) count for the nearest caller of ours or a package's.
    const b =
      byId.get(id)!.callFrame.functionName === '(idle)'
        ? '(idle)'
        : (where ?? 'node runtime, no caller on the stack (event loop, sockets)');
    buckets.set(b, (buckets.get(b) ?? 0) + dt);
    if (json) jsonUs += dt;
  });
  const idle = [...self]
    .filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)')
    .reduce((a, [, v]) => a + v, 0);
  const busy = total - idle;
  const pct = (v: number) => `${((100 * v) / busy).toFixed(1)}%`;
  const fnSelf = new Map<string, number>();
  const subSelf = new Map<string, number>();
  for (const [id, v] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    const where = f.url ? `${f.url.replace(/^.*\/(node_modules|dist-bench)\//, '')}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'}  ${where}  [${subsystem(f.url, f.functionName)}]`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + v);
    const s = subsystem(f.url, f.functionName);
    subSelf.set(s, (subSelf.get(s) ?? 0) + v);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${pct(v).padStart(6)}  ${k}`)
      .join('\n');
  inclusive.delete('(idle)');
  buckets.delete('(idle)');
  return `busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled (% below: of busy time)

where the time goes (each sample to the nearest frame of a known subsystem, from the leaf up):
${top(buckets, 20)}
${pct(jsonUs).padStart(6)}  of all: JSON parse/stringify (V8, fast-json-stringify, secure-json-parse), wherever called

top functions by self time:
${top(fnSelf, 40)}

self time by subsystem:
${top(subSelf, 30)}

inclusive time by subsystem (a sample counts for every subsystem on its stack):
${top(inclusive, 30)}`;
}

/** Prints the summary of the profiles in `dir` for the window `run` recorded there (window.json). */
function report(dir: string): void {
  const measured = JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as { ms: number; endedAt: number };
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread, the others its worker threads.
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const file = files.find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) throw new Error(`no main-thread profile in ${dir}`);
  const main = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  for (const w of files.filter((f) => f !== file)) {
    const p = JSON.parse(readFileSync(join(dir, w), 'utf8')) as CpuProfile;
    console.log(
      `worker thread ${w}: ${(busyUs(p, measured.ms * 1000, measured.endedAt * 1000, main.endTime) / 1000).toFixed(0)} ms busy in the measured window`,
    );
  }
  console.log(
    `profile: ${join(dir, file)} (start-up and warm-up included; the summary counts the measured load only)\n`,
  );
  console.log(summarise(main, measured.ms * 1000, measured.endedAt * 1000));
}

/** Profiles one Steward under the load; returns the folder of the profiles. */
async function profile(store: string, rate: number, seconds: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-proxy-profile-'));
  const database =
    store === 'pg'
      ? await createTempDatabase(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test')
      : undefined;
  buildServers();
  const upstream = await startUpstream(10, 5);
  const gw = await startSteward({
    upstream: upstream.origin,
    dataDir: join(dir, 'data'),
    databaseUrl: database?.url,
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=250'],
  });
  const url = `${gw.origin}/v1/chat/completions`;
  const body = chatBody({ stream: false, prompt: BENIGN_PROMPT });
  let measured = { ms: 0, endedAt: 0 };
  try {
    // NB: warm-up long enough for the policy isolation workers to finish compiling and warming the pack (several
    // seconds of CPU each, 2 s after start), which would otherwise share the measured window's cores.
    await steadyLoad({ url, body, rate, durationS: 12 }); // warm-up: JIT, pools, isolation workers
    const load0 = loadavg()[0]!;
    const t0 = performance.now();
    const cpu0 = cpuTimeUs(gw.pid);
    const r = await steadyLoad({ url, body, rate, durationS: seconds });
    const cpuMs = (cpuTimeUs(gw.pid) - cpu0) / 1000 / r.requests;
    measured = { ms: performance.now() - t0, endedAt: performance.now() };
    console.log(
      `${store}: ${r.requests} requests at ${rate}/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors + r.non2xx}, CPU ${cpuMs.toFixed(2)} ms/req (profiler on); load ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`,
    );
  } finally {
    measured.endedAt = measured.endedAt ? performance.now() - measured.endedAt : 0; // from the load's end to the stop
    await gw.stop();
    await upstream.stop();
    await database?.drop();
  }
  writeFileSync(join(dir, 'window.json'), JSON.stringify(measured));
  return dir;
}

const args = process.argv.slice(2);
if (args[0] === '--summary') report(args[1]!);
else report(await profile(args[0] ?? 'pg', Number(args[1] ?? 200), Number(args[2] ?? 20)));
