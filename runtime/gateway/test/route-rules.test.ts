import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUES } from '../../../api/index.js';
import { orchestratorBuilder, startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { buildGateway } from '../app.js';
import { createHttpApp } from '../../http/app.js';
import { registerAuth } from '../../auth/plugin.js';
import { createLogger } from '../../../platform/log.js';

/**
 * Every route of both surfaces states a credential rule, and outside community mode every route but the
 * public ones refuses missing and bad credentials. The route tables are read from fastify's onRoute hook, so
 * a route added later is covered without editing this test.
 */
let gw: TestGateway;
let community: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000', STEWARD_METRICS_TOKEN: 'route-rules-operator-token' },
  });
  community = await startTestGateway({ licensed: false });
});
afterAll(async () => {
  await gw?.close();
  await community?.close();
});

interface Route {
  method: string;
  url: string;
  rule: string | undefined;
}

/** Builds an app and records its route table as fastify registers it. */
async function routesOf(build: () => FastifyInstance): Promise<{ app: FastifyInstance; routes: Route[] }> {
  const app = build();
  const seen: RouteOptions[] = [];
  app.addHook('onRoute', (r: RouteOptions) => void seen.push(r));
  await app.ready();
  // NB: read once every onRoute hook has run: the rule of a public scope's route is filled in by route-auth's hook.
  const routes = seen.flatMap((r) =>
    [r.method].flat().map((method) => ({ method, url: r.url, rule: r.config?.auth?.require })),
  );
  return { app, routes };
}

const surfaces = [
  {
    name: 'gateway',
    prepare: async (t: TestGateway) => () => buildGateway(t.parts.deps),
    shape: 'agent' as const,
    surface: 'gateway' as const,
  },
  {
    name: 'orchestrator',
    prepare: async (t: TestGateway) => {
      const build = await orchestratorBuilder(t);
      return () => build().app;
    },
    shape: 'envelope' as const,
    surface: 'plan' as const,
  },
];

const BAD_CREDENTIALS: { name: string; headers: (t: TestGateway) => Record<string, string> }[] = [
  { name: 'no credentials', headers: () => ({}) },
  { name: 'a malformed license key', headers: () => ({ 'x-license-key': 'STW-ENT-xx' }) },
  { name: 'a well-formed key of no License', headers: (t) => ({ 'x-license-key': t.keys.unregistered }) },
  { name: 'an expired license key', headers: (t) => ({ 'x-license-key': t.keys.expired }) },
  { name: 'an unknown API key', headers: () => ({ authorization: 'Bearer client-nobody-prod-0000' }) },
  {
    name: 'bad Basic credentials',
    headers: () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
  },
  { name: 'an unknown legacy client secret', headers: () => ({ 'x-client-id': 'x', 'x-client-secret': 'nope' }) },
];

/**
 * Health is public: load balancers and the SDKs call it without credentials (the orchestrator's pool health too), and
 * so are the kubelet's probes.
 */
const PUBLIC = new Set([
  'GET /health',
  'HEAD /health',
  'GET /orchestrator/health',
  'HEAD /orchestrator/health',
  ...['/healthz', '/readyz'].flatMap((p) => [`GET ${p}`, `HEAD ${p}`]),
  // A2A discovery: an agent's card and the keys that sign the cards, read before a client has credentials
  ...[
    '/a2a/agents/:name/.well-known/agent-card.json',
    '/.well-known/agent-card.json',
    '/.well-known/a2a-card-keys.json',
  ].flatMap((p) => [`GET ${p}`, `HEAD ${p}`]),
  // RFC 9728 metadata of the MCP server: how an MCP client finds the authorization server, before it has a token
  ...['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/*'].flatMap((p) => [
    `GET ${p}`,
    `HEAD ${p}`,
  ]),
]);
/**
 * A URL the route answers: its parameters as they are spelled, except one with a pattern (A2A's
 * `tasks/:taskId(^[^:/]+)::cancel`), which gets a value of it; `::` is a literal colon.
 */
