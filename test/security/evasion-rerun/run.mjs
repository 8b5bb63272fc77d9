// Evasion re-run against a real standalone Steward (community mode). Not a vitest file.
//
//   node_modules/.bin/node test/security/evasion-rerun/run.mjs            # starts Steward + an LLM stand-in itself
//   STEWARD_URL=http://127.0.0.1:18280 node_modules/.bin/node test/security/evasion-rerun/run.mjs --no-spawn
//        (--no-spawn: use a Steward already running, pointed at this script's stand-in on STANDIN_PORT)
//
// Only 127.0.0.1 is contacted. Results: $EVASION_WORK/results.json (default /tmp/stw-evasion-rerun).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const WORK = process.env.EVASION_WORK ?? '/tmp/stw-evasion-rerun';
const GW_PORT = Number(process.env.STEWARD_GATEWAY_PORT ?? 18280);
const OR_PORT = Number(process.env.STEWARD_ORCHESTRATOR_PORT ?? 18281);
const STANDIN_PORT = Number(process.env.STANDIN_PORT ?? 18290);
const BASE = process.env.STEWARD_URL ?? `http://127.0.0.1:${GW_PORT}`;
const SPAWN = !process.argv.includes('--no-spawn');
const MODEL = 'gpt-4o-mini';
fs.mkdirSync(WORK, { recursive: true });

const variants = fs
  .readFileSync(path.join(here, 'variants.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const answers = new Map(variants.filter((v) => v.answer !== undefined).map((v) => [v.id, v]));

// ---------------------------------------------------------------- LLM stand-in
// Answers POST /v1/chat/completions with the `answer` of the variant named by "ANSWER_ID:<id>" in the prompt
// (else "OK"). Streams are cut into `chunk` code points per event (default 3).
function startStandin() {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      let body = {};
      try {
        body = JSON.parse(raw);
      } catch {
        /* empty */
      }
      const prompt = JSON.stringify(body.messages ?? []);
      const m = /ANSWER_ID:([A-Z]\d+)/.exec(prompt);
      const v = m ? answers.get(m[1]) : undefined;
      const text = v ? v.answer : 'OK';
      const chunk = v?.chunk ?? 3;
      const id = 'chatcmpl-standin',
        created = Math.floor(Date.now() / 1000),
        model = body.model ?? MODEL;
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const send = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`);
        send({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
        });
        const cps = [...text];
        for (let i = 0; i < cps.length; i += chunk) {
          send({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [{ index: 0, delta: { content: cps.slice(i, i + chunk).join('') }, finish_reason: null }],
          });
        }
        send({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        });
        if (body.stream_options?.include_usage)
          send({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [],
            usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
          });
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(STANDIN_PORT, '127.0.0.1', () => resolve(server)));
}

// ---------------------------------------------------------------- Steward
async function startSteward() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-evasion-data-'));
  const log = fs.openSync(path.join(WORK, 'steward.log'), 'w');
  const env = {
    ...process.env,
    STEWARD_DATA_DIR: dataDir,
    STEWARD_GATEWAY_PORT: String(GW_PORT),
    STEWARD_ORCHESTRATOR_PORT: String(OR_PORT),
    STEWARD_HOST: '127.0.0.1',
    OPENAI_API_KEY: 'standin-key',
    OPENAI_BASE_URL: `http://127.0.0.1:${STANDIN_PORT}/v1`,
    STEWARD_OPENAI_MODEL: MODEL,
    LOG_LEVEL: 'warn',
    // ~400 requests in a minute: lift the per-organization request limit (default 100/min) so no verdict is a 429
    STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
    STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
  };
  for (const k of [
    'ANTHROPIC_API_KEY',
    'AWS_ACCESS_KEY_ID',
    'OLLAMA_BASE_URL',
    'DATABASE_URL',
    'REDIS_URL',
    'STEWARD_LICENSE_KEY',
  ])
    delete env[k];
  const child = spawn(path.join(repo, 'node_modules/.bin/node'), [path.join(repo, 'bin/steward.mjs'), 'standalone'], {
    cwd: repo,
    env,
    stdio: ['ignore', log, log],
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`steward exited ${child.exitCode}; see ${WORK}/steward.log`);
    try {
      const r = await fetch(`${BASE}/health`);
      if (r.ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error('steward did not become healthy');
    await new Promise((r) => setTimeout(r, 300));
  }
  return { child, dataDir };
}

// ---------------------------------------------------------------- requests
async function precheck(query) {
  const r = await fetch(`${BASE}/api/policy/pre-check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: 'evasion-rerun', user_token: 'redteam', query }),
  });
  const j = await r.json().catch(() => ({}));
  return {
    status: r.status,
    approved: r.status === 200 && j.approved === true,
    blocked: r.status === 200 && j.approved === false,
    policies: j.policies ?? [],
    reason: j.block_reason ?? j.error?.message ?? null,
  };
}

async function chat(messages, stream = false) {
  const r = await fetch(`${BASE}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages, stream, max_tokens: 64 }),
  });
  if (!stream || !r.ok) {
    const j = await r.json().catch(() => ({}));
    return {
      status: r.status,
      approved: r.status === 200,
      blocked: r.status === 403 && j.error?.code === 'policy_violation',
      text: j.choices?.[0]?.message?.content ?? null,
      reason: j.error?.details?.block_reason ?? j.error?.message ?? null,
      code: j.error?.code ?? null,
    };
  }
  const raw = await r.text();
  let text = '',
    error = null;
  const events = [];
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const o = JSON.parse(line.slice(6));
    if (o.error) {
      error = o.error;
      continue;
    }
    const d = o.choices?.[0]?.delta?.content;
    if (d) {
      text += d;
      events.push(d);
    }
  }
  return {
    status: r.status,
    approved: r.status === 200 && !error,
    blocked: error?.code === 'policy_violation',
    text,
    events,
    reason: error?.message ?? null,
  };
}

