/**
 * Plan steps are what they say (issue 31, item 5): a connector-call step runs through the gateway's governed
 * connector path (SQL guard, policies, audit) with the caller's identity, a policy-check step is one policy's
 * decision, and a step of either type without its fields is refused and never reaches a model. The plans come from
 * the LLM planner (an OpenAI stand-in answering queued plans) over a real PostgreSQL connector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIdentity } from '../../../auth/internal-identity.js';
import { startTestOrchestrator, TEST_INTERNAL_SECRET, type TestOrchestrator } from '../../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../../testing/llm/index.js';
import { connectorYaml, startConnectorWorld, type ConnectorWorld } from '../../../gateway/test/mcp-fixtures.js';
import { getPlan, postPlan, SAMPLES } from './fixtures.js';

let openai: FakeOpenAiServer;
let w: ConnectorWorld;
let orch: TestOrchestrator;

const refundLimit = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: refund-limit}
spec:
  type: custom
  priority: 100
  scope: {surfaces: [plan]}
  rego: |
    package custom.refund_limit
    deny contains "refunds over 100 need approval" if { input.context.amount > 100 }
---
`;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  w = await startConnectorWorld({
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.baseURL },
    extraManifests: (id) =>
      connectorYaml('pg-orders', {
        type: 'postgres',
        connection: { fromEnv: 'PG_URL' },
        allowedOperations: ['query'],
        options: { defaultSchema: id, allowedTables: ['orders'] },
      }) +
      refundLimit +
      SAMPLES,
  });
  orch = await startTestOrchestrator(w.gw);
}, 60_000);
afterAll(async () => {
  await orch?.close();
  await w?.close();
  await openai?.close();
});

const acme = () => ({ 'x-license-key': w.gw.keys.acme });
const QUERY = 'Summarise our orders';
const step = (fields: Record<string, unknown>) => ({
  id: 'only',
  name: 'only',
  description: 'the step',
  agent: 'general-assistant',
  ...fields,
});
/** Queues a one-step plan (its own synthesis) as the planner's answer, `times` times. */
const planned = (s: Record<string, unknown>, times = 1) => {
  for (let i = 0; i < times; i++) openai.enqueue({ kind: 'reply', text: JSON.stringify({ steps: [s] }) });
};
const run = () => postPlan(orch.app, { query: QUERY, domain: 'generic' }, acme());

describe('connector-call steps', () => {
  it('refuses a statement reading a table outside the allowlist by the SQL guard; no model is called for it', async () => {
    planned(
      step({ type: 'connector-call', connector: 'pg-orders', query: { statement: 'SELECT email FROM customers' } }),
    );
    const before = openai.requests.length;
    const { status, body } = await run();
    expect(openai.requests.length).toBe(before + 1); // the planner's call only
    expect(status).toBe(500);
    expect(body.metadata.planner).toBe('llm');
    expect(body.steps[0]).toMatchObject({ type: 'connector-call', connector: 'pg-orders' });
    const task = body.metadata.tasks[0]!;
    expect(task).toMatchObject({ id: 'only', status: 'failed', error: { code: 'SQL_REFUSED' } });
    expect(body.error).toMatchObject({
      code: 'EXECUTION_ERROR',
      details: { steps: [{ step: 'only', code: 'SQL_REFUSED' }] },
    });
    const stored = await getPlan(orch.app, body.plan_id, acme());
    expect(stored.body).toMatchObject({
      status: 'failed',
      metadata: { tasks: [{ id: 'only', status: 'failed', error: { code: 'SQL_REFUSED' } }] },
    });
  });

  it("returns the rows of an allowed table and writes the connector audit row with the caller's organization", async () => {
    planned(
      step({
        type: 'connector-call',
        connector: 'pg-orders',
        query: { statement: `SELECT id, customer FROM ${w.id}.orders WHERE id <= $1 ORDER BY id` },
        arguments: [2],
      }),
    );
    const before = openai.requests.length;
    const { status, body } = await run();
    expect(body.metadata.tasks[0]?.error).toBeUndefined();
    expect(status).toBe(200);
    expect(openai.requests.length).toBe(before + 1);
    const result = JSON.parse(body.result) as { rows: unknown[]; row_count: number; audit_id: string };
    expect(result).toMatchObject({
      row_count: 2,
      rows: [
        { id: 1, customer: 'ada' },
        { id: 2, customer: 'alan' },
      ],
    });
    const entry = await w.gw.store.audit.get('acme', result.audit_id);
    expect(entry?.metadata?.connector_call).toMatchObject({ connector: 'pg-orders', decision: 'allowed', rows: 2 });
    expect(await w.gw.store.audit.get('globex', result.audit_id)).toBeUndefined();
  });
});

