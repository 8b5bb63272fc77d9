import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAi, type FakeServerHandle } from '../../../testing/llm/index.js';
import { ECHO_NOTICE } from '../echo.js';
import { LlmAbortedError, LlmProviderError, LlmTimeoutError, LlmValidationError } from '../errors.js';
import { createLlmRouter, createProvider, type LlmRouter } from '../router.js';
import type { LlmProvider, LlmRequest, LlmStream, LlmStreamEvent, LlmTool } from '../types.js';
import { GOOD_KEY, harnesses, type Harness } from './harness.js';

/** Fails the test if `p` has not settled within `ms`; only a bound for a broken build, never a speed check. */
function within<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
  );
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/** Every event of a stream, and the error that ended it, if any. */
async function drain(stream: LlmStream): Promise<{ events: LlmStreamEvent[]; error?: unknown }> {
  const events: LlmStreamEvent[] = [];
  try {
    for await (const e of stream) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

const texts = (events: LlmStreamEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.text] : []));
const doneOf = (events: LlmStreamEvent[]) => {
  const done = events.filter((e) => e.type === 'done');
  expect(done).toHaveLength(1);
  expect(events[events.length - 1]!.type).toBe('done');
  return done[0] as Extract<LlmStreamEvent, { type: 'done' }>;
};

const weather: LlmTool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const CHUNKS = ['Card 4111 11', '11 1111 ', '1111 ok'];

