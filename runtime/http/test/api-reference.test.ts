import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_ROUTES, ORCHESTRATOR_ROUTES, type RouteDoc } from '../../../api/http/routes.js';
import { gatewayOpenApi, orchestratorOpenApi } from '../../../api/gen/openapi.js';
import { generatedFiles } from '../../../api/gen/index.js';
import { orchestratorBuilder, startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { buildGateway } from '../../gateway/app.js';

/**
 * The OpenAPI documents list exactly the routes each app serves (both ways), with the credential rule each route
 * states; the apps serve them at /openapi.json and an offline reference page at /docs.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const orchestratorOf = async (t: TestGateway, apiDocs?: boolean) => {
  const build = await orchestratorBuilder(t, { apiDocs });
  return () => build().app;
};

interface Route {
  method: string;
  url: string;
  rule: string | undefined;
}

/** The route table as fastify registers it (onRoute), without HEAD (fastify adds one per GET). */
async function routesOf(app: FastifyInstance): Promise<Route[]> {
  const seen: RouteOptions[] = [];
  app.addHook('onRoute', (r: RouteOptions) => void seen.push(r));
  await app.ready();
  // NB: read once every onRoute hook has run (route-auth fills in the rule of a public scope's routes).
  return seen.flatMap((r) =>
    [r.method]
      .flat()
      .filter((m) => m !== 'HEAD')
      .map((method) => ({ method, url: r.url, rule: r.config?.auth?.require })),
  );
}

/** The routes of the API reference itself and of the console's page, which the documents leave out. */
const isDocsRoute = (url: string) =>
  url === '/openapi.json' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url === '/console' ||
  url.startsWith('/console/');
/** `/a/:b` → `/a/{b}`, the OpenAPI spelling; `:b(^re)::verb` (a parameter, then a literal colon) → `{b}:verb`. */
const openApiPath = (url: string) =>
  url
    .replace(/::/g, '\0')
    .replace(/:(\w+)(\([^)]*\))?/g, '{$1}')
    .replace(/\0/g, ':');

const apps = [
  {
    name: 'gateway',
    prepare: async (t: TestGateway) => () => buildGateway(t.parts.deps),
    table: GATEWAY_ROUTES,
    doc: () => gatewayOpenApi('test'),
    file: 'docs/openapi/gateway.json',
  },
  {
    name: 'orchestrator',
    prepare: (t: TestGateway) => orchestratorOf(t),
    table: ORCHESTRATOR_ROUTES,
    doc: () => orchestratorOpenApi('test'),
    file: 'docs/openapi/orchestrator.json',
  },
];

describe.each(apps)('the $name', ({ prepare, table, doc, file }) => {
  let app: FastifyInstance;
  let routes: Route[];
  beforeAll(async () => {
    app = (await prepare(gw))();
    routes = await routesOf(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('documents every route it serves, and serves every route it documents', () => {
    const served = routes.filter((r) => !isDocsRoute(r.url)).map((r) => `${r.method} ${openApiPath(r.url)}`);
    // The reference's own routes are public, like /health.
    for (const r of routes.filter((x) => isDocsRoute(x.url))) expect(r.rule, r.url).toBe('none');
    const paths = doc().paths as Record<string, Record<string, unknown>>;
    const documented = Object.entries(paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(served)).toEqual(new Set(documented));
    expect(served.length).toBe(documented.length);
  });

  it('states in each operation the credential rule its route declares', () => {
    const byKey = new Map<string, RouteDoc>(table.map((r) => [`${r.method} ${r.path}`, r]));
    const paths = doc().paths as Record<string, Record<string, { security: unknown[] }>>;
    for (const r of routes.filter((x) => !isDocsRoute(x.url))) {
      const key = `${r.method} ${openApiPath(r.url)}`;
      expect(byKey.get(key)?.auth, key).toBe(r.rule);
      const op = paths[openApiPath(r.url)]![r.method.toLowerCase()]!;
      if (r.rule === 'none') expect(op.security, key).toEqual([]);
      else expect(op.security.length, key).toBeGreaterThan(0);
    }
  });

  it('serves the document of docs/openapi at /openapi.json, without credentials', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const onDisk = JSON.parse(generatedFiles('test').get(file)!) as Record<string, unknown>;
    expect(res.json()).toEqual(onDisk);
  });

  it('serves the reference page and its assets from the package at /docs, without credentials', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    // Offline: every script and stylesheet is relative, served by the app itself.
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    const scripts = [...page.body.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const asset = await app.inject({ method: 'GET', url: new URL(src, 'http://x/docs/').pathname });
      expect(asset.statusCode, src).toBe(200);
    }
    const json = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.json()).toEqual(doc());
  });

  it('describes the credentials the runtimes accept', () => {
    const schemes = (
      doc().components as { securitySchemes: Record<string, { type: string; name?: string; scheme?: string }> }
    ).securitySchemes;
    expect(schemes.LicenseKey).toMatchObject({ type: 'apiKey', name: 'X-License-Key' });
    expect(schemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.ClientCredentials).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(schemes.LegacyClientSecret).toMatchObject({ type: 'apiKey', name: 'X-Client-Secret' });
    expect(schemes.OperatorToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('STEWARD_API_DOCS=false', () => {
  it('leaves /openapi.json and /docs out of the gateway', async () => {
    const off = await startTestGateway({ env: { STEWARD_API_DOCS: 'false' } });
    try {
      for (const url of ['/openapi.json', '/docs', '/docs/json'])
        expect((await off.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('leaves them out of the orchestrator', async () => {
    const app = (await orchestratorOf(gw, false))();
    try {
      await app.ready();
      for (const url of ['/openapi.json', '/docs', '/docs/json'])
        expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    } finally {
      await app.close();
    }
  });
});