describe('connector-call steps without a gateway', () => {
  it('fail with SERVICE_UNAVAILABLE naming the setting, never silently', async () => {
    const alone = await startTestOrchestrator(w.gw, { connectorGateway: undefined });
    try {
      planned(step({ type: 'connector-call', connector: 'pg-orders', tool: 'query', arguments: {} }));
      const { status, body } = await postPlan(alone.app, { query: QUERY, domain: 'generic' }, acme());
      expect(status).toBe(500);
      expect(body.metadata.tasks[0]).toMatchObject({
        status: 'failed',
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('STEWARD_GATEWAY_URL') },
      });
    } finally {
      await alone.close();
    }
  });

  it('the gateway takes a forwarded identity on the connector call routes only', async () => {
    const identity = { credential: 'license-key' as const, organizationId: 'acme', tier: 'ENT' as const };
    const headers = {
      'x-request-id': 'r-1',
      'x-steward-identity': signIdentity(identity, 'r-1', TEST_INTERNAL_SECRET),
      'content-type': 'application/json',
    };
    const res = await w.gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers,
      payload: JSON.stringify({ client_id: 'c', user_token: 'u', query: 'hi' }),
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('policy-check steps', () => {
  it.each([
    {
      name: 'a denied input',
      amount: 500,
      decision: { policy: 'refund-limit', decision: 'deny', reason: 'refunds over 100 need approval' },
    },
    { name: 'an allowed input', amount: 5, decision: { policy: 'refund-limit', decision: 'allow' } },
  ])("answers the named policy's decision on $name, without a model", async ({ amount, decision }) => {
    planned(step({ type: 'policy-check', policy: 'refund-limit', input: { context: { amount } } }));
    const before = openai.requests.length;
    const { status, body } = await run();
    expect(status).toBe(200);
    expect(openai.requests.length).toBe(before + 1);
    expect(JSON.parse(body.result)).toEqual(decision);
  });

  it('fails a step naming a policy that is not in force, with POLICY_NOT_FOUND', async () => {
    planned(step({ type: 'policy-check', policy: 'no-such-policy', input: {} }));
    const { status, body } = await run();
    expect(status).toBe(500);
    expect(body.metadata.tasks[0]).toMatchObject({ status: 'failed', error: { code: 'POLICY_NOT_FOUND' } });
  });
});

describe("the LLM planner's field-less steps", () => {
  it.each([
    {
      name: 'a connector-call step without connector or tool',
      s: { type: 'connector-call' },
      fields: ['connector', 'tool|query.statement'],
    },
    { name: 'a policy-check step without policy or input', s: { type: 'policy-check' }, fields: ['policy', 'input'] },
  ])('refuses $name with INVALID_REQUEST; it never runs as an LLM call', async ({ s, fields }) => {
    planned(step(s), 2);
    const before = openai.requests.length;
    const { status, body } = await run();
    expect(status).toBe(200);
    expect(body.metadata.planner).toBe('deterministic');
    expect((body.metadata as { planner_refusals?: unknown }).planner_refusals).toEqual([
      expect.objectContaining({ code: 'INVALID_REQUEST', details: { step: 'only', type: s.type, fields } }),
      expect.objectContaining({ code: 'INVALID_REQUEST', details: { step: 'only', type: s.type, fields } }),
    ]);
    expect(body.steps.every((x) => x.type === 'llm-call' && x.id !== 'only')).toBe(true);
    const prompts = openai.requests.slice(before).map((r) => JSON.stringify(r.body));
    expect(prompts.some((p) => p.includes('Your step (only)'))).toBe(false);
  });
});
