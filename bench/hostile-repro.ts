/**
 * The reproductions of issue 15, one at a time against a running standalone (bench/hostile.ts), each while GET
 * /health is polled every HEALTH_POLL_MS: what each answered, how long it took, and the slowest /health answer
 * meanwhile. The acceptance asks each to answer within its deadline (200 ms) plus 50 ms of evaluation, blocked
 * or refused with a code, and /health within 100 ms.
 */
import { connect } from 'node:net';

const HEALTH_POLL_MS = 10;
/** Each reproduction is sent this many times; the table shows the median and the worst. */
const REPEAT = 5;

/** User policies the reproductions need, written into a manifest folder of the standalone under test. */
export const REPRO_POLICIES = [
  'sort-range',
  'marshal-range',
  'add-string',
  'divide-by-zero',
  'object-get-string',
  'to-number-garbage',
]
  .map((name) => {
    const body: Record<string, string> = {
      'sort-range': 'count(sort(numbers.range(1, 10000000))) > 0',
      'marshal-range': 'count(json.marshal(numbers.range(1, 10000000))) > 0',
      'add-string': 'input.query + 1 > 0',
      'divide-by-zero': '1 / count(input.context.empty) > 0',
      'object-get-string': 'object.get(input.query, "a", 1) == 1',
      'to-number-garbage': 'to_number(input.context.garbage) > 0',
    };
    return `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: repro-${name}}
spec:
  type: custom
  priority: 2000
  action: block
  rego: |-
    package steward.repro.${name.replace(/-/g, '_')}

    deny contains "matched" if {
        input.context.repro == "${name}"
        ${body[name]}
    }
---
`;
  })
  .join('');

interface Repro {
  name: string;
  surface: 'gateway' | 'orchestrator' | 'socket';
  path: string;
  contentType?: string;
  body: string;
}

const json = (v: unknown) => JSON.stringify(v);
const precheck = (query: string, context: Record<string, unknown> = {}) =>
  json({ client_id: 'repro', user_token: 'u', query, context });

const REPROS: Repro[] = [
  {
    name: 'pre-check, "\\n" × 400,000',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('\n'.repeat(400_000)),
  },
  {
    name: 'policy test, "\\n" × 40,000',
    surface: 'gateway',
    path: '/api/policies/test',
    body: json({ query: '\n'.repeat(40_000) }),
  },
  {
    name: 'policy test, "union/**/select " × 5,000',
    surface: 'gateway',
    path: '/api/policies/test',
    body: json({ query: 'union/**/select '.repeat(5000) }),
  },
  {
    name: 'user policy: sort(numbers.range(1, 1e7))',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('q', { repro: 'sort-range' }),
  },
  {
    name: 'user policy: json.marshal(numbers.range(1, 1e7))',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('q', { repro: 'marshal-range' }),
  },
  {
    name: 'user policy: input.query + 1',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('q', { repro: 'add-string' }),
  },
  {
    name: 'user policy: division by zero',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('q', { repro: 'divide-by-zero', empty: [] }),
  },
  {
    name: 'user policy: object.get on a string',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('q', { repro: 'object-get-string' }),
  },
  {
    name: 'user policy: to_number("garbage")',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    body: precheck('q', { repro: 'to-number-garbage', garbage: 'garbage' }),
  },
  {
    name: 'validate, 30,000-key YAML',
    surface: 'orchestrator',
    path: '/api/v1/agents/validate',
    contentType: 'application/yaml',
    body: `apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: a}\nspec:\n${Array.from({ length: 30_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`,
  },
  {
    name: 'audit, tokens.prompt 2147483648',
    surface: 'gateway',
    path: '/api/audit/llm-call',
    body: json({ client_id: 'repro', context_id: 'ctx_x', tokens: { prompt: 2147483648 } }),
  },
  {
    name: 'audit, NUL in a metadata key',
    surface: 'gateway',
    path: '/api/audit/llm-call',
    body: json({ client_id: 'repro', context_id: 'ctx_x', metadata: { 'a\u0000b': 1 } }),
  },
  {
    name: 'audit, lone surrogate in metadata',
    surface: 'gateway',
    path: '/api/audit/llm-call',
    body: json({ client_id: 'repro', context_id: 'ctx_x', metadata: { a: '\ud800' } }),
  },
  {
    name: 'audit, metadata nested 10,000 levels',
    surface: 'gateway',
    path: '/api/audit/llm-call',
    body: `{"client_id":"repro","context_id":"ctx_x","metadata":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
  },
  {
    name: 'audit, NUL in context_id',
    surface: 'gateway',
    path: '/api/audit/llm-call',
    body: json({ client_id: 'repro', context_id: 'ctx_\u0000' }),
  },
  {
    name: 'pre-check, text/plain body',
    surface: 'gateway',
    path: '/api/policy/pre-check',
    contentType: 'text/plain',
    body: 'hello',
  },
  {
    name: 'validate, text/plain body',
    surface: 'orchestrator',
    path: '/api/v1/agents/validate',
    contentType: 'text/plain',
    body: 'kind: AgentConfig',
  },
  {
    name: '/v1/execute, 500 KB provider name',
    surface: 'gateway',
    path: '/v1/execute',
    body: json({ prompt: 'hi', provider: 'p'.repeat(500 * 1024) }),
  },
  { name: 'headers over 16 KiB (raw socket)', surface: 'socket', path: '/health', body: '' },
];

export interface ReproResult {
  name: string;
  answer: string;
  medianMs: number;
  maxMs: number;
  healthMaxMs: number;
}

/** A request with 20 KiB of headers on a raw socket: the HTTP parser's 431, as its status line and code. */
async function bigHeaders(origin: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname);
    let got = '';
    s.setTimeout(10_000, () => s.destroy());
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 'no answer';
      const code = /"code":"([A-Z_]+)"/.exec(got)?.[1];
      resolve(code ? `${status} ${code}` : status);
    });
    s.on('error', () => undefined);
    s.end(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\nConnection: close\r\n\r\n`);
  });
}

