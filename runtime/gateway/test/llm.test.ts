import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../../../testing/llm/index.js';

let openai: FakeOpenAiServer;
let gw: TestGateway;
let bare: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-test' });
  gw = await startTestGateway({
    licensed: false,
    env: {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: openai.baseURL,
      STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
      STEWARD_LLM_TIMEOUT_MS: '2000',
    },
  });
  bare = await startTestGateway({ licensed: false });
});
afterAll(async () => {
  await gw?.close();
  await bare?.close();
  await openai?.close();
});

describe('governed LLM calls', () => {
  it('runs /v1/execute through pre-check, the provider and audit', async () => {
    openai.enqueue({ kind: 'reply', text: 'Tomorrow will be sunny.', usage: { promptTokens: 9, completionTokens: 5 } });
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      payload: { prompt: 'What is the weather tomorrow?', mode: 'chat' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      data: {
        response: 'Tomorrow will be sunny.',
        usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
      },
      metadata: { request_id: expect.any(String) },
    });
    const sent = openai.lastRequest().body as { model: string; temperature: number; max_completion_tokens: number };
    expect(sent).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.7, max_completion_tokens: 500 });
    const entry = await gw.store.audit.get('community', body.data.audit_id);
    expect(entry).toMatchObject({
      provider: 'openai',
      prompt: 'What is the weather tomorrow?',
      response: 'Tomorrow will be sunny.',
      totalTokens: 14,
    });
  });

  it('never sends a blocked prompt to the provider', async () => {
    const before = openai.requests.length;
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      payload: { prompt: 'My SSN is 123-45-6789, file my taxes', mode: 'chat' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      success: false,
      code: 'POLICY_VIOLATION',
      blocked: true,
      block_reason: expect.any(String),
    });
    expect(openai.requests.length).toBe(before);
  });

  it('answers /api/request with blocked: true and policy_info for a blocked query', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/request',
      payload: { query: "list users' ; DROP TABLE users; --", request_type: 'chat', context: {} },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      blocked: true,
      block_reason: expect.any(String),
      policy_info: { policies_evaluated: expect.arrayContaining([expect.any(String)]) },
    });
  });

  it('answers /api/request with the model output for an allowed query', async () => {
    openai.enqueue({ kind: 'reply', text: 'Paris.' });
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/request',
      payload: { query: 'Capital of France?', request_type: 'chat', temperature: 0.2, max_tokens: 20 },
    });
    expect(res.json()).toMatchObject({
      success: true,
      blocked: false,
      result: 'Paris.',
      policy_info: { policies_evaluated: expect.any(Array) },
    });
    expect(openai.lastRequest().body).toMatchObject({ temperature: 0.2, max_completion_tokens: 20 });
  });

  it.each([
    {
      name: 'a provider error is a 502 PROVIDER_ERROR',
      scenario: { kind: 'error', status: 500 } as const,
      status: 502,
      code: 'PROVIDER_ERROR',
    },
    {
      name: 'a provider that never answers is a 504 PROVIDER_TIMEOUT',
      scenario: { kind: 'hang' } as const,
      status: 504,
      code: 'PROVIDER_TIMEOUT',
    },
  ])('$name', async ({ scenario, status, code }) => {
    openai.enqueue(scenario);
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      payload: { prompt: 'Hello there', mode: 'chat' },
    });
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe(code);
  });

  it('refuses a temperature outside 0..1 with 400', async () => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/v1/execute',
      payload: { prompt: 'Hello', temperature: 1.5 },
    });
    expect(res.statusCode).toBe(400);
  });

  it('says clearly when no provider is configured', async () => {
    const res = await bare.app.inject({
      method: 'POST',
      url: '/v1/execute',
      payload: { prompt: 'Hello', mode: 'chat' },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      code: 'PROVIDER_NOT_CONFIGURED',
      error: expect.stringContaining('OPENAI_API_KEY'),
    });
  });
});