describe.each(harnesses)('$type provider streaming against its fake server', (h: Harness) => {
  let server: FakeServerHandle | undefined;
  let provider: LlmProvider | undefined;

  afterEach(async () => {
    await provider?.close();
    await server?.close();
    provider = server = undefined;
  });

  async function setUp(extra: Record<string, unknown> = {}) {
    const started = await h.start(GOOD_KEY);
    server = started.server;
    provider = createProvider({ ...started.config, ...extra } as never);
    return { server: started.server, provider, config: started.config };
  }

  it('streams the text as several events in order whose concatenation is the answer', async () => {
    const { server, provider, config } = await setUp();
    server.enqueue({ kind: 'reply', chunks: CHUNKS, usage: { promptTokens: 12, completionTokens: 9 } });
    const stream = await provider.stream({ prompt: 'repeat my card' });
    expect(stream).toMatchObject({ provider: h.type, model: config.model });
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(texts(events)).toEqual(CHUNKS);
    expect(texts(events).join('')).toBe('Card 4111 1111 1111 1111 ok');
    const done = doneOf(events);
    expect(done).toMatchObject({
      finishReason: 'stop',
      usageReported: true,
      usage: { promptTokens: 12, completionTokens: 9, totalTokens: 21 },
    });
    expect(done.model).toBeTruthy();
    if (h.type === 'openai')
      expect((server.lastRequest().body as { stream_options?: unknown }).stream_options).toEqual({
        include_usage: true,
      });
  });

  it('estimates usage as ceil(characters / 4) per text when the provider reports none', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'reply', chunks: CHUNKS, omitUsage: true });
    const { events } = await drain(await provider.stream({ system: 'Be brief.', prompt: 'hello there' }));
    const done = doneOf(events);
    expect(done.usageReported).toBe(false);
    // 'Be brief.' (9 chars) → 3, 'hello there' (11) → 3; the answer (27) → 7.
    expect(done.usage).toEqual({ promptTokens: 6, completionTokens: 7, totalTokens: 13 });
  });

  it('streams a tool call: id and name first, then the argument text', async () => {
    const { server, provider } = await setUp();
    server.enqueue({
      kind: 'reply',
      toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: ['{"city":', ' "Lisbon"}'] }],
    });
    const { events, error } = await drain(await provider.stream({ prompt: 'Weather in Lisbon?', tools: [weather] }));
    expect(error).toBeUndefined();
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls[0]).toMatchObject({ index: 0, name: 'get_weather' });
    expect(calls[0]!.id).toEqual(h.toolCallIds ? 'call_w1' : expect.stringMatching(/^call_/));
    expect(calls.slice(1).every((c) => c.id === undefined && c.name === undefined && c.index === 0)).toBe(true);
    // Ollama sends a call whole; the others in the pieces the model wrote.
    if (h.type !== 'ollama') expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((c) => c.arguments).join(''))).toEqual({ city: 'Lisbon' });
    expect(doneOf(events).finishReason).toBe(h.type === 'ollama' ? 'stop' : 'tool_use');
    expect(h.readTools(server.lastRequest()).tools).toEqual(['get_weather']);
  });

  it('returns tool calls from complete() and sends the results back in a follow-up turn', async () => {
    const { server, provider } = await setUp();
    server.enqueue({
      kind: 'reply',
      toolCalls: [
        { id: 'call_w2', name: 'get_weather', arguments: '{"city":"Porto"}' },
        { id: 'call_w3', name: 'get_weather', arguments: '{"city":"Faro"}' },
      ],
    });
    const first = await provider.complete({
      prompt: 'Weather in Porto and Faro?',
      tools: [weather],
      toolChoice: 'auto',
    });
    expect(first.toolCalls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) as unknown }))).toEqual([
      { name: 'get_weather', args: { city: 'Porto' } },
      { name: 'get_weather', args: { city: 'Faro' } },
    ]);
    if (h.toolCallIds) expect(first.toolCalls.map((c) => c.id)).toEqual(['call_w2', 'call_w3']);
    expect(first.finishReason).toBe(h.type === 'ollama' ? 'stop' : 'tool_use');

    server.enqueue({ kind: 'reply', text: 'Sunny in both.' });
    const second = await provider.complete({
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Porto and Faro?' },
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: first.toolCalls[0]!.id, content: 'sunny, 24' },
        { role: 'tool', toolCallId: first.toolCalls[1]!.id, content: 'sunny, 27' },
      ],
    });
    expect(second.text).toBe('Sunny in both.');
    expect(second.toolCalls).toEqual([]);
    const wire = h.readTools(server.lastRequest());
    expect(wire.calls).toEqual([
      { name: 'get_weather', args: { city: 'Porto' } },
      { name: 'get_weather', args: { city: 'Faro' } },
    ]);
    const refs = h.toolCallIds ? first.toolCalls.map((c) => c.id) : ['get_weather', 'get_weather'];
    expect(wire.results).toEqual([
      { ref: refs[0], content: 'sunny, 24' },
      { ref: refs[1], content: 'sunny, 27' },
    ]);
    // Anthropic and Bedrock: both results in one user turn after the assistant's.
    if (h.type === 'anthropic' || h.type === 'aws-bedrock')
      expect(h.read(server.lastRequest()).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('rejects stream() with the 429 status and Retry-After when the provider refuses before accepting', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'error', status: 429, retryAfterSec: 7 });
    const err = (await provider.stream({ prompt: 'hi' }).catch((e: unknown) => e)) as LlmProviderError;
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSec: 7 });
  });

  it('retries a retryable failure before acceptance', async () => {
    const { server, provider } = await setUp({ maxRetries: 1 });
    server.enqueue({ kind: 'error', status: 500 }, { kind: 'reply', chunks: ['second ', 'time'] });
    const { events } = await drain(await provider.stream({ prompt: 'hi' }));
    expect(texts(events)).toEqual(['second ', 'time']);
    expect(server.requests).toHaveLength(2);
  });

  it('throws LlmTimeoutError when the stream stalls longer than timeoutMs, and closes the connection', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'reply', chunks: CHUNKS, stallAfter: 1 });
    // NB: the deadline also bounds acceptance and the first chunk, so it leaves room for a loaded machine.
    const { events, error } = await within(
      drain(await provider.stream({ prompt: 'hi', timeoutMs: 1500 })),
      'stalled stream',
    );
    expect(texts(events)).toEqual([CHUNKS[0]]);
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect((error as LlmTimeoutError).timeoutMs).toBe(1500);
    await within(server.waitForClientAborts(1), 'upstream close');
  });

  it('aborting the signal mid-stream throws LlmAbortedError and closes the upstream connection', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'reply', chunks: CHUNKS, stallAfter: 1 });
    const ac = new AbortController();
    const stream = await provider.stream({ prompt: 'hi', signal: ac.signal });
    const seen: LlmStreamEvent[] = [];
    const err = await within(
      (async () => {
        for await (const e of stream) {
          seen.push(e);
          ac.abort();
        }
      })().catch((e: unknown) => e),
      'aborted stream',
    );
    expect(texts(seen)).toEqual([CHUNKS[0]]);
    expect(err).toBeInstanceOf(LlmAbortedError);
    await within(server.waitForClientAborts(1), 'upstream close');
  });

  it('breaking out of the loop closes the upstream connection', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'reply', chunks: CHUNKS, stallAfter: 1 });
    const stream = await provider.stream({ prompt: 'hi' });
    for await (const e of stream) {
      expect(e).toEqual({ type: 'text', text: CHUNKS[0] });
      break;
    }
    await within(server.waitForClientAborts(1), 'upstream close');
    expect(server.clientAborts).toBe(1);
  });

  it('returning from an iterator before reading closes the upstream connection', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'reply', chunks: CHUNKS, stallAfter: 1 });
    const stream = await provider.stream({ prompt: 'hi' });
    await stream[Symbol.asyncIterator]().return?.();
    await within(server.waitForClientAborts(1), 'upstream close');
  });

  it('sends nothing for an invalid streamed request', async () => {
    const { server, provider } = await setUp();
    await expect(provider.stream({ prompt: 'hi', tools: [{ name: 'bad name' }] })).rejects.toBeInstanceOf(
      LlmValidationError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe.each(harnesses)('$type provider maps tool choice and response format', (h: Harness) => {
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string' } },
    required: ['answer'],
    additionalProperties: false,
  };
  const expected: Record<Harness['type'], { format: Record<string, unknown>; choice?: Record<string, unknown> }> = {
    openai: {
      format: { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } } },
      choice: { tool_choice: { type: 'function', function: { name: 'get_weather' } } },
    },
    anthropic: {
      format: { output_config: { format: { type: 'json_schema', schema } } },
      choice: { tool_choice: { type: 'tool', name: 'get_weather' } },
    },
    'aws-bedrock': {
      format: {
        outputConfig: {
          textFormat: {
            type: 'json_schema',
            structure: { jsonSchema: { name: 'answer', schema: JSON.stringify(schema) } },
          },
        },
      },
      choice: { toolConfig: expect.objectContaining({ toolChoice: { tool: { name: 'get_weather' } } }) },
    },
    // Ollama cannot be made to call a tool; that refusal is tested below.
    ollama: { format: { format: schema } },
  };

  it("sends a json_schema response format and a named tool choice in the provider's fields", async () => {
    const { server, config } = await h.start(GOOD_KEY);
    const provider = createProvider(config);
    try {
      const { events } = await drain(
        await provider.stream({
          prompt: 'hi',
          responseFormat: { type: 'json_schema', name: 'answer', schema, strict: true },
        }),
      );
      doneOf(events);
      expect(server.lastRequest().body).toMatchObject(expected[h.type].format);
      const choice = expected[h.type].choice;
      if (choice) {
        await provider.complete({ prompt: 'hi', tools: [weather], toolChoice: { name: 'get_weather' } });
        expect(server.lastRequest().body).toMatchObject(choice);
      }
    } finally {
      await provider.close();
      await server.close();
    }
  });
});

