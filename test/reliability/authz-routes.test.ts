import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentConfigYaml, startTestGateway, type TestGateway } from '../../testing/gateway.js';
import { errorOf, routeStyle, routeTable, startOrchestrator, type Style } from './support.js';

/**
 * Issue 15, item 9c: an authorization matrix over the whole route table of both apps, in licensed mode. The
 * routes come from the apps, so a route added without an auth requirement fails here. Public routes are the
 * ones listed below, nothing else.
 */
const PUBLIC = [
  /^\/health$/,
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/orchestrator\/health$/,
  /^\/openapi\.json$/,
  /^\/docs(\/|$)/,
  /^\/documentation(\/|$)/,
  // The console's page and assets (docs/console.md): it signs in with the API's credentials, in the browser
  /^\/console(\/|$)/,
  // RFC 9728 metadata of the MCP server (docs/connectors.md, OAuth on /mcp): read before a client has a token
  /^\/\.well-known\/oauth-protected-resource/,
  // A2A discovery (docs/a2a.md): the agents' and the Orchestrator's cards, and the keys that sign them
  /^\/a2a\/agents\/[^/]+\/\.well-known\/agent-card\.json$/,
  /^\/\.well-known\/(agent-card|a2a-card-keys)\.json$/,
];
const isPublic = (url: string) => PUBLIC.some((re) => re.test(url));
/** Routes for the operator's token, not a tenant's credentials (docs/adr/0006): the Prometheus scrape. */
const OPERATOR = [/^\/metrics\/prometheus$/];
const METRICS_TOKEN = 'authz-operator-token-0001';

/** Bodies that get the allowed caller past validation, for the routes we know; others get `{}`. */
const BODIES: Record<string, unknown> = {
  '/api/policy/pre-check': { client_id: 'authz', user_token: 'u', query: 'hello' },
  '/api/policies/test': { query: 'hello' },
  '/api/audit/llm-call': { context_id: 'ctx_none', client_id: 'authz' },
  '/api/clients': { name: 'authz' },
  '/v1/execute': { prompt: 'hello', mode: 'chat' },
  '/api/request': { query: 'hello', request_type: 'chat' },
  '/v1/chat/completions': { model: 'echo', messages: [{ role: 'user', content: 'hello' }] },
  '/v1/messages': { model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] },
  '/api/v1/agents/validate': {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'AgentConfig',
    metadata: { name: 'a' },
    spec: { type: 'coordinator' },
  },
};

let gw: TestGateway;
let orchestrator: FastifyInstance;
let tenantKey: string;
let otherOrgKey: string;

beforeAll(async () => {
  gw = await startTestGateway({
    env: {
      STEWARD_RATE_LIMIT_PER_MINUTE: '1000000',
      STEWARD_RATE_LIMIT_PER_HOUR: '1000000',
      STEWARD_LLM_ECHO: 'true',
      STEWARD_METRICS_TOKEN: METRICS_TOKEN,
    },
    manifests: agentConfigYaml('fuzz-agent', 2),
  });
  orchestrator = await startOrchestrator(gw);
  const tenant = await gw.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: { 'x-license-key': gw.keys.acme, 'x-tenant-id': 'eu' },
    payload: { name: 'eu' },
  });
  tenantKey = tenant.json().api_key;
  // An API key of an organization whose only License has expired (initech): the organization is not ours to serve.
  otherOrgKey = (await gw.store.clients.create({ organizationId: 'initech', name: 'initech-app' })).apiKey;
});
afterAll(async () => {
  await orchestrator?.close();
  await gw?.close();
});

const DENIED: { name: string; headers: () => Record<string, string> }[] = [
  { name: 'no credentials', headers: () => ({}) },
  { name: 'a malformed license key', headers: () => ({ 'x-license-key': 'STW-ENT-xx' }) },
  { name: 'a license key of 10,000 characters', headers: () => ({ 'x-license-key': 'A'.repeat(10_000) }) },
  { name: 'an expired license key', headers: () => ({ 'x-license-key': gw.keys.expired }) },
  { name: 'a signed but unregistered license key', headers: () => ({ 'x-license-key': gw.keys.unregistered }) },
  { name: 'an invalid bearer key', headers: () => ({ authorization: 'Bearer client-x-prod-invalid' }) },
  { name: 'a malformed Authorization header', headers: () => ({ authorization: 'Basic %%%' }) },
  {
    name: 'an API key of an organization without a valid License',
    headers: () => ({ authorization: `Bearer ${otherOrgKey}` }),
  },
  {
    name: 'a tenant key asking for another tenant',
    headers: () => ({ authorization: `Bearer ${tenantKey}`, 'x-tenant-id': 'us' }),
  },
];

function surfaces(): { name: string; app: FastifyInstance; style: Style }[] {
  return [
    { name: 'gateway', app: gw.app, style: 'agent' },
    { name: 'orchestrator', app: orchestrator, style: 'envelope' },
  ];
}

function request(method: string, url: string, headers: Record<string, string>): InjectOptions {
  const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' && method !== 'OPTIONS';
  return { method: method as 'POST', url, headers, ...(hasBody ? { payload: (BODIES[url] ?? {}) as object } : {}) };
}

describe('authorization over the whole route table (item 9c)', () => {
  it(
    'refuses every non-public route of both apps, for every bad credential, with a coded 401/403',
    { timeout: 60_000 },
    async () => {
      const problems: string[] = [];
      let checked = 0;
      for (const s of surfaces()) {
        for (const route of routeTable(s.app)) {
          if (isPublic(route.url)) continue;
          for (const cred of DENIED) {
            checked++;
            const res = await s.app.inject(request(route.method, route.url, cred.headers()) as never);
            const label = `${s.name} ${route.method} ${route.url} with ${cred.name}`;
            if (res.statusCode !== 401 && res.statusCode !== 403) {
              problems.push(`${label}: ${res.statusCode} ${res.body.slice(0, 160)}`);
              continue;
            }
            // NB: HEAD answers carry no body.
            if (route.method === 'HEAD') continue;
            const e = errorOf(routeStyle(s.style, route.url), res);
            if (typeof e === 'string') problems.push(`${label}: ${e}`);
          }
        }
      }
      console.log(`authz: ${checked} refusals checked, ${problems.length} problems`);
      expect(checked).toBeGreaterThan(DENIED.length * 5);
      expect(problems).toEqual([]);
    },
  );

  it(
    'lets a valid license key (the operator token on operator routes) through every route of both apps without a 5xx (and past auth on the gateway)',
    { timeout: 60_000 },
    async () => {
      const problems: string[] = [];
      for (const s of surfaces()) {
        for (const route of routeTable(s.app)) {
          const operator = OPERATOR.some((re) => re.test(route.url));
          const headers: Record<string, string> = operator
            ? { authorization: `Bearer ${METRICS_TOKEN}` }
            : { 'x-license-key': gw.keys.acme, 'x-organization-id': 'acme' };
          const res = await s.app.inject(request(route.method, route.url, headers) as never);
          const label = `${s.name} ${route.method} ${route.url}`;
          if (res.statusCode >= 500) problems.push(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          else if (s.name === 'gateway' && (res.statusCode === 401 || res.statusCode === 403))
            problems.push(`${label}: refused ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it('keeps the declared public routes public', async () => {
    for (const s of surfaces()) {
      const res = await s.app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode, s.name).toBe(200);
    }
  });
});
