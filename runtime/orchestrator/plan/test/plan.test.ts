/**
 * `POST /api/v1/plan` on the shipped sample AgentConfigs, their steps run by in-process pool agents whose LLM calls
 * reach OpenAI and Anthropic stand-ins (the real SDKs) that answer after a fixed delay, so that step times show
 * what ran at once. The deterministic planner here; the LLM planner in llm-planner.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIdentity } from '../../../auth/internal-identity.js';
import { httpPlanForwarder } from '../../../gateway/plan-forward.js';
import { listenUrl } from '../../../http/app.js';
import {
  startTestGateway,
  startTestOrchestrator,
  TEST_INTERNAL_SECRET,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';
import {
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeAnthropicServer,
  type FakeOpenAiServer,
  type RecordedRequest,
} from '../../../../testing/llm/index.js';
import { lastUserText } from '../../../../testing/llm/server.js';
import { deferred, getPlan, postPlan, SAMPLES, specialistYaml, type Task } from './fixtures.js';

const DELAY_MS = 300;
/** An agent on a provider this test does not configure, that must not fall back to the default one. */
const STRICT_AGENT =
  '\n---\napiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: strict-reviewer}\nspec:\n  type: specialist\n  domain: audit\n' +
  '  description: strict-reviewer test agent\n  capabilities: [review]\n  llm: {provider: ollama, model: llama3.1, fallback: false}\n  replicas: 1\n';
const TRAVEL = 'Plan a trip to Rome: find flights and a hotel near the Colosseum';

let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
let gw: TestGateway;
let orch: TestOrchestrator;
let hung = deferred();

beforeAll(async () => {
  openai = await startFakeOpenAi({
    delayMs: DELAY_MS,
    hangWhen: (req: RecordedRequest) => {
      const hang = lastUserText((req.body as { messages?: unknown }).messages).includes('HANG');
      if (hang) hung.resolve();
      return hang;
    },
  });
  anthropic = await startFakeAnthropic({ delayMs: DELAY_MS });
  gw = await startTestGateway({
    env: {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: openai.baseURL,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: anthropic.baseURL,
    },
    manifests:
      SAMPLES +
      specialistYaml('slow-worker', 'ops', '1s') +
      specialistYaml('stuck-worker', 'stall', '60s') +
      STRICT_AGENT,
  });
  orch = await startTestOrchestrator(gw, { planner: 'deterministic' });
});
afterAll(async () => {
  await orch?.close();
  await gw?.close();
  await openai?.close();
  await anthropic?.close();
});

const acme = () => ({ 'x-license-key': gw.keys.acme });
const globex = () => ({ 'x-license-key': gw.keys.globex });
const task = (tasks: Task[], name: string) => tasks.find((t) => t.name === name)!;

