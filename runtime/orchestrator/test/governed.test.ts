/**
 * The orchestrator's model calls on the governed pipeline (issue 31): parallel queries, the LLM planner's calls and
 * plan steps meet the organization's policies (the built-in pack) before anything reaches a provider, their
 * answers pass the output policies, and each call writes its audit row. Real gateway, orchestrator, store and
 * in-process agents; the provider is an OpenAI stand-in (the real SDK).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentConfigYaml,
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../testing/llm/index.js';
import { OUTPUT_BLOCK } from '../../gateway/test/output-policies.js';
import { postPlan } from '../plan/test/fixtures.js';

const SSN = '123-45-6789';
const CARD = '4111 1111 1111 1111';
const CARD_ANSWER = `Card number: ${CARD} ok`;
const MASKED = '[REDACTED:payment_card]';
const ALLOW = 'package parallel.t\n\nallow := true\n';
let openai: FakeOpenAiServer;
let gw: TestGateway;
let orch: TestOrchestrator;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gw = await startTestGateway({
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.baseURL, STEWARD_RATE_LIMIT_PER_MINUTE: '1000' },
    manifests: agentConfigYaml('writer', 2, { provider: 'openai', model: 'gpt-4o-mini' }) + OUTPUT_BLOCK,
  });
  orch = await startTestOrchestrator(gw);
});
afterAll(async () => {
  await orch?.close();
  await gw?.close();
  await openai?.close();
});

const acme = () => ({ 'x-license-key': gw.keys.acme });

/** Every request body the stand-in received since `from`, as text. */
const sentSince = (from: number) => openai.requests.slice(from).map((r) => r.rawBody);

interface AuditRow {
  provider: string | null;
  prompt: string | null;
  response: string | null;
  metadata: Record<string, unknown>;
}

async function auditRows(key: 'request_id' | 'plan_id', value: string): Promise<AuditRow[]> {
  const { rows } = await gw.store.db.query<AuditRow>(
    `SELECT provider, prompt, response, metadata FROM audit_entries WHERE organization_id = 'acme' AND metadata->>'${key}' = $1 ORDER BY created_at, id`,
    [value],
  );
  return rows;
}

interface ParallelAnswer {
  request_id: string;
  results: {
    query_index: number;
    status: string;
    result?: unknown;
    error?: { code: string; message: string };
    metadata: { policy_decision: string; agent_id: string };
  }[];
}

