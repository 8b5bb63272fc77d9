import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../../testing/gateway.js';

/** AgentConfig manifests of the registry tests: three travel agents, one finance, a coordinator. */
const agent = (name: string, domain: string, type: 'specialist' | 'coordinator', capabilities: string[]) =>
  `apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: ${name}}\nspec:\n  type: ${type}\n  domain: ${domain}\n  description: ${name} agent\n  capabilities: [${capabilities.join(', ')}]\n` +
  (type === 'specialist' ? '  llm: {provider: openai, model: gpt-4o-mini}\n' : '') +
  '  replicas: 0\n---\n';

const MANIFESTS =
  agent('flights', 'travel', 'specialist', ['flight-search']) +
  agent('hotels', 'travel', 'specialist', ['hotel-search']) +
  agent('trip-planner', 'travel', 'coordinator', ['planning', 'flight-search']) +
  agent('fx', 'finance', 'specialist', ['currency-conversion']) +
  agent('weather', 'generic', 'specialist', ['forecast']);

let gw: TestGateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway({ manifests: MANIFESTS, policyPack: false });
  app = (await startTestOrchestrator(gw)).app;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const get = (url: string, key = gw.keys.acme) => app.inject({ method: 'GET', url, headers: { 'x-license-key': key } });
const names = (body: { agents: { name: string }[] }) => body.agents.map((a) => a.name);

describe('GET /api/v1/agents', () => {
  it.each([
    { name: 'lists every agent by name', query: '', expected: ['flights', 'fx', 'hotels', 'trip-planner', 'weather'] },
    { name: 'filters by domain', query: '?domain=travel', expected: ['flights', 'hotels', 'trip-planner'] },
    { name: 'filters by capability', query: '?capability=flight-search', expected: ['flights', 'trip-planner'] },
    { name: 'filters by type', query: '?type=coordinator', expected: ['trip-planner'] },
    {
      name: 'combines the filters',
      query: '?domain=travel&type=specialist&capability=hotel-search',
      expected: ['hotels'],
    },
    { name: 'answers an empty list when nothing matches', query: '?domain=healthcare', expected: [] },
  ])('$name', async ({ query, expected }) => {
    const res = await get(`/api/v1/agents${query}`);
    expect(res.statusCode).toBe(200);
    expect(names(res.json())).toEqual(expected);
    expect(res.json().total).toBe(expected.length);
  });

  it('pages through the list with page and page_size, total counting every match', async () => {
    const first = (await get('/api/v1/agents?page_size=2')).json();
    const third = (await get('/api/v1/agents?page_size=2&page=3')).json();
    expect(first).toMatchObject({ total: 5, page: 1, page_size: 2 });
    expect(names(first)).toEqual(['flights', 'fx']);
    expect(names(third)).toEqual(['weather']);
  });

  it('shows the reference list fields, without the detail-only llm and metadata', async () => {
    const [flights] = (await get('/api/v1/agents?capability=flight-search&type=specialist')).json().agents;
    expect(flights).toEqual({
      name: 'flights',
      domain: 'travel',
      type: 'specialist',
      description: 'flights agent',
      capabilities: ['flight-search'],
      source: 'file',
    });
  });

  it.each(['?type=robot', '?page=0', '?page_size=1000', '?page=x'])(
    'refuses %s with 400 INVALID_REQUEST',
    async (query) => {
      const res = await get(`/api/v1/agents${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
    },
  );

  it('needs a credential', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/agents' });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/v1/agents/{name}', () => {
  it('answers the detail with llm, source and metadata timestamps', async () => {
    const res = await get('/api/v1/agents/fx');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      name: 'fx',
      domain: 'finance',
      type: 'specialist',
      llm: { provider: 'openai', model: 'gpt-4o-mini' },
      source: 'file',
      timeout: '60s',
    });
    expect(Date.parse(body.metadata.createdAt)).not.toBeNaN();
    expect(Date.parse(body.metadata.updatedAt)).toBeGreaterThanOrEqual(Date.parse(body.metadata.createdAt));
  });

  it('answers 404 AGENT_NOT_FOUND for an unknown agent', async () => {
    const res = await get('/api/v1/agents/nobody');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'AGENT_NOT_FOUND' } });
  });
});