describe('POST /api/v1/plan, travel', () => {
  it('plans parallel search steps and a synthesis that depends on them; their times overlap', async () => {
    const { status, body } = await postPlan(orch.app, { query: TRAVEL }, acme());
    expect(status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      metadata: { planner: 'deterministic', domain: 'travel', execution_mode: 'auto', tasks_executed: 3 },
    });
    expect(body.plan_id).toMatch(/^plan_/);
    expect(body.workflow_execution_id).toMatch(/^wfx_/);
    expect(body.steps.map((s) => [s.agent, s.type, s.depends_on])).toEqual([
      ['flight-search', 'llm-call', []],
      ['hotel-search', 'llm-call', []],
      ['travel-coordinator', 'llm-call', ['step-1', 'step-2']],
    ]);
    const [flight, hotel, synthesis] = [
      task(body.metadata.tasks, 'flight-search'),
      task(body.metadata.tasks, 'hotel-search'),
      task(body.metadata.tasks, 'synthesis'),
    ];
    expect(Math.max(flight.started_ms, hotel.started_ms)).toBeLessThan(Math.min(flight.ended_ms, hotel.ended_ms));
    expect(synthesis.started_ms).toBeGreaterThanOrEqual(Math.max(flight.ended_ms, hotel.ended_ms));
    for (const t of body.metadata.tasks) expect(t).toMatchObject({ status: 'completed' });
    // The synthesis saw the searches' answers, and the result is its answer.
    const synthesisPrompt = lastUserText((openai.requests.at(-1)!.body as { messages: unknown }).messages);
    expect(synthesisPrompt).toContain('Fake Anthropic');
    expect(synthesisPrompt).toContain('Fake OpenAI reply to: Your step (flight-search)');
    expect(body.result).toContain('Your step (synthesis)');
  });

  it('runs the same plan one step at a time in sequential mode', async () => {
    const { status, body } = await postPlan(orch.app, { query: TRAVEL, execution_mode: 'sequential' }, acme());
    expect(status).toBe(200);
    const tasks = body.metadata.tasks;
    expect(tasks.map((t) => t.name)).toEqual(['flight-search', 'hotel-search', 'synthesis']);
    for (let i = 1; i < tasks.length; i++) expect(tasks[i]!.started_ms).toBeGreaterThanOrEqual(tasks[i - 1]!.ended_ms);
    expect(body.metadata.execution_mode).toBe('sequential');
  });

  it('stores the plan; GET answers it to its organization and 404 to another', async () => {
    const { body } = await postPlan(orch.app, { query: TRAVEL, execution_mode: 'parallel' }, acme());
    const own = await getPlan(orch.app, body.plan_id, acme());
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ plan_id: body.plan_id, status: 'completed', success: true, steps: body.steps });
    const other = await getPlan(orch.app, body.plan_id, globex());
    expect(other.status).toBe(404);
    expect(other.body.error?.code).toBe('NOT_FOUND');
  });
});