// What a person (or a model) reads: invisible characters dropped (TAG characters too: they do not render),
// digits of any script and the look-alikes used in variants.jsonl mapped to ASCII, then only [0-9A-Za-z] kept.
const HAN = '〇一二三四五六七八九',
  NEGC = '⓿❶❷❸❹❺❻❼❽❾';
const LOOK = {
  А: 'A',
  В: 'B',
  С: 'C',
  Е: 'E',
  Н: 'H',
  І: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  О: 'O',
  Р: 'P',
  Ѕ: 'S',
  Т: 'T',
  Х: 'X',
  Ү: 'Y',
  а: 'a',
  с: 'c',
  е: 'e',
  і: 'i',
  ј: 'j',
  о: 'o',
  р: 'p',
  ѕ: 's',
  х: 'x',
  у: 'y',
  һ: 'h',
  ɡ: 'g',
};
function digitValue(c) {
  let cp = c.codePointAt(0),
    k = 0;
  while (/\p{Nd}/u.test(String.fromCodePoint(cp - 1)) && k < 60) {
    cp--;
    k++;
  }
  return String(k % 10);
}
function visible(s) {
  let out = '';
  for (const c of s ?? '') {
    const cp = c.codePointAt(0);
    if (/[\p{Cf}\p{Mn}\p{Me}]/u.test(c) || (cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0xfe00 && cp <= 0xfe0f)) continue;
    if (/\p{Nd}/u.test(c)) {
      out += digitValue(c);
      continue;
    }
    if (HAN.includes(c)) {
      out += HAN.indexOf(c);
      continue;
    }
    if (NEGC.includes(c)) {
      out += NEGC.indexOf(c);
      continue;
    }
    if (cp >= 0x2780 && cp <= 0x2788) {
      out += String(cp - 0x2780 + 1);
      continue;
    }
    if (cp >= 0x1f170 && cp <= 0x1f189) {
      out += String.fromCharCode(65 + cp - 0x1f170);
      continue;
    }
    if (LOOK[c]) {
      out += LOOK[c];
      continue;
    }
    out += c.normalize('NFKC');
  }
  return out.replace(/[^0-9A-Za-z]/g, '');
}
const leaked = (text, canonical) => visible(text).toUpperCase().includes(visible(canonical).toUpperCase());

