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
import { waitUntil } from '../../../../testing/eventually.js';
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

/** A connector call reading order totals waits for a person (issue 37: approvals of plan steps). */
const totalsNeedApproval = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: totals-need-a-person}
spec:
  type: custom
  scope: {surfaces: [mcp]}
  rego: |
    package custom.totals_need_a_person
    require_approval contains "order totals are read with a person's approval" if {
      input.mcp.phase == "call"
      contains(input.mcp.statement, "total")
    }
---
`;
let approverKey: string;

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
      totalsNeedApproval +
      SAMPLES,
  });
  orch = await startTestOrchestrator(w.gw);
  const created = await w.gw.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: { 'x-license-key': w.gw.keys.acme },
    payload: { name: 'plan-approver', roles: ['approver'] },
  });
  approverKey = String(created.json().api_key);
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

describe('connector-call steps that need approval', () => {
  const totals = () =>
    planned(
      step({
        type: 'connector-call',
        connector: 'pg-orders',
        query: { statement: `SELECT id, total FROM ${w.id}.orders WHERE id = $1` },
        arguments: [3],
      }),
    );
  /** The pending approval of the plan's step, once the step parked its call; the running plan shows it. */
  const parked = async () => {
    let id = '';
    await waitUntil('the step parks its call', async () => {
      const res = await w.gw.app.inject({
        method: 'GET',
        url: '/api/approvals?state=pending',
        headers: { authorization: `Bearer ${approverKey}` },
      });
      id = (res.json() as { approvals: { id: string }[] }).approvals[0]?.id ?? '';
      return id !== '';
    });
    // NB: the gateway stores the approval before the step hears of it and records the wait on its plan.
    const planId = await waitUntil('the plan records the wait', async () => {
      const { rows } = await w.gw.store.db.query<{ id: string }>(`SELECT id FROM plans WHERE waiting IS NOT NULL`);
      return rows[0]?.id;
    });
    const plan = await getPlan(orch.app, planId, acme());
    expect(plan.body).toMatchObject({
      status: 'awaiting_approval',
      awaiting_approval: [{ step: 'only', approval_id: id }],
    });
    return id;
  };
  const answer = (id: string, decision: 'approve' | 'deny') =>
    w.gw.app.inject({
      method: 'POST',
      url: `/api/approvals/${id}`,
      headers: { authorization: `Bearer ${approverKey}` },
      payload: { decision },
    });

  it('wait in the plan until approved, then run the call once', async () => {
    totals();
    const running = run();
    const id = await parked();
    expect((await answer(id, 'approve')).statusCode).toBe(200);
    const { status, body } = await running;
    expect(status, JSON.stringify(body.metadata?.tasks)).toBe(200);
    expect(JSON.parse(body.result)).toMatchObject({ row_count: 1, rows: [{ id: 3 }] });
    const { rows } = await w.gw.store.db.query<{ decision: string }>(
      `SELECT metadata->>'decision' AS decision FROM audit_entries WHERE metadata->'approval'->>'id' = $1
       ORDER BY created_at, id`,
      [id],
    );
    expect(rows.map((r) => r.decision)).toEqual(['approval_required', 'approved', 'allowed']);
    const stored = await getPlan(orch.app, body.plan_id, acme());
    expect(stored.body.status).toBe('completed');
    expect((stored.body as { awaiting_approval?: unknown }).awaiting_approval).toBeUndefined();
  });

  it('fail when the approval is denied, and never run the call', async () => {
    totals();
    const running = run();
    const id = await parked();
    expect((await answer(id, 'deny')).statusCode).toBe(200);
    const { status, body } = await running;
    expect(status).toBe(500);
    expect(body.metadata.tasks[0]).toMatchObject({
      status: 'failed',
      error: { code: 'APPROVAL_NOT_USABLE', message: expect.stringContaining('denied') },
    });
  });
});

describe('a step still waiting for approval when the plan ends', () => {
  it('ends as awaiting_approval, cancels what depends on it, and the plan answers PLANNING_TIMEOUT', async () => {
    const short = await startTestOrchestrator(w.gw, { planTimeoutMs: 2500 });
    try {
      openai.enqueue({
        kind: 'reply',
        text: JSON.stringify({
          steps: [
            step({
              type: 'connector-call',
              connector: 'pg-orders',
              query: { statement: `SELECT total FROM ${w.id}.orders WHERE id = $1` },
              arguments: [1],
            }),
            {
              ...step({ type: 'policy-check', policy: 'refund-limit', input: {} }),
              id: 'after',
              name: 'after',
              depends_on: ['only'],
            },
          ],
        }),
      });
      const { status, body } = await postPlan(short.app, { query: QUERY, domain: 'generic' }, acme());
      expect(status).toBe(408);
      expect(body.metadata.tasks).toEqual([
        expect.objectContaining({
          id: 'only',
          status: 'awaiting_approval',
          error: expect.objectContaining({ code: 'APPROVAL_REQUIRED' }),
        }),
        expect.objectContaining({ id: 'after', status: 'cancelled' }),
      ]);
      // the approval stays pending for a later run, and nothing ran
      const id = /approval (apr_\S+)/.exec(String(body.metadata.tasks[0]!.error?.message))![1]!;
      const pending = await w.gw.app.inject({
        method: 'GET',
        url: `/api/approvals/${id}`,
        headers: { authorization: `Bearer ${approverKey}` },
      });
      expect(pending.json()).toMatchObject({ id, state: 'pending' });
      const { rows } = await w.gw.store.db.query<{ decision: string }>(
        `SELECT metadata->>'decision' AS decision FROM audit_entries WHERE metadata->'approval'->>'id' = $1`,
        [id],
      );
      expect(rows.map((r) => r.decision)).toEqual(['approval_required']);
    } finally {
      await short.close();
    }
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