describe('POST /api/v1/plan, failures', () => {
  it("fails a hung step at its AgentConfig's timeout, and its dependants with it: 504 PROVIDER_TIMEOUT", async () => {
    const { status, body } = await postPlan(orch.app, { query: 'HANG until the timeout', domain: 'ops' }, acme());
    expect(status).toBe(504);
    expect(body.error?.code).toBe('PROVIDER_TIMEOUT');
    expect(body.error?.details?.steps?.[0]).toMatchObject({ step: 'step-1', code: 'QUERY_TIMEOUT' });
    expect(body.error?.details?.steps?.[0]?.message).toContain('1000 ms');
    expect(task(body.metadata.tasks, 'synthesis')).toMatchObject({
      status: 'failed',
      error: { code: 'DEPENDENCY_FAILED' },
    });
    expect((await getPlan(orch.app, body.plan_id, acme())).body.status).toBe('failed');
  });

  it('cancels a running plan: its step is aborted and the plan is stored cancelled', async () => {
    hung = deferred();
    const running = postPlan(orch.app, { query: 'HANG until cancelled', domain: 'stall' }, acme());
    await hung.promise;
    const { rows } = await gw.store.db.query<{ id: string }>(
      "SELECT id FROM plans WHERE status = 'running' AND query = 'HANG until cancelled'",
    );
    const id = rows[0]!.id;
    expect((await getPlan(orch.app, id, globex())).status).toBe(404);
    const notMine = await orch.app.inject({ method: 'POST', url: `/api/v1/plan/${id}/cancel`, headers: globex() });
    expect(notMine.statusCode).toBe(404);
    const cancel = await orch.app.inject({ method: 'POST', url: `/api/v1/plan/${id}/cancel`, headers: acme() });
    expect(cancel.json()).toMatchObject({ plan_id: id, cancelled: true });
    const { status, body } = await running;
    expect(status).toBe(500);
    expect(body.error?.message).toContain('cancelled');
    expect(body.metadata.tasks[0]).toMatchObject({ status: 'cancelled' });
    expect((await getPlan(orch.app, id, acme())).body.status).toBe('cancelled');
  });

  it("runs a step whose agent's provider is not configured on the default provider, and says so in the task and the audit row", async () => {
    const { status, body } = await postPlan(
      orch.app,
      { query: 'Review the suspicious transactions of my portfolio', domain: 'finance' },
      acme(),
    );
    expect(status).toBe(200);
    const reviewer = body.metadata.tasks.find((t) => t.agent === 'transaction-reviewer');
    expect(reviewer).toMatchObject({
      status: 'completed',
      provider: 'openai',
      fallback: true,
      requested_provider: 'ollama',
    });
    const own = body.metadata.tasks.find((t) => t.agent !== 'transaction-reviewer' && t.provider !== undefined);
    expect(own).toMatchObject({ fallback: false });
    const { rows } = await gw.store.db.query<{ provider: string; metadata: Record<string, unknown> }>(
      "SELECT provider, metadata FROM audit_entries WHERE metadata->>'plan_id' = $1 AND metadata->>'agent' = 'transaction-reviewer'",
      [body.plan_id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      provider: 'openai',
      metadata: { via: 'plan_step', provider_fallback: true, requested_provider: 'ollama' },
    });
  });

  it('fails a plan whose agent must not fall back before any step runs: 503 PROVIDER_NOT_CONFIGURED naming the provider', async () => {
    const before = openai.requests.length + anthropic.requests.length;
    const { status, body } = await postPlan(orch.app, { query: 'Review this quarter', domain: 'audit' }, acme());
    expect(status).toBe(503);
    expect(body.error?.code).toBe('PROVIDER_NOT_CONFIGURED');
    expect(body.error?.message).toContain('ollama');
    expect(body.error?.message).toContain('OLLAMA_HOST');
    expect(body.error?.details?.steps?.[0]).toMatchObject({ code: 'PROVIDER_NOT_CONFIGURED' });
    expect(openai.requests.length + anthropic.requests.length).toBe(before);
  });

  it('blocks a plan in the policy pre-flight before any step runs: 403 POLICY_VIOLATION naming the policy and the step', async () => {
    const before = openai.requests.length + anthropic.requests.length;
    const { status, body } = await postPlan(
      orch.app,
      { query: 'Book flights for SSN 123-45-6789', domain: 'travel' },
      acme(),
    );
    expect(status).toBe(403);
    expect(body.error?.code).toBe('POLICY_VIOLATION');
    expect(body.error?.details).toMatchObject({ step: 'step-1', agent: 'flight-search' });
    expect(body.error?.message).toContain(String(body.error?.details?.policy));
    expect(openai.requests.length + anthropic.requests.length).toBe(before);
  });

  it.each([
    { name: 'a missing query', body: { domain: 'travel' }, field: 'query' },
    { name: 'an unknown execution mode', body: { query: 'x', execution_mode: 'fastest' }, field: 'execution_mode' },
  ])('refuses $name with 400 INVALID_REQUEST naming the field', async ({ body, field }) => {
    const res = await postPlan(orch.app, body, acme());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
  });

  it('answers 400 NO_AGENTS_AVAILABLE for a named domain without agents', async () => {
    const res = await postPlan(orch.app, { query: 'anything', domain: 'astronomy' }, acme());
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('NO_AGENTS_AVAILABLE');
  });
});

