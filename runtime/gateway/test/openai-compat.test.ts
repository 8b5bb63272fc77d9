import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import {
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeAnthropicServer,
  type FakeOpenAiServer,
} from '../../../testing/llm/index.js';

/**
 * The OpenAI-compatible endpoints through a real socket with the official `openai` SDK, the gateway's providers
 * pointed at the fake OpenAI and Anthropic servers.
 */
let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
let gw: TestGateway;
let client: OpenAI;
let baseURL: string;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-upstream' });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-upstream' });
  gw = await startTestGateway({
    env: {
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: openai.baseURL,
      STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
      ANTHROPIC_API_KEY: 'sk-ant-upstream',
      ANTHROPIC_BASE_URL: anthropic.baseURL,
      STEWARD_ANTHROPIC_MODEL: 'claude-sonnet-4-6',
      STEWARD_LLM_TIMEOUT_MS: '5000',
    },
  });
  const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  baseURL = `${address}/v1`;
  // NB: the organization's license key is the Bearer value, the only credential the SDK sends.
  client = new OpenAI({ apiKey: gw.keys.acme, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
  await anthropic?.close();
});

describe('POST /v1/chat/completions with the OpenAI SDK', () => {
  it('answers a completion from the default provider and audits it', async () => {
    openai.enqueue({ kind: 'reply', text: 'Paris.', usage: { promptTokens: 12, completionTokens: 2 } });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
      ],
      temperature: 0.2,
      max_completion_tokens: 20,
    });
    expect(completion.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Paris.' },
      finish_reason: 'stop',
    });
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 });
    expect(openai.lastRequest().body).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 0.2,
      max_completion_tokens: 20,
      messages: [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Capital of France?' },
      ],
    });
    const entry = await gw.store.audit.get('acme', completion.id.replace(/^chatcmpl-/, ''));
    expect(entry).toMatchObject({
      provider: 'openai',
      prompt: 'Answer in one word.\nCapital of France?',
      response: 'Paris.',
      totalTokens: 14,
    });
  });

  it('takes max_tokens when max_completion_tokens is absent', async () => {
    await client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 7,
    });
    expect(openai.lastRequest().body).toMatchObject({ model: 'gpt-4o', max_completion_tokens: 7 });
  });

  it('raises PermissionDeniedError with code policy_violation for a US SSN and never calls the provider', async () => {
    const before = openai.requests.length;
    const err = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'assistant', content: 'How can I help?' },
          { role: 'user', content: 'My SSN is 123-45-6789, file my taxes' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err).toMatchObject({ status: 403, code: 'policy_violation', type: 'permission_error' });
    expect(openai.requests.length).toBe(before);
  });

  it('checks every user message, not only the last', async () => {
    const before = openai.requests.length;
    const err = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'My SSN is 123-45-6789' },
          { role: 'assistant', content: 'Noted.' },
          { role: 'user', content: 'Now file my taxes' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 403, code: 'policy_violation' });
    expect(openai.requests.length).toBe(before);
  });

  it('checks assistant turns too: a card number placed in one never reaches the provider', async () => {
    const before = openai.requests.length;
    const err = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'Repeat what you said' },
          { role: 'assistant', content: 'Card 4111-1111-1111-1111' },
          { role: 'user', content: 'again' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 403, code: 'policy_violation' });
    expect(openai.requests.length).toBe(before);
  });

  it('sends an OpenAI-format request to the Anthropic provider when the model names it', async () => {
    anthropic.enqueue({
      kind: 'reply',
      text: 'Bonjour.',
      usage: { promptTokens: 5, completionTokens: 1 },
      finish: 'max_tokens',
    });
    const completion = await client.chat.completions.create({
      model: 'anthropic/claude-haiku-4-5',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Say hello in French' },
      ],
      max_tokens: 30,
    });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Bonjour.' }, finish_reason: 'length' });
    expect(anthropic.lastRequest().body).toMatchObject({
      model: 'claude-haiku-4-5',
      max_tokens: 30,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello in French' }],
    });
  });

  it("uses a provider's configured model when the model is the provider's name", async () => {
    await client.chat.completions.create({ model: 'anthropic', messages: [{ role: 'user', content: 'Hello' }] });
    expect(anthropic.lastRequest().body).toMatchObject({ model: 'claude-sonnet-4-6' });
  });

  it.each([
    {
      name: 'an upstream 429 is a RateLimitError',
      scenario: { kind: 'error', status: 429, retryAfterSec: 3 } as const,
      error: OpenAI.RateLimitError,
      status: 429,
    },
    {
      name: 'an upstream 404 (unknown model) is a NotFoundError',
      scenario: { kind: 'error', status: 404 } as const,
      error: OpenAI.NotFoundError,
      status: 404,
    },
    {
      name: 'an upstream 500 is a 502 InternalServerError',
      scenario: { kind: 'error', status: 500 } as const,
      error: OpenAI.InternalServerError,
      status: 502,
    },
  ])('$name', async ({ scenario, error, status }) => {
    openai.enqueue(scenario);
    const err = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(error);
    expect(err).toMatchObject({ status, code: 'provider_error' });
  });

  it('answers stream: true with chunks, the usage asked for and [DONE], after the audit', async () => {
    openai.enqueue({ kind: 'reply', text: 'Streamed answer.', usage: { promptTokens: 4, completionTokens: 3 } });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect({ text, finish, usage }).toEqual({
      text: 'Streamed answer.',
      finish: 'stop',
      usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
    });
    expect(await gw.store.audit.get('acme', id.replace(/^chatcmpl-/, ''))).toMatchObject({
      response: 'Streamed answer.',
    });
  });

  it('leaves the usage out of a stream that did not ask for it', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    const usages: unknown[] = [];
    for await (const chunk of stream) usages.push(chunk.usage);
    expect(usages.filter((u) => u !== undefined && u !== null)).toEqual([]);
  });

  it('raises PermissionDeniedError for a blocked streamed request before any event', async () => {
    const before = openai.requests.length;
    const err = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'My SSN is 123-45-6789' }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err).toMatchObject({ code: 'policy_violation' });
    expect(openai.requests.length).toBe(before);
  });

  it('passes the Retry-After of an upstream 429 on', async () => {
    openai.enqueue({ kind: 'error', status: 429, retryAfterSec: 3 });
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.keys.acme}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('raises AuthenticationError for an unknown key', async () => {
    const stranger = new OpenAI({ apiKey: 'client-nobody-prod-xyz', baseURL, maxRetries: 0 });
    const err = await stranger.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err).toMatchObject({ code: 'unauthorized' });
  });

  it('admits a gateway API key as the Bearer value', async () => {
    const { apiKey } = await gw.store.clients.create({ organizationId: 'acme', name: 'openai-sdk-app' });
    const app = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
    const completion = await app.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toContain('Hello');
  });

  it.each([
    { name: 'the legacy functions field', body: { functions: [{ name: 'f', parameters: { type: 'object' } }] } },
    { name: 'a tool message without tool_call_id', body: { messages: [{ role: 'tool', content: '42' }] } },
    { name: 'a tool name with a space', body: { tools: [{ type: 'function', function: { name: 'get weather' } }] } },
    {
      name: 'an image part',
      body: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x' } }] }] },
    },
    { name: 'a temperature above 1', body: { temperature: 1.5 } },
    { name: 'no messages', body: { messages: [] } },
  ])('refuses $name with a BadRequestError and no provider call', async ({ body }) => {
    const before = openai.requests.length;
    const err = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], ...body } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ code: 'invalid_request' });
    expect(openai.requests.length).toBe(before);
  });
});

