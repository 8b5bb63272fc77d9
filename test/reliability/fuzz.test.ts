import { connect } from 'node:net';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentConfigYaml, startTestGateway, type TestGateway } from '../../testing/gateway.js';
import { bodyText, echoes, longStrings, routeSeed, sampleBodies } from './hostile-values.js';
import {
  errorOf,
  routeStyle,
  routeTable,
  SEED,
  startOrchestrator,
  type Route,
  type Style,
  type Surface,
} from './support.js';

/**
 * Issue 15, item 9a: a seeded fuzzer over every route of both surfaces. Valid-typed bodies with hostile content
 * must never get a 5xx; every error has the surface's body with a code and a request id and does not echo more
 * than 200 characters of the input. `RELIABILITY_SEED` replays a run, `RELIABILITY_BODIES` sets the count.
 */
const BODIES_PER_ROUTE = Number(process.env.RELIABILITY_BODIES ?? 150);
const MAX_ECHO = 200;

let gw: TestGateway;
let orchestrator: FastifyInstance;
let surfaces: Surface[];
let contextId: string;

beforeAll(async () => {
  console.log(`reliability fuzz: seed ${SEED} (RELIABILITY_SEED to replay), ${BODIES_PER_ROUTE} bodies per route`);
  gw = await startTestGateway({
    env: { STEWARD_RATE_LIMIT_PER_MINUTE: '1000000', STEWARD_RATE_LIMIT_PER_HOUR: '1000000', STEWARD_LLM_ECHO: 'true' },
    manifests: agentConfigYaml('fuzz-agent', 2),
  });
  orchestrator = await startOrchestrator(gw);
  surfaces = [
    { name: 'gateway', app: gw.app, style: 'agent' },
    { name: 'orchestrator', app: orchestrator, style: 'envelope' },
  ];
  const pre = await gw.app.inject({
    method: 'POST',
    url: '/api/policy/pre-check',
    headers: { 'x-license-key': gw.keys.acme },
    payload: { client_id: 'fuzz', user_token: 'u', query: 'hello' },
  });
  contextId = pre.json().context_id;
});
afterAll(async () => {
  await orchestrator?.close();
  await gw?.close();
});

interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

/** What is wrong with one answer, or nothing. */
function problem(style: Style, res: Answer, input: unknown): string | undefined {
  if (res.statusCode >= 500) return `${res.statusCode}: ${res.body.slice(0, 300)}`;
  if (res.statusCode < 400) return undefined;
  const e = errorOf(style, res);
  if (typeof e === 'string') return e;
  const said = res.body;
  const echoed = longStrings(input, MAX_ECHO).find((s) => echoes(said, s, MAX_ECHO) || echoes(e.message, s, MAX_ECHO));
  if (echoed !== undefined)
    return `${res.statusCode} ${e.code} echoes more than ${MAX_ECHO} characters of the input (${e.message.length} characters of message)`;
  return undefined;
}

function describeInput(text: string): string {
  return text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
}

const credentials = (): Record<string, string> => ({ 'x-license-key': gw.keys.acme });

/** Runs requests one at a time and collects the problems (every request runs: one report lists them all). */
async function drive(
  surface: Surface,
  route: Route,
  requests: { label: string; input: unknown; inject: InjectOptions }[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const r of requests) {
    const res = await surface.app.inject(r.inject as never);
    const p = problem(routeStyle(surface.style, route.url), res as unknown as Answer, r.input);
    if (p) problems.push(`${route.method} ${route.url} ${r.label}: ${p}`);
  }
  return problems;
}

function bodyRequests(route: Route, seed: number): { label: string; input: unknown; inject: InjectOptions }[] {
  return sampleBodies(routeSeed(seed, `${route.method} ${route.url}`), BODIES_PER_ROUTE).map((body, i) => {
    // Half the audits name a real context, so that hostile strings reach the insert.
    if (route.url === '/api/audit/llm-call' && i % 2 === 0) body.context_id = contextId;
    const text = bodyText(body);
    return {
      label: `body #${i} ${describeInput(text)}`,
      input: body,
      inject: {
        method: route.method as 'POST',
        url: route.url,
        headers: { ...credentials(), 'content-type': 'application/json' },
        payload: text,
      },
    };
  });
}

/** Query strings and headers with hostile content, for routes without a body. */
function queryRequests(route: Route, seed: number): { label: string; input: unknown; inject: InjectOptions }[] {
  return sampleBodies(routeSeed(seed, `${route.method} ${route.url}`), Math.min(BODIES_PER_ROUTE, 50)).map(
    (body, i) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(body))
        params.append(k, typeof v === 'string' ? v.slice(0, 2000) : (JSON.stringify(v)?.slice(0, 2000) ?? ''));
      return {
        label: `query #${i}`,
        input: body,
        inject: { method: route.method as 'GET', url: `${route.url}?${params}`, headers: credentials() },
      };
    },
  );
}

