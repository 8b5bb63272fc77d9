import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../testing/eventually.js';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import {
  startFakeAnthropic,
  startFakeOpenAi,
  type FakeAnthropicServer,
  type FakeOpenAiServer,
} from '../../../testing/llm/index.js';
import { OUTPUT_BLOCK } from './output-policies.js';

/**
 * Token-by-token streams, tools, output governance (redaction and blocks), Server-Timing and token limits of the
 * provider-compatible endpoints, through real sockets with the official `openai` and `@anthropic-ai/sdk` packages
 * against fake providers speaking each wire protocol (SSE included).
 */

const CARD_CHUNKS = ['Card 4111 11', '11 1111 ', '1111 ok'];
const CARD_MASKED = 'Card [REDACTED:payment_card] ok';

let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
let gw: TestGateway;
let origin: string;
let oa: OpenAI;
let an: Anthropic;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: 'sk-upstream' });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-upstream' });
  gw = await startTestGateway({
    manifests: OUTPUT_BLOCK,
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
  origin = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  oa = new OpenAI({ apiKey: gw.keys.acme, baseURL: `${origin}/v1`, maxRetries: 0 });
  const { apiKey } = await gw.store.clients.create({ organizationId: 'acme', name: 'streaming-sdk-app' });
  an = new Anthropic({ apiKey, baseURL: origin, maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
  await anthropic?.close();
});

/** Every text delta of an OpenAI stream, the id, the finish reason and the usage. */
async function drainOpenAi(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  const deltas: string[] = [];
  let id = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | null | undefined;
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  for await (const chunk of stream) {
    id = chunk.id;
    const choice = chunk.choices[0];
    if (choice?.delta.content) deltas.push(choice.delta.content);
    for (const t of choice?.delta.tool_calls ?? []) {
      const c = (calls[t.index] ??= { arguments: '' });
      if (t.id) c.id = t.id;
      if (t.function?.name) c.name = t.function.name;
      c.arguments += t.function?.arguments ?? '';
    }
    finish = choice?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  return { deltas, text: deltas.join(''), id, finish, usage, calls };
}

const auditOf = (id: string) => gw.store.audit.get('acme', id.replace(/^chatcmpl-|^msg_/, ''));

describe('token-by-token streams', () => {
  it('relays each upstream chunk as its own event, with the usage, and audits the stream', async () => {
    const chunks = [
      'The capital of France is Paris, on the Seine. ',
      'It has been the capital for most of the last thousand years, ',
      'and it is the largest city of the country by far. ',
      'Anything else?',
    ];
    openai.enqueue({ kind: 'reply', chunks, usage: { promptTokens: 9, completionTokens: 4 } });
    const out = await drainOpenAi(
      await oa.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Capital of France?' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    // NB: the output redactor holds back the end of each piece that could still begin a match (a word in progress).
    expect(out.deltas.length).toBeGreaterThanOrEqual(chunks.length);
    expect(out.text).toBe(chunks.join(''));
    expect(out.finish).toBe('stop');
    expect(out.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    expect(openai.lastRequest().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const entry = await auditOf(out.id);
    expect(entry).toMatchObject({
      response: chunks.join(''),
      totalTokens: 13,
      metadata: { stream: true, decision: 'allowed', usage_reported: true, ttft_ms: expect.any(Number) },
    });
  });

  it('masks a card number split over three SSE chunks: no event carries its digits', async () => {
    openai.enqueue({ kind: 'reply', chunks: CARD_CHUNKS });
    const out = await drainOpenAi(
      await oa.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Read my card back' }],
        stream: true,
      }),
    );
    expect(out.text).toBe(CARD_MASKED);
    for (const d of out.deltas) expect(d).not.toMatch(/\d/);
    const entry = await auditOf(out.id);
    expect(entry).toMatchObject({
      response: CARD_MASKED,
      metadata: { decision: 'redacted', redactions: { payment_card: 1 } },
    });
  });

  it('masks it on the Anthropic SDK too, through the OpenAI provider', async () => {
    openai.enqueue({ kind: 'reply', chunks: CARD_CHUNKS });
    const deltas: string[] = [];
    const stream = an.messages.stream({
      model: 'openai/gpt-4o-mini',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Read my card back' }],
    });
    stream.on('text', (t) => deltas.push(t));
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([{ type: 'text', text: CARD_MASKED }]);
    for (const d of deltas) expect(d).not.toMatch(/\d/);
  });

  it('masks a card in a whole (not streamed) answer', async () => {
    anthropic.enqueue({ kind: 'reply', text: 'Your card is 4111-1111-1111-1111.' });
    const completion = await oa.chat.completions.create({
      model: 'anthropic/claude-haiku-4-5',
      messages: [{ role: 'user', content: 'What is my card?' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Your card is [REDACTED:payment_card].');
  });

  it('ends a stream an output policy blocks with an error event the SDK raises, and audits the block', async () => {
    openai.enqueue({ kind: 'reply', chunks: ['Here it comes: ', 'FORBIDDEN', '-WORD', ' and more.'] });
    const stream = await oa.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say it' }],
      stream: true,
    });
    let id = '';
    const err = await (async () => {
      for await (const chunk of stream) id = chunk.id;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: 'policy_violation', error: { details: { stage: 'output' } } });
    expect(await auditOf(id)).toMatchObject({
      metadata: { decision: 'blocked_output', block_reason: expect.stringContaining('forbidden word') },
    });
  });

  it('answers 403 policy_violation with details.stage output when a whole answer is blocked', async () => {
    openai.enqueue({ kind: 'reply', text: 'The FORBIDDEN-WORD is here.' });
    const err = await oa.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say it' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err).toMatchObject({ code: 'policy_violation', error: { details: { stage: 'output' } } });
  });

  it('raises the Anthropic SDK error for a stream an output policy blocks', async () => {
    anthropic.enqueue({ kind: 'reply', chunks: ['Here: ', 'FORBIDDEN-WORD'] });
    const err = await an.messages
      .stream({ model: 'claude-sonnet-4-6', max_tokens: 50, messages: [{ role: 'user', content: 'Say it' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(String((err as Error).message)).toContain('forbidden word');
  });

  it('passes an upstream 429 on a stream as a RateLimitError before any event', async () => {
    openai.enqueue({ kind: 'error', status: 429, retryAfterSec: 2 });
    const err = await oa.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'provider_error' });
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('2');
  });

  it('relays text before the provider has finished, and cancels the upstream request when the client aborts', async () => {
    const aborts = openai.clientAborts;
    const first = 'A first sentence flows to the client while the provider is still writing. ';
    openai.enqueue({ kind: 'reply', chunks: [first, 'second ', 'third'], stallAfter: 1 });
    const stream = await oa.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Go slowly' }],
      stream: true,
    });
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      if (chunk.choices[0]?.delta.content) break; // the SDK aborts its request on break
    }
    await openai.waitForClientAborts(aborts + 1);
    await eventually(async () => expect(await auditOf(id)).toMatchObject({ metadata: { decision: 'client_closed' } }));
    const entry = await auditOf(id);
    expect(first.startsWith(entry!.response!) && entry!.response!.length > 0).toBe(true);
  });
});

describe('tools', () => {
  const weather: OpenAI.ChatCompletionTool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  };

  it('streams tool-call deltas to the OpenAI SDK and takes the tool result in the next turn', async () => {
    openai.enqueue({
      kind: 'reply',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: ['{"ci', 'ty": "Par', 'is"}'] }],
    });
    const out = await drainOpenAi(
      await oa.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weather],
        stream: true,
      }),
    );
    expect(out.finish).toBe('tool_calls');
    expect(out.calls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: '{"city": "Paris"}' }]);
    expect(openai.lastRequest().body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });

    await oa.chat.completions.create({
      model: 'gpt-4o-mini',
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18 °C, sunny' },
      ],
    });
    expect(openai.lastRequest().body).toMatchObject({
      messages: [
        { role: 'user' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18 °C, sunny' },
      ],
    });
  });

  it('returns tool_use blocks to the Anthropic SDK from the OpenAI provider, streamed and not', async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ];
    openai.enqueue({ kind: 'reply', toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const whole = await an.messages.create({
      model: 'openai/gpt-4o-mini',
      max_tokens: 100,
      tools,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    expect(whole.stop_reason).toBe('tool_use');
    expect(whole.content).toEqual([{ type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } }]);

    openai.enqueue({
      kind: 'reply',
      chunks: ['Let me check. '],
      toolCalls: [{ id: 'call_3', name: 'get_weather', arguments: ['{"city"', ':"Rome"}'] }],
    });
    const streamed = await an.messages
      .stream({
        model: 'openai/gpt-4o-mini',
        max_tokens: 100,
        tools,
        messages: [{ role: 'user', content: 'Weather in Rome?' }],
      })
      .finalMessage();
    expect(streamed.content).toMatchObject([
      { type: 'text', text: 'Let me check. ' },
      { type: 'tool_use', id: 'call_3', name: 'get_weather', input: { city: 'Rome' } },
    ]);
  });

  it('sends an Anthropic tool_result turn to the Anthropic provider as it came', async () => {
    await an.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: '-3 °C' }] },
      ],
    });
    expect(anthropic.lastRequest().body).toMatchObject({
      messages: [
        { role: 'user' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: '-3 °C' }] },
      ],
    });
  });

  it('blocks a conversation whose tool result carries an SSN before the provider sees it', async () => {
    const before = openai.requests.length;
    const err = await oa.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'Look me up' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_5', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_5', content: 'SSN 123-45-6789' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(openai.requests.length).toBe(before);
  });

  it('masks a card in streamed tool-call arguments', async () => {
    openai.enqueue({
      kind: 'reply',
      toolCalls: [{ id: 'call_4', name: 'pay', arguments: ['{"card":"4111 1', '111 1111 11', '11"}'] }],
    });
    const out = await drainOpenAi(
      await oa.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Pay' }],
        tools: [weather],
        stream: true,
      }),
    );
    expect(out.calls[0]!.arguments).toBe('{"card":"[REDACTED:payment_card]"}');
  });

  it('passes response_format to the provider', async () => {
    await oa.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'JSON please' }],
      response_format: { type: 'json_object' },
    });
    expect(openai.lastRequest().body).toMatchObject({ response_format: { type: 'json_object' } });
  });
});