async function parallel(queries: Record<string, unknown>[]): Promise<ParallelAnswer> {
  const res = await orch.app.inject({
    method: 'POST',
    url: '/orchestrator/parallel',
    headers: acme(),
    payload: { queries },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ParallelAnswer>();
}

const query = (text: string) => ({ query: text, policy: ALLOW, llm: { provider: 'openai', model: 'gpt-4o-mini' } });

describe('POST /orchestrator/parallel, governed', () => {
  it('answers a query with an SSN POLICY_VIOLATION naming builtin-pii; no agent and no provider sees it', async () => {
    const from = openai.requests.length;
    const body = await parallel([
      query(`My SSN is ${SSN}, what is my credit score?`),
      query('What is a credit score?'),
    ]);
    const [blocked, fine] = body.results;
    expect(blocked).toMatchObject({
      status: 'error',
      error: { code: 'POLICY_VIOLATION' },
      metadata: { policy_decision: 'deny', agent_id: '' },
    });
    expect(blocked!.error!.message).toContain('builtin-pii');
    expect(fine).toMatchObject({ status: 'success', metadata: { policy_decision: 'allow' } });
    const sent = sentSince(from);
    expect(sent).toHaveLength(1);
    expect(sent.join('\n')).not.toContain(SSN);
    const rows = await auditRows('request_id', body.request_id);
    expect(rows.map((r) => [r.metadata.query_index, r.metadata.via, r.metadata.surface, r.metadata.decision])).toEqual(
      expect.arrayContaining([
        [0, 'parallel', 'parallel', 'blocked_input'],
        [1, 'parallel', 'parallel', 'allowed'],
      ]),
    );
    expect(rows).toHaveLength(2);
  });

  it("masks a card number in the model's answer", async () => {
    openai.enqueue({ kind: 'reply', text: CARD_ANSWER });
    const body = await parallel([query('Show me a test card number')]);
    expect(body.results[0]).toMatchObject({ status: 'success', result: `Card number: ${MASKED} ok` });
    const [row] = await auditRows('request_id', body.request_id);
    expect(row!.metadata).toMatchObject({ via: 'parallel', decision: 'redacted', redactions: { payment_card: 1 } });
    expect(row!.response).not.toContain(CARD);
  });

  it("keeps the query's own Rego: its deny is the agent's answer, scanned and parsed back", async () => {
    const from = openai.requests.length;
    const deny = 'package parallel.t\n\ndeny contains "no weather" if contains(input.query, "weather")\n';
    const body = await parallel([{ ...query('What is the weather?'), policy: deny }]);
    expect(body.results[0]).toMatchObject({
      status: 'success',
      result: { deny: ['no weather'] },
      metadata: { policy_decision: 'deny' },
    });
    expect(sentSince(from)).toHaveLength(0);
  });
});

describe('POST /api/v1/plan, governed', () => {
  const step = (id: string, dependsOn: string[] = []) => ({
    id,
    name: id,
    type: 'llm-call',
    description: `do ${id}`,
    depends_on: dependsOn,
    agent: 'writer',
  });

  it('refuses a query with an SSN with 403 POLICY_VIOLATION before the LLM planner asks the provider', async () => {
    const from = openai.requests.length;
    const { status, body } = await postPlan(orch.app, { query: `My SSN is ${SSN}; plan my tax return` }, acme());
    expect(status, JSON.stringify(body)).toBe(403);
    expect(body.error).toMatchObject({ code: 'POLICY_VIOLATION' });
    expect(body.error?.message).toContain('builtin-pii');
    expect(openai.requests.length).toBe(from);
    const contextId = String(body.error?.details?.context_id);
    const { rows } = await gw.store.db.query<AuditRow>(
      'SELECT provider, prompt, response, metadata FROM audit_entries WHERE context_id = $1',
      [contextId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.metadata).toMatchObject({ via: 'planner', surface: 'plan', decision: 'blocked_input' });
    expect(rows[0]!.prompt).not.toContain(SSN);
  });

  it('masks a card number in a step answer: the step that depends on it and the plan result read it masked', async () => {
    openai.enqueue(
      { kind: 'reply', text: JSON.stringify({ steps: [step('a'), step('b', ['a'])] }) },
      { kind: 'reply', text: CARD_ANSWER },
    );
    const from = openai.requests.length;
    const { status, body } = await postPlan(
      orch.app,
      { query: 'Find a test card number, then repeat it', domain: 'generic' },
      acme(),
    );
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.metadata.planner).toBe('llm');
    const sent = sentSince(from);
    expect(sent).toHaveLength(3);
    // The dependent step's prompt carries the first step's output as the policies left it.
    expect(sent[2]).toContain(MASKED);
    expect(sent[2]).not.toContain(CARD);
    expect(body.result).not.toContain(CARD);
    const rows = await auditRows('plan_id', body.plan_id);
    expect(rows.map((r) => [r.metadata.via, r.metadata.step ?? null, r.metadata.decision])).toEqual([
      ['planner', null, 'allowed'],
      ['plan_step', 'a', 'redacted'],
      ['plan_step', 'b', 'allowed'],
    ]);
    expect(rows[1]!.response).toBe(`Card number: ${MASKED} ok`);
  });

  it('fails a step whose answer an output policy blocks with POLICY_VIOLATION naming the policy', async () => {
    openai.enqueue(
      { kind: 'reply', text: JSON.stringify({ steps: [step('a')] }) },
      { kind: 'reply', text: 'the FORBIDDEN-WORD is 0000' },
    );
    const { status, body } = await postPlan(orch.app, { query: 'What are the codes?', domain: 'generic' }, acme());
    expect(status).toBe(403);
    expect(body.error?.code).toBe('POLICY_VIOLATION');
    expect(body.error?.details).toMatchObject({
      step: 'a',
      block_reason: expect.stringContaining('no-forbidden-word'),
    });
    const failed = body.error?.details?.steps?.[0];
    expect(failed).toMatchObject({ step: 'a', code: 'POLICY_VIOLATION' });
    expect(failed?.message).toContain('no-forbidden-word');
    const rows = await auditRows('plan_id', body.plan_id);
    expect(rows.at(-1)!.metadata).toMatchObject({ via: 'plan_step', step: 'a', decision: 'blocked_output' });
  });
});