describe('identity', () => {
  it('never takes the organization from the body: org_id, client.tenant_id and user name another one in vain', async () => {
    const claims = {
      org_id: 'globex',
      client: { tenant_id: 'globex' },
      user: { id: 'mallory', org_id: 'globex', tenant_id: 'globex' },
    };
    const { status, body } = await postPlan(orch.app, { query: TRAVEL, ...claims }, acme());
    expect(status).toBe(200);
    expect((await getPlan(orch.app, body.plan_id, globex())).status).toBe(404);
    expect((await getPlan(orch.app, body.plan_id, acme())).status).toBe(200);
    const { rows } = await gw.store.db.query<{ organization_id: string }>(
      'SELECT organization_id FROM plans WHERE id = $1',
      [body.plan_id],
    );
    expect(rows[0]!.organization_id).toBe('acme');
  });

  it('accepts the gateway-signed identity only with the shared secret, fresh, and for its own request id', async () => {
    const identity = { credential: 'license-key' as const, organizationId: 'acme', tier: 'ENT' as const };
    const signed = (secret: string, rid: string, at = Date.now()) => ({
      'x-steward-identity': signIdentity(identity, rid, secret, at),
      'x-request-id': rid,
    });
    const ok = await getPlan(orch.app, 'plan_none', signed(TEST_INTERNAL_SECRET, 'r-1'));
    expect(ok.status).toBe(404); // authenticated: the plan does not exist
    for (const headers of [
      signed('another-secret-of-at-least-32-chars!!', 'r-2'),
      { ...signed(TEST_INTERNAL_SECRET, 'r-3'), 'x-request-id': 'r-4' },
      signed(TEST_INTERNAL_SECRET, 'r-5', Date.now() - 10 * 60_000),
    ]) {
      const res = await getPlan(orch.app, 'plan_none', headers);
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('POST /api/request, multi-agent-plan', () => {
  const request = (query: string, headers: Record<string, string>) =>
    gw.app.inject({
      method: 'POST',
      url: '/api/request',
      headers: { 'content-type': 'application/json', ...headers },
      payload: { query, request_type: 'multi-agent-plan', context: { domain: 'travel' } },
    });

  it('answers the plan at the top level and under data, with the caller identity forwarded', async () => {
    const res = await request(TRAVEL, acme());
    expect(res.statusCode).toBe(200);
    const body = res.json<{
      plan_id: string;
      blocked: boolean;
      success: boolean;
      data: { plan_id: string; steps: unknown[] };
      audit_id: string;
      context_id: string;
    }>();
    expect(body).toMatchObject({ success: true, blocked: false });
    expect(body.data.plan_id).toBe(body.plan_id);
    expect(body.data.steps).toHaveLength(3);
    expect(body.audit_id).toMatch(/^aud_/);
    expect((await getPlan(orch.app, body.plan_id, acme())).status).toBe(200);
    expect((await getPlan(orch.app, body.plan_id, globex())).status).toBe(404);
  });

  it('reaches a separate orchestrator over HTTP (STEWARD_ORCHESTRATOR_URL) with the signed identity', async () => {
    await orch.app.listen({ host: '127.0.0.1', port: 0 });
    const forwarder = httpPlanForwarder(listenUrl(orch.app), TEST_INTERNAL_SECRET);
    const identity = { credential: 'license-key' as const, organizationId: 'globex', tier: 'PRO' as const };
    const { status, body } = await forwarder.forward(
      { query: TRAVEL },
      identity,
      'req-http-1',
      new AbortController().signal,
    );
    expect(status).toBe(200);
    expect((await getPlan(orch.app, String(body.plan_id), globex())).status).toBe(200);
    expect((await getPlan(orch.app, String(body.plan_id), acme())).status).toBe(404);
    const forged = await httpPlanForwarder(listenUrl(orch.app), 'a-different-secret-of-32-characters!').forward(
      { query: TRAVEL },
      identity,
      'req-http-2',
      new AbortController().signal,
    );
    expect(forged.status).toBe(401);
  });

  it('blocks a query the policies block: blocked true and block_reason, no plan', async () => {
    const res = await request('Plan a trip for card 4111-1111-1111-1111', acme());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ blocked: true, success: false, block_reason: expect.any(String) });
  });
});

describe('the plan timeout', () => {
  let short: TestOrchestrator;
  beforeAll(async () => {
    short = await startTestOrchestrator(gw, { planner: 'deterministic', planTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await short?.close();
  });

  it('answers 408 PLANNING_TIMEOUT when the whole plan outlasts it, the running step aborted', async () => {
    const { status, body } = await postPlan(
      short.app,
      { query: 'HANG past the plan timeout', domain: 'stall' },
      acme(),
    );
    expect(status).toBe(408);
    expect(body.error).toMatchObject({ code: 'PLANNING_TIMEOUT', details: { timeout_ms: 1000 } });
    expect(body.metadata.tasks[0]).toMatchObject({ status: 'cancelled', error: { code: 'PLANNING_TIMEOUT' } });
    expect((await getPlan(short.app, body.plan_id, acme())).body.status).toBe('failed');
  });
});