describe('features a provider lacks are refused, never dropped', () => {
  const cases: {
    name: string;
    type: 'anthropic' | 'aws-bedrock' | 'ollama' | 'echo';
    req: LlmRequest;
    field: string;
  }[] = [
    {
      name: 'anthropic refuses json_object',
      type: 'anthropic',
      req: { prompt: 'x', responseFormat: { type: 'json_object' } },
      field: 'responseFormat.type',
    },
    {
      name: 'bedrock refuses toolChoice none',
      type: 'aws-bedrock',
      req: { prompt: 'x', tools: [weather], toolChoice: 'none' },
      field: 'toolChoice',
    },
    {
      name: 'ollama refuses a forced tool call',
      type: 'ollama',
      req: { prompt: 'x', tools: [weather], toolChoice: 'required' },
      field: 'toolChoice',
    },
    { name: 'echo refuses tools', type: 'echo', req: { prompt: 'x', tools: [weather] }, field: 'tools' },
    {
      name: 'echo refuses a JSON format',
      type: 'echo',
      req: { prompt: 'x', responseFormat: { type: 'json_object' } },
      field: 'responseFormat',
    },
  ];
  it.each(cases)('$name', async ({ type, req, field }) => {
    const config = {
      anthropic: { apiKey: 'k', endpoint: 'http://127.0.0.1:9' },
      'aws-bedrock': { region: 'us-east-1', endpoint: 'http://127.0.0.1:9' },
      ollama: { endpoint: 'http://127.0.0.1:9' },
      echo: {},
    }[type];
    const provider = createProvider({ type, model: 'm', ...config });
    try {
      for (const call of [() => provider.complete(req), () => provider.stream(req)]) {
        const err = (await call().catch((e: unknown) => e)) as LlmValidationError;
        expect(err).toBeInstanceOf(LlmValidationError);
        expect(err.field).toBe(field);
        expect(err.message).toContain(`not supported by provider ${type}`);
      }
    } finally {
      await provider.close();
    }
  });
});

describe('echo provider streaming', () => {
  it('streams its answer a word at a time', async () => {
    const provider = createProvider({ type: 'echo', model: 'echo-1' });
    const { events } = await drain(await provider.stream({ prompt: 'one two three' }));
    const words = texts(events);
    expect(words.length).toBeGreaterThan(3);
    expect(words.join('')).toBe(`${ECHO_NOTICE} You said: one two three`);
    expect(doneOf(events)).toMatchObject({ model: 'echo-1', finishReason: 'stop', usageReported: true });
  });
});

describe('router.stream', () => {
  let router: LlmRouter | undefined;
  const servers: FakeServerHandle[] = [];
  afterEach(async () => {
    await router?.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('streams from the named provider', async () => {
    const openai = await startFakeOpenAi();
    const anthropic = await startFakeAnthropic();
    servers.push(openai, anthropic);
    router = createLlmRouter([
      { type: 'openai', model: 'gpt-4o', apiKey: 'sk', endpoint: openai.baseURL },
      { name: 'claude', type: 'anthropic', model: 'claude-haiku-4-5', apiKey: 'sk', endpoint: anthropic.baseURL },
    ]);
    anthropic.enqueue({ kind: 'reply', chunks: ['from ', 'claude'] });
    const stream = await router.stream({ provider: 'claude', prompt: 'hi' });
    expect(stream.provider).toBe('claude');
    expect(texts((await drain(stream)).events)).toEqual(['from ', 'claude']);
    expect(anthropic.requests).toHaveLength(1);
    expect(openai.requests).toHaveLength(0);
  });
});
