import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../testing/llm/index.js';

/** Issue 30, finding 12: one LLM-call audit entry per pre-check context; a replay is a 409 with a code. */
let openai: FakeOpenAiServer;
let gw: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-test' });
  gw = await startTestGateway({
    licensed: false,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.baseURL, STEWARD_OPENAI_MODEL: 'gpt-4o-mini' },
  });
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
});

const precheck = async () =>
  (
    await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      payload: { client_id: 'app', user_token: 'u', query: 'What is the weather?' },
    })
  ).json().context_id as string;
const audit = (contextId: string, response = 'Sunny.', clientId = 'app') =>
  gw.app.inject({
    method: 'POST',
    url: '/api/audit/llm-call',
    payload: {
      context_id: contextId,
      client_id: clientId,
      provider: 'openai',
      model: 'gpt-4o',
      response_summary: response,
      latency_ms: 12,
    },
  });
const entries = async (contextId: string) =>
  Number(
    (
      await gw.store.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_entries WHERE context_id = $1', [
        contextId,
      ])
    ).rows[0]!.n,
  );

describe('audit replay', () => {
  it('accepts the first audit of a context and refuses the same audit again with 409 AUDIT_ALREADY_RECORDED', async () => {
    const ctx = await precheck();
    expect((await audit(ctx)).statusCode).toBe(200);
    const again = await audit(ctx, 'Rainy, actually.');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'AUDIT_ALREADY_RECORDED' });
    expect(await entries(ctx)).toBe(1);
  });

  it('lets exactly one of many concurrent audits of one context through', async () => {
    const ctx = await precheck();
    const answers = await Promise.all(Array.from({ length: 8 }, () => audit(ctx)));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(7);
    expect(await entries(ctx)).toBe(1);
  });

  it("refuses a client's audit for the context of a governed call, which the gateway audited itself", async () => {
    openai.enqueue({ kind: 'reply', text: 'Sunny.', usage: { promptTokens: 3, completionTokens: 2 } });
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      payload: { prompt: 'What is the weather?', mode: 'chat' },
    });
    expect(res.statusCode).toBe(200);
    const { rows } = await gw.store.db.query<{ context_id: string; client_id: string }>(
      'SELECT context_id, client_id FROM audit_entries WHERE id = $1',
      [res.json().data.audit_id],
    );
    const forged = await audit(rows[0]!.context_id, 'Sunny.', rows[0]!.client_id);
    expect(forged.json()).toMatchObject({ code: 'AUDIT_ALREADY_RECORDED' });
    expect(await entries(rows[0]!.context_id)).toBe(1);
  });
});
