/**
 * The LLM planner against an OpenAI stand-in whose answers the tests queue: a valid plan is used, a broken one is
 * repaired once (the second call carries the problems), and one that stays broken is replaced by the
 * deterministic plan. Then the stand-in is killed: the plan's steps fail and the plan answers EXECUTION_ERROR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  startTestOrchestrator,
  type TestGateway,
  type TestOrchestrator,
} from '../../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../../testing/llm/index.js';
import { lastUserText } from '../../../../testing/llm/server.js';
import { postPlan, SAMPLES } from './fixtures.js';

let openai: FakeOpenAiServer;
let gw: TestGateway;
let orch: TestOrchestrator;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gw = await startTestGateway({
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.baseURL },
    manifests: SAMPLES,
  });
  orch = await startTestOrchestrator(gw);
});
afterAll(async () => {
  await orch?.close();
  await gw?.close();
  await openai?.close();
});

const QUERY = 'What are the main causes of inflation? Summarise the research.';
const plan = (steps: { id: string; agent: string; depends_on?: string[] }[]) =>
  JSON.stringify({ steps: steps.map((s) => ({ name: s.id, description: `do ${s.id}`, ...s })) });
const VALID = plan([
  { id: 'a', agent: 'general-assistant' },
  { id: 'b', agent: 'research-coordinator', depends_on: ['a'] },
]);
const reply = (text: string) => ({ kind: 'reply' as const, text });
const run = () => postPlan(orch.app, { query: QUERY, domain: 'generic' }, { 'x-license-key': gw.keys.acme });

describe('the LLM planner', () => {
  it('uses a valid plan as it came', async () => {
    openai.enqueue(reply(`Here is the plan:\n\`\`\`json\n${VALID}\n\`\`\``));
    const { status, body } = await run();
    expect(status).toBe(200);
    expect(body.metadata.planner).toBe('llm');
    expect(body.steps.map((s) => [s.id, s.agent])).toEqual([
      ['a', 'general-assistant'],
      ['b', 'research-coordinator'],
    ]);
  });

  it('repairs a plan that names an unknown agent: the second call carries the problem', async () => {
    openai.enqueue(
      reply(
        plan([
          { id: 'a', agent: 'ghost-agent' },
          { id: 'b', agent: 'research-coordinator', depends_on: ['a'] },
        ]),
      ),
      reply(VALID),
    );
    const from = openai.requests.length;
    const { status, body } = await run();
    expect(status).toBe(200);
    expect(body.metadata.planner).toBe('llm-repaired');
    expect(body.metadata.planner_note).toContain('ghost-agent');
    const repair = lastUserText((openai.requests[from + 1]!.body as { messages: unknown }).messages);
    expect(repair).toContain('unknown agent ghost-agent');
  });

  it('replaces a malformed answer, twice malformed, with the deterministic plan', async () => {
    openai.enqueue(reply('I would ask the assistant first.'), reply('{"steps": [ not json'));
    const { status, body } = await run();
    expect(status).toBe(200);
    expect(body.metadata.planner).toBe('deterministic');
    expect(body.metadata.planner_note).toMatch(/replaced/);
    expect(body.steps.at(-1)).toMatchObject({ name: 'synthesis', agent: 'research-coordinator' });
  });

  it('replaces a plan with a cycle, still cyclic after the repair, with the deterministic plan', async () => {
    const cyclic = plan([
      { id: 'a', agent: 'general-assistant', depends_on: ['b'] },
      { id: 'b', agent: 'general-assistant', depends_on: ['a'] },
      { id: 'c', agent: 'research-coordinator', depends_on: ['b'] },
    ]);
    openai.enqueue(reply(cyclic), reply(cyclic));
    const { status, body } = await run();
    expect(status).toBe(200);
    expect(body.metadata.planner).toBe('deterministic');
    expect(body.metadata.planner_note).toContain('cycle');
  });
});

describe('a killed LLM stand-in', () => {
  it('fails the plan with 502 PROVIDER_ERROR and the step errors, and records a plan.failed webhook delivery', async () => {
    const hook = await orch.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { 'x-license-key': gw.keys.acme },
      payload: {
        url: 'https://hooks.example.com/steward',
        events: ['plan.failed', 'step.completed'],
        secret: 'whsec-test',
        active: true,
      },
    });
    expect(hook.statusCode).toBe(201);
    await openai.close();
    const { status, body } = await postPlan(
      orch.app,
      { query: QUERY, domain: 'generic' },
      { 'x-license-key': gw.keys.acme },
    );
    expect(status).toBe(502);
    expect(body).toMatchObject({ success: false, metadata: { planner: 'deterministic' } });
    expect(body.error?.code).toBe('PROVIDER_ERROR');
    expect(body.error?.details?.steps?.[0]).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(body.metadata.tasks.every((t) => t.status === 'failed')).toBe(true);
    const { rows } = await gw.store.db.query<{ event: string }>(
      "SELECT event FROM webhook_deliveries WHERE payload->'data'->>'planId' = $1 ORDER BY seq",
      [body.plan_id],
    );
    expect(rows.map((r) => r.event)).toEqual(['step.completed', 'step.completed', 'plan.failed']);
  });
});

describe('without an LLM provider', () => {
  let bare: TestGateway;
  let bareOrch: TestOrchestrator;
  beforeAll(async () => {
    bare = await startTestGateway({ manifests: SAMPLES });
    bareOrch = await startTestOrchestrator(bare);
  });
  afterAll(async () => {
    await bareOrch?.close();
    await bare?.close();
  });

  it('generates the plan and fails its execution, naming the missing provider', async () => {
    const { status, body } = await postPlan(
      bareOrch.app,
      { query: 'Find flights to Oslo' },
      { 'x-license-key': bare.keys.acme },
    );
    expect(status).toBe(503);
    expect(body.error?.code).toBe('PROVIDER_NOT_CONFIGURED');
    expect(body.error?.message).toContain('OPENAI_API_KEY');
    expect(body.steps[0]).toMatchObject({ agent: 'flight-search' });
    expect(body.metadata.planner).toBe('deterministic');
  });

  it.each(['chat', 'multi-agent-plan'])(
    'blocks a %s query the policies block on /api/request before asking for a provider',
    async (type) => {
      const res = await bare.app.inject({
        method: 'POST',
        url: '/api/request',
        headers: { 'x-license-key': bare.keys.acme },
        payload: { query: 'My SSN is 123-45-6789', request_type: type },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ blocked: true, block_reason: expect.any(String) });
    },
  );
});
