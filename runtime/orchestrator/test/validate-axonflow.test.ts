import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../testing/gateway.js';
import { parseManifestFile } from '../../source/index.js';

/** The reference product's AgentConfig files, in its two layouts. */
const SINGLE = `apiVersion: axonflow.io/v1
kind: AgentConfig
metadata:
  name: flight-search
  domain: travel
spec:
  type: specialist
  description: Searches flights
  capabilities: [flight-search]
  llm: {provider: openai, model: gpt-4o-mini, temperature: 0.2}
  timeout: 30
  prompt_template: "Find flights for {{query}}"
`;

const DOMAIN = `apiVersion: axonflow.io/v1
kind: AgentConfig
metadata:
  name: travel-domain
  domain: travel
spec:
  execution:
    default_mode: parallel
    max_parallel_tasks: 5
    timeout_seconds: 45
  agents:
    - name: flight_search
      type: llm-call
      description: Searches flights
      capabilities: [flight-search]
      llm: {provider: anthropic, model: claude-sonnet-4-5, max_tokens: 500}
    - name: hotel-search
      type: llm-call
      capabilities: [hotel-search]
      llm: {provider: openai, model: gpt-4o-mini}
    - name: bookings-db
      type: connector-call
      connector: postgres
  routing:
    strategy: capability
  synthesis:
    enabled: true
`;

let gw: TestGateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway({ licensed: false, policyPack: false });
  app = (await startTestOrchestrator(gw)).app;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const validate = (payload: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/agents/validate',
    headers: { 'content-type': 'application/yaml' },
    payload,
  });
const fields = (issues: { field: string }[]) => issues.map((i) => i.field);

describe('POST /api/v1/agents/validate with axonflow.io/v1 files', () => {
  it('validates a single agent, naming the Steward apiVersion and the fields it ignores', async () => {
    const body = (await validate(SINGLE)).json();
    expect(body.valid).toBe(true);
    expect(body.errors).toEqual([]);
    expect(body.warnings.find((w: { field: string }) => w.field === 'apiVersion').message).toContain(
      'steward.dev/v1alpha1',
    );
    expect(fields(body.warnings)).toEqual(
      expect.arrayContaining(['spec.llm.temperature', 'spec.prompt_template', 'metadata.domain']),
    );
  });

  it('validates a domain file as its llm-call agents, warning about execution, routing, synthesis and connector-call agents', async () => {
    const body = (await validate(DOMAIN)).json();
    expect(body).toMatchObject({ valid: true, errors: [] });
    expect(fields(body.warnings)).toEqual(
      expect.arrayContaining([
        'apiVersion',
        'spec.execution.default_mode',
        'spec.execution.max_parallel_tasks',
        'spec.routing',
        'spec.synthesis',
        'spec.agents[0].name',
        'spec.agents[0].llm.max_tokens',
        'spec.agents[2].type',
        'spec.agents',
      ]),
    );
    expect(body.warnings.find((w: { field: string }) => w.field === 'apiVersion').message).toContain(
      'steward.dev/v1alpha1',
    );
  });

  it("names a domain file's invalid agent field by its place in the file", async () => {
    const body = (await validate(DOMAIN.replace('provider: anthropic', 'provider: skynet'))).json();
    expect(body.valid).toBe(false);
    expect(fields(body.errors)).toEqual(['spec.agents[0].llm.provider']);
  });

  it.each([
    { name: 'a domain file without agents', yaml: DOMAIN.slice(0, DOMAIN.indexOf('  agents:')), field: 'spec.agents' },
    {
      name: 'a domain file without a domain',
      yaml: DOMAIN.replace('  domain: travel\n', ''),
      field: 'metadata.domain',
    },
    {
      name: 'an agent of an unknown type',
      yaml: DOMAIN.replace('type: llm-call', 'type: robot'),
      field: 'spec.agents[0].type',
    },
    { name: 'a specialist without llm', yaml: SINGLE.replace(/ {2}llm: .*\n/, ''), field: 'spec.llm' },
  ])('refuses $name', async ({ yaml, field }) => {
    const body = (await validate(yaml)).json();
    expect(body.valid).toBe(false);
    expect(fields(body.errors)).toContain(field);
  });
});

describe('the standalone loader (and steward validate) with axonflow.io/v1 files', () => {
  it('loads a domain file as one AgentConfig per llm-call agent, with the execution timeout', () => {
    const parsed = parseManifestFile('travel.yaml', DOMAIN);
    expect(parsed.issues).toEqual([]);
    expect(parsed.resources.map((r) => [r.resource.metadata.name, r.resource.spec])).toEqual([
      [
        'flight-search',
        expect.objectContaining({
          type: 'specialist',
          domain: 'travel',
          timeout: '45s',
          llm: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
        }),
      ],
      [
        'hotel-search',
        expect.objectContaining({
          type: 'specialist',
          domain: 'travel',
          timeout: '45s',
          llm: { provider: 'openai', model: 'gpt-4o-mini' },
        }),
      ],
    ]);
    expect(parsed.resources[0]!.warnings.map((w) => w.field)).toContain('spec.routing');
  });

  it('loads a single agent with its timeout in seconds read as a duration', () => {
    const parsed = parseManifestFile('flight.yaml', SINGLE);
    expect(parsed.resources.map((r) => r.resource.spec)).toEqual([
      expect.objectContaining({ domain: 'travel', timeout: '30s', capabilities: ['flight-search'] }),
    ]);
  });
});