const probeUrl = (url: string) => url.replace(/:\w+\([^)]*\)/g, 'probe').replace(/::/g, ':');
/**
 * The API reference (`/openapi.json`, `/docs` and the page's assets) and the console's page and assets (which hold no
 * data: docs/console.md) are public too.
 */
const isApiReference = (url: string) =>
  url === '/openapi.json' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url === '/console' ||
  url.startsWith('/console/');

describe.each(surfaces)('$name route table', ({ prepare, shape, surface }) => {
  it('states a credential rule on every route, and only health is public', async () => {
    const { app, routes } = await routesOf(await prepare(gw));
    try {
      expect(routes.length).toBeGreaterThan(1);
      for (const r of routes) {
        expect({ route: `${r.method} ${r.url}`, rule: r.rule }).toEqual({
          route: `${r.method} ${r.url}`,
          rule: expect.stringMatching(/^(none|any|license-key|operator)$/),
        });
        if (r.rule === 'none')
          expect(PUBLIC.has(`${r.method} ${r.url}`) || r.url === '/health' || isApiReference(r.url)).toBe(true);
      }
    } finally {
      await app.close();
    }
  });

  it('refuses missing and bad credentials on every non-public route in licensed mode', async () => {
    const { app, routes } = await routesOf(await prepare(gw));
    try {
      const guarded = routes.filter((r) => r.rule !== 'none' && r.method !== 'HEAD');
      expect(guarded.length).toBeGreaterThan(0);
      for (const r of guarded) {
        for (const cred of BAD_CREDENTIALS) {
          const res = await app.inject({
            method: r.method as 'GET',
            url: probeUrl(r.url),
            headers: { ...cred.headers(gw), 'content-type': 'application/json' },
            payload: r.method === 'GET' ? undefined : '{}',
          });
          const body = res.json();
          // NB: the provider-compatible routes answer in their provider's shape, the code inside `error` (OpenAI's in lower case).
          const code =
            shape === 'agent' && typeof body.code === 'string' ? body.code : String(body.error.code).toUpperCase();
          expect({ route: `${r.method} ${r.url}`, cred: cred.name, status: res.statusCode }).toEqual({
            route: `${r.method} ${r.url}`,
            cred: cred.name,
            status: 401,
          });
          expect((ERROR_CATALOGUES[surface] as Record<string, { status: number }>)[code]?.status).toBe(401);
        }
      }
    } finally {
      await app.close();
    }
  });

  it('answers health without credentials', async () => {
    const app = (await prepare(gw))();
    try {
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBeLessThan(500);
    } finally {
      await app.close();
    }
  });
});

describe('orchestrator credentials', () => {
  const validate = (app: FastifyInstance, headers: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/agents/validate',
      headers: { 'content-type': 'application/json', ...headers },
      payload: { kind: 'AgentConfig' },
    });
  const orchestrator = async (t: TestGateway) => (await orchestratorBuilder(t))().app;

  it('refuses validate without credentials in licensed mode, in the envelope shape', async () => {
    const app = await orchestrator(gw);
    try {
      const res = await validate(app, {});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: 'UNAUTHORIZED', request_id: expect.any(String), timestamp: expect.any(String) },
      });
      const bad = await validate(app, { 'x-license-key': gw.keys.unregistered });
      expect(bad.json().error).toMatchObject({
        code: 'UNAUTHORIZED',
        details: { reason_code: 'LICENSE_VALIDATION_FAILED' },
      });
      expect((await validate(app, { 'x-license-key': gw.keys.acme })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('needs no credentials in community mode', async () => {
    const app = await orchestrator(community);
    try {
      expect((await validate(app, {})).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('a route without a rule', () => {
  it('cannot be registered', async () => {
    const app = createHttpApp({
      log: createLogger({ level: 'silent' }),
      bodyLimitBytes: 1024,
      surface: 'gateway',
      errorStyle: 'agent',
    });
    registerAuth(app, 'gateway', gw.parts.deps.auth);
    void app.register(async (a) => {
      a.get('/forgotten', async () => ({ ok: true }));
    });
    await expect(app.ready()).rejects.toThrow(/GET \/forgotten declares no credential rule/);
  });
});