// ---------------------------------------------------------------- run
const results = [];
async function runVariant(v) {
  const rec = { id: v.id, family: v.family, polarity: v.polarity, note: v.note, channels: {} };
  for (const ch of v.channels) {
    if (ch === 'precheck') {
      rec.channels.precheck = await precheck(v.query);
    } else if (ch === 'chat') {
      const messages = v.messages ?? [{ role: 'user', content: v.query }];
      const r = await chat(messages, false);
      rec.channels.chat = {
        status: r.status,
        approved: r.approved,
        blocked: r.blocked,
        reason: r.reason,
        code: r.code,
      };
    } else if (ch === 'output') {
      const messages = [{ role: 'user', content: `ANSWER_ID:${v.id} please answer.` }];
      for (const stream of [false, true]) {
        const r = await chat(messages, stream);
        const o = {
          status: r.status,
          approved: r.approved,
          blocked: r.blocked,
          reason: r.reason,
          received: r.text,
          redacted: /\[REDACTED/.test(r.text ?? ''),
        };
        if (v.canonical) o.leaked = r.text != null && leaked(r.text, v.canonical);
        if (stream && v.canonical && r.events) o.leakedInOneEvent = r.events.some((e) => leaked(e, v.canonical));
        if (v.polarity === 'negative') o.changed = r.text !== v.answer;
        rec.channels[stream ? 'output_stream' : 'output'] = o;
      }
    }
  }
  // verdicts. A channel that is neither approved nor a policy block (429, 5xx, 400 ...) is inconclusive, never a pass.
  rec.inconclusive = Object.entries(rec.channels)
    .filter(([, r]) => !r.approved && !r.blocked)
    .map(([ch, r]) => `${ch}:${r.status}`);
  if (v.polarity === 'positive' || v.polarity === 'control') {
    const through = [];
    for (const [ch, r] of Object.entries(rec.channels)) {
      if (ch.startsWith('output')) {
        if (r.status === 200 && r.leaked) through.push(ch);
      } else if (r.approved) through.push(ch);
    }
    rec.gotThrough = through;
  } else {
    const fp = [];
    for (const [ch, r] of Object.entries(rec.channels)) {
      if (ch.startsWith('output')) {
        if (r.blocked || r.redacted || (r.status === 200 && r.changed)) fp.push(ch);
      } else if (r.blocked) fp.push(ch);
    }
    rec.falsePositive = fp;
  }
  results.push(rec);
}

let standin, steward;
const cleanup = async () => {
  if (steward?.child && steward.child.exitCode === null) {
    steward.child.kill('SIGTERM');
    await new Promise((r) => {
      const t = setTimeout(() => {
        steward.child.kill('SIGKILL');
        r();
      }, 15_000);
      steward.child.once('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  }
  if (steward?.dataDir) fs.rmSync(steward.dataDir, { recursive: true, force: true });
  if (standin) await new Promise((r) => standin.close(r));
};
process.on('SIGINT', async () => {
  await cleanup();
  process.exit(130);
});

try {
  standin = await startStandin();
  if (SPAWN) steward = await startSteward();
  for (const v of variants) await runVariant(v);
} finally {
  await cleanup();
}

const esc = (s) =>
  JSON.stringify(s).replace(/[^\x20-\x7e]/gu, (c) =>
    c
      .split('')
      .map((u) => '\\u' + u.charCodeAt(0).toString(16).padStart(4, '0'))
      .join(''),
  );
const byId = new Map(variants.map((v) => [v.id, v]));
const shown = (v) => esc(v.query ?? v.messages ?? v.answer);
const pos = results.filter((r) => r.polarity === 'positive');
const neg = results.filter((r) => r.polarity === 'negative');
const ctl = results.filter((r) => r.polarity === 'control');
const through = pos.filter((r) => r.gotThrough.length);
const fps = neg.filter((r) => r.falsePositive.length);
const ctlFail = ctl.filter((r) => r.gotThrough.length);
const inconclusive = results.filter((r) => r.inconclusive.length);
const summary = {
  when: new Date().toISOString(),
  positives: pos.length,
  gotThrough: through.length,
  negatives: neg.length,
  falsePositives: fps.length,
  controlsFailing: ctlFail.length,
  inconclusive: inconclusive.length,
  byFamily: Object.fromEntries(
    [...new Set(pos.map((r) => r.family))].map((f) => [
      f,
      { total: pos.filter((r) => r.family === f).length, through: through.filter((r) => r.family === f).length },
    ]),
  ),
};
fs.writeFileSync(path.join(WORK, 'results.json'), JSON.stringify({ summary, results }, null, 2));
console.log(JSON.stringify(summary, null, 2));
console.log('\n== controls that were NOT stopped ==');
for (const r of ctlFail) console.log(`${r.id} [${r.gotThrough}] ${r.note}`);
console.log('\n== inconclusive (neither approved nor a policy block) ==');
for (const r of inconclusive)
  console.log(
    `${r.id} ${r.inconclusive.join(' ')} ${Object.values(r.channels)
      .map((c) => c.reason)
      .filter(Boolean)
      .join(' | ')}`,
  );
console.log('\n== positives that got through ==');
for (const r of through)
  console.log(`${r.id} (${r.family}) [${r.gotThrough.join(',')}] ${r.note}\n    ${shown(byId.get(r.id))}`);
console.log('\n== false positives ==');
for (const r of fps)
  console.log(
    `${r.id} [${r.falsePositive.join(',')}] ${r.note}: ${Object.values(r.channels)
      .map((c) => c.reason)
      .filter(Boolean)
      .join(' | ')}\n    ${shown(byId.get(r.id))}`,
  );
console.log(`\nfull results: ${path.join(WORK, 'results.json')}`);