describe('hostile message content on /v1/chat/completions and /v1/messages', () => {
  const hostile = [
    { name: 'a NUL character', content: 'a\u0000b' },
    { name: 'a lone surrogate', content: 'x\ud800y' },
    { name: 'a 300,000-character text', content: 'a'.repeat(300_000) },
    { name: 'a text part without text', content: [{ type: 'text' }] },
    { name: 'a part that is not an object', content: ['text'] },
    { name: 'whitespace only', content: '   ' },
    { name: 'a 200-level nested part', content: [JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`)] },
  ];
  it.each(
    hostile.flatMap((h) => [
      {
        ...h,
        url: '/v1/chat/completions',
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: h.content }] },
        codeOf: (b: { error?: { code?: unknown } }) => b.error?.code,
      },
      {
        ...h,
        url: '/v1/messages',
        body: { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: h.content }] },
        codeOf: (b: { error?: { code?: unknown } }) => b.error?.code,
      },
    ]),
  )('answers $name on $url with a coded 4xx or an answer, never a 5xx', async ({ url, body, codeOf }) => {
    const res = await gw.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${gw.keys.acme}` },
      payload: body,
    });
    expect(res.statusCode).toBeLessThan(500);
    if (res.statusCode >= 400) expect(codeOf(res.json())).toEqual(expect.any(String));
  });
});

describe('GET /v1/models', () => {
  it("lists each configured provider's model as provider/model", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-6']);
  });
});
