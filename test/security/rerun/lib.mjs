// Helpers of the re-run attack script (attacks.mjs): local servers, Steward's lifecycle, HTTP calls, the result log.
// Plain JavaScript on purpose (not a vitest file, not type-checked). Every loop and wait is bounded.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { request as httpRequest } from 'node:http';
import { mkdirSync, writeFileSync, rmSync, readdirSync, copyFileSync } from 'node:fs';
import { join, posix } from 'node:path';

export const ROOT = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
export const NODE = join(ROOT, 'node_modules/.bin/node');
export const WORK = process.env.RERUN_WORK ?? '/tmp/stw-rerun';
export const GW = 'http://127.0.0.1:18080';
export const OR = 'http://127.0.0.1:18081';
export const APP_PORT = 18090;
export const RECEIVER_PORT = 18091;
export const BLACKHOLE_PORT = 18092;
export const TRICKLE_PORT = 18093;
export const SIGNING_SECRET = 'rerun-signing-secret-0123456789abcdef';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Markers that only appear when protected data came back. */
export const LEAK_MARKERS = [
  'TOPSECRET',
  'UPPERCASE-ORDERS-SECRET',
  'ADMIN-SECRET',
  'MariaDB',
  '10.11.',
  'PostgreSQL 15',
  'root@',
  'data_directory',
  '/var/lib/postgresql',
  'pg_authid',
  'attack-bound-user',
];
export const leaked = (text, extra = []) => [...LEAK_MARKERS, ...extra].find((m) => text.includes(m));

// ---------------------------------------------------------------------------------------------------------------
// results

export const results = [];
/** Records one attack: `outcome` is 'refused', 'allowed' (expected to work), 'LEAKED', 'FAIL' (a check failed), 'error'. */
export function record(attack, variant, status, code, outcome, note = '') {
  const row = { attack, variant, status, code: code ?? '', outcome, note: String(note).slice(0, 300) };
  results.push(row);
  const flag = /LEAKED|FAIL|BYPASSED|ACCEPTED|ALLOWED|SLOW/.test(outcome) ? '!!' : '  ';
  console.log(`${flag} [${attack}] ${variant} -> ${status} ${code ?? ''} ${outcome}${note ? ` (${row.note})` : ''}`);
  return row;
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

/** One request; never throws: `{status, body, text, headers}` or `{status: 0, error}`. */
export async function call(method, url, { headers = {}, body, raw, timeoutMs = 20000 } = {}) {
  const init = { method, headers: { ...headers }, signal: AbortSignal.timeout(timeoutMs) };
  if (raw !== undefined) {
    init.body = raw;
    init.headers['content-type'] ??= 'application/json';
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['content-type'] ??= 'application/json';
  }
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, body: json, text, headers: Object.fromEntries(res.headers) };
  } catch (e) {
    return { status: 0, error: String(e?.cause?.code ?? e?.name ?? e), text: '' };
  }
}

/** The error code of a gateway or orchestrator answer. */
export const codeOf = (r) =>
  r.body?.code ?? r.body?.error?.code ?? (typeof r.body?.error === 'object' ? undefined : undefined) ?? r.error ?? '';
export const reasonOf = (r) => r.body?.details?.reason ?? r.body?.error?.details?.reason ?? '';

/** A request with raw header lines (duplicates kept), through node:http. */
export function rawRequest(port, method, path, headerLines, body) {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: headerLines, timeout: 15000 }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, body: json, text });
      });
    });
    req.on('error', (e) => resolve({ status: 0, error: String(e.code ?? e), text: '' }));
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// local servers

export const appHits = [];
export const receiverHits = [];
/** Sockets the never-answering servers hold (open now, accepted in all). */
export const holeSockets = { open: 0, total: 0 };
const servers = [];

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/**
 * The http connector's API on 127.0.0.1 and ::1. Routes on the raw path: /api/ok, /api/x (302 to /admin/secret),
 * /api/r/<n> (the n-th redirect variant), /admin/secret. A path that only reaches /admin after percent-decoding and
 * normalising (what some backends do) answers ADMIN-SECRET-DECODED, so a test can tell the two apart.
 */
export const REDIRECTS = [
  '/admin/secret',
  'http://127.0.0.1:18090/admin/secret',
  '//127.0.0.1:18090/admin/secret',
  '/api/../admin/secret',
  '/api/%2e%2e/admin/secret',
  '/api/.%2E/admin/secret',
  '/api/..%2fadmin/secret',
  '/api/%2e%2e%2fadmin/secret',
  '/api%2f..%2fadmin/secret',
  '/api/..\\admin/secret',
  '\\admin\\secret',
  '/api/..;/admin/secret',
  '/api-admin/secret',
  '/API/../admin/secret',
  'http://localhost:18090/api/ok',
  'http://[::1]:18090/api/ok',
  'http://127.0.0.1:18091/api/ok',
  '/api/%252e%252e/admin/secret',
  '/api/r/0',
  'HTTP://127.0.0.1:18090/admin/secret',
  'http:/admin/secret',
  '/api/ok/../../admin/secret',
];