describe('Server-Timing', () => {
  const post = (body: unknown) =>
    fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.keys.acme}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const names = (header: string | null) => (header ?? '').split(',').map((p) => p.trim().split(';')[0]);

  it('is on a whole answer, a stream and a block', async () => {
    const whole = await post({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
    expect(names(whole.headers.get('server-timing'))).toEqual(['auth', 'policy', 'upstream', 'output', 'total']);
    await whole.text();
    const streamed = await post({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], stream: true });
    expect(names(streamed.headers.get('server-timing'))).toEqual(['auth', 'policy', 'upstream', 'total']);
    expect(streamed.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    await streamed.text();
    const blocked = await post({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'SSN 123-45-6789' }] });
    expect(blocked.status).toBe(403);
    expect(names(blocked.headers.get('server-timing'))).toEqual(['auth', 'policy', 'total']);
    for (const part of (whole.headers.get('server-timing') ?? '').split(',')) expect(part).toMatch(/dur=\d+(\.\d)?$/);
  });
});

describe('tokens per minute', () => {
  let limited: TestGateway;
  beforeAll(async () => {
    limited = await startTestGateway({
      env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: openai.baseURL, STEWARD_LLM_TOKENS_PER_MINUTE: '1000' },
    });
  });
  afterAll(async () => limited?.close());

  const call = (maxTokens: number, key = limited.keys.acme) =>
    limited.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}` },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: maxTokens },
    });

  it('brings each reservation down to the tokens used, so calls that reserve more than the limit in all pass in turn', async () => {
    // Each reserves 602 of 1,000 (prompt / 4 + max_tokens) and uses a few (the stand-in's usage): without the
    // reconciliation the second would be refused.
    for (let i = 0; i < 10; i++) expect((await call(600)).statusCode).toBe(200);
  });

  it('refuses a call past the organization budget with 429 rate_limited in tokens, without calling the provider', async () => {
    // NB: windows are aligned to the minute; a pair of calls that straddles a boundary is tried again.
    let refused;
    let before;
    for (;;) {
      const minute = Math.floor(Date.now() / 60_000);
      expect((await call(600)).statusCode).toBe(200);
      before = openai.requests.length;
      // A call larger than the whole limit is charged the limit: it passes only in a minute with no use.
      refused = await call(1000);
      if (Math.floor(Date.now() / 60_000) === minute) break;
    }
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      error: { code: 'rate_limited', type: 'rate_limit_error', details: { unit: 'tokens', limit: 1000 } },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(openai.requests.length).toBe(before);
    // Another organization has its own budget.
    expect((await call(600, limited.keys.globex)).statusCode).toBe(200);
  });
});

describe('STEWARD_LLM_AUDIT=background', () => {
  let bg: TestGateway;
  beforeAll(async () => {
    bg = await startTestGateway({
      env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: openai.baseURL, STEWARD_LLM_AUDIT: 'background' },
    });
  });
  afterAll(async () => bg?.close());

  it('answers before the audit entry commits, and the entry lands', async () => {
    openai.enqueue({ kind: 'reply', text: 'Background answer.' });
    const res = await bg.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${bg.keys.acme}` },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
    });
    expect(res.statusCode).toBe(200);
    const id = String(res.headers['x-steward-audit-id']);
    await eventually(async () =>
      expect(await bg.store.audit.get('acme', id)).toMatchObject({
        response: 'Background answer.',
        contextId: res.headers['x-steward-context-id'],
      }),
    );
  });

  it('writes the records of calls still in flight before the gateway closes', async () => {
    const other = await startTestGateway({
      env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: openai.baseURL, STEWARD_LLM_AUDIT: 'background' },
    });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await other.app.inject({
        method: 'POST',
        url: '/v1/execute',
        headers: { authorization: `Bearer ${other.keys.acme}` },
        payload: { prompt: `question ${i}` },
      });
      expect(res.statusCode).toBe(200);
      ids.push(String(res.json().data.audit_id));
    }
    await other.app.close();
    for (const id of ids) expect(await other.store.audit.get('acme', id)).toBeDefined();
    await other.close();
  });
});