async function send(r: Repro, origins: { gateway: string; orchestrator: string }): Promise<string> {
  if (r.surface === 'socket') return bigHeaders(origins.gateway);
  const res = await fetch(`${origins[r.surface]}${r.path}`, {
    method: 'POST',
    headers: { 'content-type': r.contentType ?? 'application/json' },
    body: r.body,
  });
  const text = await res.text();
  let body: { approved?: boolean; block_reason?: string; code?: string; error?: { code?: string } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the status alone says it
  }
  if (res.status === 200 && body.approved !== undefined)
    return body.approved ? '200 approved' : `200 blocked: ${body.block_reason ?? ''}`;
  return `${res.status} ${body.code ?? body.error?.code ?? ''}`.trim();
}

/** Polls /health every HEALTH_POLL_MS until `done`; the slowest answer, ms. */
async function pollHealth(origin: string, done: () => boolean): Promise<number> {
  let worst = 0;
  while (!done()) {
    const t0 = performance.now();
    await fetch(`${origin}/health`).then((r) => r.arrayBuffer());
    worst = Math.max(worst, performance.now() - t0);
    await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
  }
  return worst;
}

export async function runReproductions(origins: { gateway: string; orchestrator: string }): Promise<ReproResult[]> {
  const out: ReproResult[] = [];
  for (const r of REPROS) {
    const times: number[] = [];
    let answer = '';
    let healthMaxMs = 0;
    for (let i = 0; i < REPEAT; i++) {
      let done = false;
      const health = pollHealth(origins.gateway, () => done);
      const t0 = performance.now();
      answer = await send(r, origins);
      times.push(performance.now() - t0);
      done = true;
      healthMaxMs = Math.max(healthMaxMs, await health);
    }
    times.sort((a, b) => a - b);
    out.push({
      name: r.name,
      answer,
      medianMs: times[Math.floor(times.length / 2)]!,
      maxMs: times.at(-1)!,
      healthMaxMs,
    });
  }
  return out;
}

export function reproTable(results: readonly ReproResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.answer.replace(/\|/g, '\\|')} | ${r.medianMs.toFixed(1)} | ${r.maxMs.toFixed(1)} | ${r.healthMaxMs.toFixed(1)} |`,
  );
  return [
    '| Reproduction | answer | median ms | max ms | slowest /health meanwhile, ms |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