export async function startServers({ blackholes = 0 } = {}) {
  const app = createServer((req, res) => {
    appHits.push({
      at: Date.now(),
      method: req.method,
      url: req.url,
      host: req.headers.host,
      remote: req.socket.remoteAddress,
    });
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    const json = (status, obj, extra = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...extra });
      res.end(JSON.stringify(obj));
    };
    if (path === '/' || path === '/api' || path === '/api/' || path === '/api/ok')
      return json(200, { ok: true, path: url });
    if (path === '/api/x') return json(302, { moved: true }, { location: '/admin/secret' });
    const m = /^\/api\/r\/(\d+)$/.exec(path);
    if (m) return json(302, { moved: true }, { location: REDIRECTS[Number(m[1])] ?? '/api/ok' });
    if (path === '/admin/secret' || path.startsWith('/admin/')) return json(200, { secret: 'ADMIN-SECRET-RAW' });
    let decoded = path;
    try {
      decoded = decodeURIComponent(decodeURIComponent(path)).replace(/\\/g, '/').replace(/;/g, '');
    } catch {
      /* keep */
    }
    if (posix.normalize(decoded).startsWith('/admin')) return json(200, { secret: 'ADMIN-SECRET-DECODED', raw: path });
    return json(404, { error: 'not found', path: url });
  });
  servers.push(await listen(app, APP_PORT, '127.0.0.1'));
  const app6 = createServer(app.listeners('request')[0]);
  servers.push(await listen(app6, APP_PORT, '::1'));

  const receiverHandler = (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      receiverHits.push({ at: Date.now(), url: req.url, headers: req.headers, body, remote: req.socket.remoteAddress });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  };
  servers.push(await listen(createServer(receiverHandler), RECEIVER_PORT, '127.0.0.1'));
  servers.push(await listen(createServer(receiverHandler), RECEIVER_PORT, '::1'));

  // accepts and never answers
  const holes = [];
  for (let i = 0; i <= blackholes; i++) {
    const s = createServer(() => {});
    s.on('connection', (sock) => {
      holeSockets.open++;
      holeSockets.total++;
      sock.on('close', () => holeSockets.open--);
    });
    s.requestTimeout = 0;
    s.headersTimeout = 0;
    s.keepAliveTimeout = 0;
    holes.push(await listen(s, i === 0 ? BLACKHOLE_PORT : 18100 + i - 1, '127.0.0.1'));
  }
  servers.push(...holes);

  // answers 200 with its headers one byte a second (a slow-loris receiver)
  const trickle = createServer((req, res) => {
    const sock = res.socket;
    const head = 'HTTP/1.1 200 OK\r\nX-Slow: ' + 'a'.repeat(120);
    let i = 0;
    const t = setInterval(() => {
      if (i >= head.length || sock.destroyed) return clearInterval(t);
      sock.write(head[i++]);
    }, 1000);
    sock.on('close', () => clearInterval(t));
  });
  trickle.requestTimeout = 0;
  trickle.on('connection', () => (holeSockets.trickle = (holeSockets.trickle ?? 0) + 1));
  servers.push(await listen(trickle, TRICKLE_PORT, '127.0.0.1'));
}

export async function stopServers() {
  for (const s of servers.splice(0)) {
    s.closeAllConnections?.();
    await new Promise((r) => s.close(() => r()));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Steward

export function licenseKey(tier = 'ENT') {
  const out = execFileSync(
    NODE,
    [join(ROOT, 'bin/steward.mjs'), 'license', 'issue', '--tier', tier, '--expires', '2027-06-30'],
    {
      cwd: ROOT,
      env: { ...process.env, STEWARD_LICENSE_SIGNING_SECRET: SIGNING_SECRET },
      encoding: 'utf8',
      timeout: 60000,
    },
  );
  return out.trim().split('\n').pop().trim();
}

/** A fresh folder with the sample AgentConfigs (copied, never edited) and `extraYaml` as steward-rerun.yaml. */
export function writeManifests(dir, extraYaml) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(join(ROOT, 'config/samples')))
    if (f.endsWith('.yaml')) copyFileSync(join(ROOT, 'config/samples', f), join(dir, f));
  writeFileSync(join(dir, 'steward-rerun.yaml'), extraYaml);
}

let child;
let childLog = '';
export const stewardLog = () => childLog;

export async function startSteward(env, { label = 'steward', timeoutMs = 90000 } = {}) {
  childLog = '';
  child = spawn(NODE, ['--max-semi-space-size=32', join(ROOT, 'bin/steward.mjs'), 'standalone'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      STEWARD_GATEWAY_PORT: '18080',
      STEWARD_ORCHESTRATOR_PORT: '18081',
      STEWARD_HOST: '127.0.0.1',
      STEWARD_LLM_ECHO: 'true',
      STEWARD_PLANNER: 'deterministic',
      STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
      STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c) => (childLog = (childLog + c).slice(-2_000_000)));
  child.stderr.on('data', (c) => (childLog = (childLog + c).slice(-2_000_000)));
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${label} exited ${child.exitCode}: ${childLog.slice(-2000)}`);
    const h = await call('GET', `${GW}/health`, { timeoutMs: 2000 });
    const o = await call('GET', `${OR}/health`, { timeoutMs: 2000 });
    if (h.status === 200 && o.status === 200) return h.body;
    await sleep(500);
  }
  throw new Error(`${label} not ready within ${timeoutMs} ms: ${childLog.slice(-2000)}`);
}

export async function stopSteward() {
  if (child) writeFileSync(join(WORK, `steward-${child.pid}.log`), childLog);
  if (!child || child.exitCode !== null) return;
  const c = child;
  c.kill('SIGTERM');
  for (let i = 0; i < 40 && c.exitCode === null; i++) await sleep(250);
  if (c.exitCode === null) c.kill('SIGKILL');
  for (let i = 0; i < 20 && c.exitCode === null; i++) await sleep(100);
}
