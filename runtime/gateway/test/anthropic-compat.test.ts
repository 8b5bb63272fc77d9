import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import {
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeAnthropicServer,
  type FakeOpenAiServer,
} from '../../../testing/llm/index.js';

/** A policy over `input.llm`: what the compatible endpoints hand the policies, message by message. */
const LLM_SHAPE = `apiVersion: steward.dev/v1alpha1
kind: Policy
metadata: {name: llm-shape}
spec:
  type: custom
  priority: 5000
  rego: |
    package custom.llmshape
    deny contains "system instruction refused" if {
      input.surface == "llm"
      some m in input.llm.messages
      m.role == "system"
      contains(m.content, "forbidden-instruction")
    }
    deny contains "assistant turn refused" if {
      some m in input.llm.messages
      m.role == "assistant"
      contains(m.content, "forbidden-assistant-text")
    }
---
`;

/**
 * The Anthropic-compatible endpoint through a real socket with the official `@anthropic-ai/sdk`, the gateway's
 * providers pointed at the fake servers.
 */
let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
let gw: TestGateway;
let client: Anthropic;
let baseURL: string;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-upstream' });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-upstream' });
  gw = await startTestGateway({
    manifests: LLM_SHAPE,
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-upstream',
      ANTHROPIC_BASE_URL: anthropic.baseURL,
      STEWARD_ANTHROPIC_MODEL: 'claude-sonnet-4-6',
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: openai.baseURL,
      STEWARD_OPENAI_MODEL: 'gpt-4o-mini',
      STEWARD_LLM_TIMEOUT_MS: '5000',
    },
  });
  baseURL = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  // NB: the SDK sends its key as x-api-key; a gateway API key there is the caller's credential.
  const { apiKey } = await gw.store.clients.create({ organizationId: 'acme', name: 'anthropic-sdk-app' });
  client = new Anthropic({ apiKey, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
  await anthropic?.close();
});

describe('POST /v1/messages with the Anthropic SDK', () => {
  it('answers a message with system and content blocks and audits it', async () => {
    anthropic.enqueue({ kind: 'reply', text: 'Paris.', usage: { promptTokens: 10, completionTokens: 2 } });
    const message = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      system: [{ type: 'text', text: 'Answer in one word.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: 'And of Italy?' },
      ],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Paris.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 2 },
    });
    expect(anthropic.lastRequest().body).toMatchObject({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      system: 'Answer in one word.',
      messages: [
        { role: 'user', content: 'Capital of France?' },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: 'And of Italy?' },
      ],
    });
    const entry = await gw.store.audit.get('acme', message.id.replace(/^msg_/, ''));
    expect(entry).toMatchObject({
      provider: 'anthropic',
      prompt: 'Answer in one word.\nCapital of France?\nParis.\nAnd of Italy?',
      response: 'Paris.',
    });
  });

  it('raises PermissionDeniedError for a US SSN and never calls the provider', async () => {
    const before = anthropic.requests.length;
    const err = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'My SSN is 123-45-6789' }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(err).toMatchObject({
      status: 403,
      error: { type: 'error', error: { type: 'permission_error', code: 'POLICY_VIOLATION' } },
    });
    expect(anthropic.requests.length).toBe(before);
  });

  it('hands the policies each system message as input.llm.messages', async () => {
    const before = anthropic.requests.length;
    const err = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 50,
        system: 'forbidden-instruction',
        messages: [{ role: 'user', content: 'Hello' }],
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 403,
      error: { error: { details: { block_reason: expect.stringContaining('system instruction refused') } } },
    });
    expect(anthropic.requests.length).toBe(before);
  });

  it('governs assistant turns too: the caller writes them and the provider reads them', async () => {
    const before = anthropic.requests.length;
    const err = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 50,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'forbidden-assistant-text' },
          { role: 'user', content: 'Go on' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 403,
      error: { error: { details: { block_reason: expect.stringContaining('assistant turn refused') } } },
    });
    expect(anthropic.requests.length).toBe(before);
  });

  it('sends an Anthropic-format request to the OpenAI provider when the model names it', async () => {
    openai.enqueue({ kind: 'reply', text: 'Hola.', finish: 'length' });
    const message = await client.messages.create({
      model: 'openai/gpt-4o',
      max_tokens: 9,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello in Spanish' }],
    });
    expect(message).toMatchObject({ content: [{ type: 'text', text: 'Hola.' }], stop_reason: 'max_tokens' });
    expect(openai.lastRequest().body).toMatchObject({
      model: 'gpt-4o',
      max_completion_tokens: 9,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello in Spanish' },
      ],
    });
  });

  it('answers stream: true with the Messages events the SDK assembles into the message', async () => {
    anthropic.enqueue({ kind: 'reply', text: 'Streamed answer.', usage: { promptTokens: 6, completionTokens: 3 } });
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-6',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    let deltas = '';
    stream.on('text', (t) => (deltas += t));
    const message = await stream.finalMessage();
    expect(deltas).toBe('Streamed answer.');
    expect(message).toMatchObject({
      content: [{ type: 'text', text: 'Streamed answer.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 6, output_tokens: 3 },
    });
    expect(await gw.store.audit.get('acme', message.id.replace(/^msg_/, ''))).toMatchObject({
      response: 'Streamed answer.',
    });
  });

  it('raises PermissionDeniedError for a blocked streamed request before any event', async () => {
    const before = anthropic.requests.length;
    const err = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 5,
        stream: true,
        messages: [{ role: 'user', content: 'My SSN is 123-45-6789' }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(anthropic.requests.length).toBe(before);
  });

  it('raises RateLimitError for an upstream 429', async () => {
    anthropic.enqueue({ kind: 'error', status: 429, retryAfterSec: 1 });
    const err = await client.messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'Hello' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it('raises AuthenticationError for an unknown key', async () => {
    const stranger = new Anthropic({ apiKey: 'client-nobody-prod-xyz', baseURL, maxRetries: 0 });
    const err = await stranger.messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'Hello' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err).toMatchObject({
      error: { type: 'error', error: { type: 'authentication_error', code: 'UNAUTHORIZED' } },
    });
  });

  it.each([
    {
      name: 'a tool_use block in a user turn',
      body: { messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] }] },
    },
    {
      name: 'a tool choice of type tool without its name',
      body: { tools: [{ name: 'f', input_schema: { type: 'object' } }], tool_choice: { type: 'tool' } },
    },
    {
      name: 'an image block',
      body: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] }] },
    },
    { name: 'a missing max_tokens', body: { max_tokens: undefined } },
  ])('refuses $name with a BadRequestError and no provider call', async ({ body }) => {
    const before = anthropic.requests.length;
    const err = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'Hello' }],
        ...body,
      } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err).toMatchObject({ error: { error: { type: 'invalid_request_error', code: 'INVALID_REQUEST' } } });
    expect(anthropic.requests.length).toBe(before);
  });
});