/** Fixed hostile requests every body route gets: wrong content types, broken JSON, non-object JSON. */
function fixedRequests(route: Route): { label: string; input: unknown; inject: InjectOptions; status?: number }[] {
  const base = { method: route.method as 'POST', url: route.url };
  const json = { ...credentials(), 'content-type': 'application/json' };
  const huge = 'x'.repeat(5000);
  return [
    {
      label: 'text/plain',
      input: huge,
      status: 415,
      inject: { ...base, headers: { ...credentials(), 'content-type': 'text/plain' }, payload: huge },
    },
    {
      label: 'application/xml',
      input: huge,
      status: 415,
      inject: { ...base, headers: { ...credentials(), 'content-type': 'application/xml' }, payload: `<a>${huge}</a>` },
    },
    {
      label: 'form-urlencoded',
      input: huge,
      status: 415,
      inject: {
        ...base,
        headers: { ...credentials(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: `a=${huge}`,
      },
    },
    {
      label: 'broken JSON echoing its input',
      input: huge,
      inject: { ...base, headers: json, payload: `{"query": "${huge}` },
    },
    { label: 'JSON null', input: null, inject: { ...base, headers: json, payload: 'null' } },
    { label: 'JSON array', input: [], inject: { ...base, headers: json, payload: '[1,2,3]' } },
    { label: 'JSON string', input: huge, inject: { ...base, headers: json, payload: JSON.stringify(huge) } },
    { label: 'empty JSON body', input: '', inject: { ...base, headers: json, payload: '' } },
    {
      label: '__proto__ key',
      input: {},
      inject: {
        ...base,
        headers: json,
        payload: '{"__proto__": {"polluted": 1}, "query": "q", "client_id": "c", "user_token": "u"}',
      },
    },
    {
      label: '10,000-level array',
      input: [],
      inject: {
        ...base,
        headers: json,
        payload: `{"query":"q","client_id":"c","user_token":"u","context":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
      },
    },
    {
      label: 'body over the limit',
      input: huge,
      status: 413,
      inject: { ...base, headers: json, payload: JSON.stringify({ query: 'y'.repeat(1_100_000) }) },
    },
  ];
}

/** YAML documents that cost a naive parser dearly (validate endpoint). */
function yamlBombs(): { label: string; input: unknown; inject: InjectOptions }[] {
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++)
    laughs.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(',')}]`,
    );
  // NB: the 30,000-key document is hostile-policies.test.ts's (it checks /health answers while it parses).
  const merge = ['base: &b {x: 1}', ...Array.from({ length: 99 }, (_, i) => `m${i}: {<<: *b, y: ${i}}`)].join('\n');
  const yaml = (label: string, payload: string) => ({
    label,
    input: payload,
    inject: {
      method: 'POST' as const,
      url: '/api/v1/agents/validate',
      headers: { 'content-type': 'application/yaml' },
      payload,
    },
  });
  return [
    yaml('billion laughs', laughs.join('\n')),
    yaml('99 merge keys', merge),
    yaml('10,000-level flow nesting', `${'['.repeat(10_000)}${']'.repeat(10_000)}`),
    yaml('10,000-level block nesting', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')),
    yaml('a custom tag', 'spec: !!js/function "function(){}"'),
    yaml('NUL and lone surrogate', 'metadata: {name: "a\\0\\ud800"}'),
    yaml('unterminated quote echoing input', `metadata: {name: "${'z'.repeat(5000)}`),
  ];
}

describe('seeded fuzzer over every route (item 9a)', () => {
  it('finds the routes of both surfaces in the apps', () => {
    for (const s of surfaces) expect(routeTable(s.app).length, s.name).toBeGreaterThan(1);
    expect(routeTable(gw.app)).toContainEqual({ method: 'POST', url: '/api/policy/pre-check' });
    expect(routeTable(orchestrator)).toContainEqual({ method: 'POST', url: '/api/v1/agents/validate' });
  });

  it(
    'answers hostile valid-typed bodies without a 5xx, with a coded error body that echoes at most 200 characters',
    { timeout: 150_000 },
    async () => {
      const problems: string[] = [];
      let sent = 0;
      for (const surface of surfaces) {
        for (const route of routeTable(surface.app)) {
          if (route.method === 'HEAD' || route.method === 'OPTIONS') continue;
          const requests =
            route.method === 'GET' || route.method === 'DELETE'
              ? queryRequests(route, SEED)
              : bodyRequests(route, SEED);
          sent += requests.length;
          const started = performance.now();
          const found = await drive(surface, route, requests);
          problems.push(...found);
          console.log(
            `fuzz ${surface.name} ${route.method} ${route.url}: ${requests.length} requests, ${found.length} problems, ${Math.round(performance.now() - started)} ms`,
          );
        }
      }
      console.log(`fuzz: ${sent} requests, ${problems.length} problems`);
      expect(problems, `seed ${SEED}`).toEqual([]);
    },
  );

  it(
    'refuses wrong content types with 415, broken and non-object JSON with a 4xx, all with a code',
    { timeout: 60_000 },
    async () => {
      const problems: string[] = [];
      for (const surface of surfaces) {
        for (const route of routeTable(surface.app)) {
          if (route.method !== 'POST' && route.method !== 'PUT' && route.method !== 'PATCH') continue;
          for (const r of fixedRequests(route)) {
            const res = await surface.app.inject(r.inject as never);
            const p =
              problem(routeStyle(surface.style, route.url), res as unknown as Answer, r.input) ??
              (r.status && res.statusCode !== r.status
                ? `expected ${r.status}, got ${res.statusCode}: ${res.body.slice(0, 200)}`
                : undefined);
            if (p) problems.push(`${surface.name} ${route.method} ${route.url} ${r.label}: ${p}`);
          }
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it('survives YAML bombs on the validate endpoint with a 2xx or a coded 4xx', { timeout: 60_000 }, async () => {
    const problems: string[] = [];
    for (const r of yamlBombs()) {
      const res = await orchestrator.inject(r.inject as never);
      const p = problem('envelope', res as unknown as Answer, r.input);
      if (p) problems.push(`${r.label}: ${p}`);
    }
    expect(problems).toEqual([]);
  });
});

/** Writes raw bytes to a socket and collects what comes back until the server closes it (bounded). */
function rawExchange(port: number, bytes: string | Buffer, deadlineMs = 10_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, deadlineMs);
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => socket.write(bytes));
  });
}

function parseRaw(raw: string): Answer | undefined {
  const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(raw);
  if (!m) return undefined;
  const headers: Record<string, string> = {};
  for (const h of m[2]!.split('\r\n')) {
    const i = h.indexOf(':');
    headers[h.slice(0, i).toLowerCase()] = h.slice(i + 1).trim();
  }
  let body = m[3]!;
  if (headers['transfer-encoding'] === 'chunked')
    body = body.replace(/(^|\r\n)[0-9a-f]+\r\n/gi, '').replace(/\r\n$/, '');
  return { statusCode: Number(m[1]), headers, body };
}

describe('HTTP parser errors on a real socket (item 9a)', () => {
  const cases = [
    {
      name: 'a 64 KiB header',
      status: 431,
      bytes: `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
    },
    {
      name: '8,000 small headers',
      status: 431,
      bytes: `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n${Array.from({ length: 8000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`,
    },
    { name: 'a malformed request line', status: 400, bytes: 'GET /health HTTP/1.1 extra words\r\nHost: x\r\n\r\n' },
    { name: 'garbage instead of a request', status: 400, bytes: '\u0000\u0001\u0002 nonsense\r\n\r\n' },
    { name: 'an unknown HTTP version', status: 400, bytes: 'GET /health HTTP/9.9\r\nHost: x\r\n\r\n' },
    { name: 'a NUL in a header value', status: 400, bytes: 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n' },
    {
      name: 'a bad chunked body',
      status: 400,
      bytes: (s: Surface) =>
        `POST ${s.name === 'gateway' ? '/api/policies/test' : '/api/v1/agents/validate'} HTTP/1.1\r\nHost: x\r\nX-License-Key: ${gw.keys.acme}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    },
  ];

  it.each(cases)('answers $name with a coded 4xx on both surfaces', async ({ bytes, status }) => {
    for (const surface of surfaces) {
      await surface.app.listen({ host: '127.0.0.1', port: 0 }).catch((err: Error) => {
        if (!/already listening/i.test(err.message)) throw err;
      });
      const port = (surface.app.server.address() as { port: number }).port;
      const raw = await rawExchange(port, typeof bytes === 'function' ? bytes(surface) : bytes);
      const res = parseRaw(raw);
      expect(res, `${surface.name}: no HTTP answer, got ${JSON.stringify(raw.slice(0, 200))}`).toBeDefined();
      expect(res!.statusCode, surface.name).toBe(status);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(res!.body);
      } catch {
        expect.fail(`${surface.name}: ${status} without a JSON body: ${JSON.stringify(res!.body.slice(0, 200))}`);
      }
      const code = surface.style === 'agent' ? body.code : (body.error as Record<string, unknown> | undefined)?.code;
      expect(code, `${surface.name}: ${res!.body.slice(0, 200)}`).toEqual(expect.any(String));
    }
  });
});
