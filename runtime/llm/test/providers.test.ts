import { afterEach, describe, expect, it } from 'vitest';
import type { FakeServerHandle } from '../../../testing/llm/index.js';
import { LlmAbortedError, LlmProviderError, LlmTimeoutError, LlmValidationError } from '../errors.js';
import { createProvider } from '../router.js';
import type { LlmProvider } from '../types.js';
import { GOOD_KEY, harnesses, type Harness } from './harness.js';

describe.each(harnesses)('$type provider against its fake server', (h: Harness) => {
  let server: FakeServerHandle | undefined;
  let provider: LlmProvider | undefined;

  afterEach(async () => {
    await provider?.close();
    await server?.close();
    provider = server = undefined;
  });

  async function setUp(key = GOOD_KEY, extra: Record<string, unknown> = {}) {
    const started = await h.start(key);
    server = started.server;
    provider = createProvider({ ...started.config, ...extra } as never);
    return { server: started.server, provider, config: started.config };
  }

  it('maps model, temperature, max tokens, system and messages onto the wire request', async () => {
    const { server, provider } = await setUp();
    await provider.complete({
      model: 'model-override',
      system: 'Be brief.',
      messages: [
        { role: 'system', content: 'Answer in English.' },
        { role: 'user', content: 'Plan a trip to Lisbon' },
        { role: 'assistant', content: 'When?' },
        { role: 'user', content: 'In May' },
      ],
      temperature: 0.2,
      maxTokens: 64,
    });
    expect(server.requests).toHaveLength(1);
    const wire = h.read(server.lastRequest());
    expect(wire.path).toBe(h.path('model-override'));
    expect(wire.model).toBe('model-override');
    expect(wire.maxTokens).toBe(64);
    // NB: Anthropic's current API version refuses temperature, so it must not be on the wire at all.
    if (h.type === 'anthropic') expect(wire.temperature).toBeUndefined();
    else expect(wire.temperature).toBe(0.2);
    expect(wire.system).toBe('Be brief.\n\nAnswer in English.');
    expect(wire.messages).toEqual([
      { role: 'user', content: 'Plan a trip to Lisbon' },
      { role: 'assistant', content: 'When?' },
      { role: 'user', content: 'In May' },
    ]);
    expect(wire.credential).toBe(GOOD_KEY);
  });

  it('applies the reference defaults (temperature 0.7, 500 tokens) and the configured model', async () => {
    const { server, provider, config } = await setUp();
    const res = await provider.complete({ prompt: 'hello there' });
    const wire = h.read(server.lastRequest());
    expect(wire.path).toBe(h.path(config.model));
    expect(wire.model).toBe(config.model);
    expect(wire.maxTokens).toBe(500);
    if (h.type !== 'anthropic') expect(wire.temperature).toBe(0.7);
    expect(wire.messages).toEqual([{ role: 'user', content: 'hello there' }]);
    expect(res.text).toContain('reply to: hello there');
    expect(res.provider).toBe(h.type);
    expect(res.finishReason).toBe('stop');
    expect(res.latencyMs).toBeGreaterThan(0);
  });

  it('accounts tokens from the provider usage fields, cached input included', async () => {
    const { server, provider } = await setUp();
    server.enqueue({
      kind: 'reply',
      text: 'ok',
      usage: { promptTokens: 120, completionTokens: 34, cachedPromptTokens: 6 },
    });
    const res = await provider.complete({ prompt: 'count me' });
    // Ollama reports only evaluated prompt tokens; it has no separate cache counter.
    const prompt = h.type === 'ollama' ? 120 : 126;
    expect(res.usage).toEqual({ promptTokens: prompt, completionTokens: 34, totalTokens: prompt + 34 });
  });

  it('reports the token-budget stop as finishReason length', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'reply', text: 'cut', finish: h.lengthWord });
    const res = await provider.complete({ prompt: 'long story', maxTokens: 3 });
    expect(res.finishReason).toBe('length');
    expect(res.rawFinishReason).toBe(h.lengthWord);
  });

  it('turns bad credentials into LlmProviderError UNAUTHORIZED (or FORBIDDEN) without retrying', async () => {
    const { server, provider } = await setUp('key-wrong', { maxRetries: 2 });
    const err = await provider.complete({ prompt: 'hi' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmProviderError);
    expect((err as LlmProviderError).status).toBe(h.badCredentialStatus);
    expect((err as LlmProviderError).code).toBe('UNAUTHORIZED');
    expect((err as LlmProviderError).retryable).toBe(false);
    expect((err as LlmProviderError).provider).toBe(h.type);
    expect((err as Error).cause).toBeDefined();
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    { status: 429, code: 'RATE_LIMITED', retryable: true },
    { status: 500, code: 'SERVER_ERROR', retryable: true },
    { status: 400, code: 'BAD_REQUEST', retryable: false },
  ])('turns a $status answer into LlmProviderError $code', async ({ status, code, retryable }) => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'error', status, retryAfterSec: status === 429 ? 7 : undefined });
    const err = (await provider.complete({ prompt: 'hi' }).catch((e: unknown) => e)) as LlmProviderError;
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(err).toMatchObject({ status, code, retryable });
    if (status === 429) expect(err.retryAfterSec).toBe(7);
  });

  it('retries a retryable failure within the deadline when maxRetries allows', async () => {
    const { server, provider } = await setUp(GOOD_KEY, { maxRetries: 1 });
    server.enqueue({ kind: 'error', status: 500 }, { kind: 'reply', text: 'second time lucky' });
    const res = await provider.complete({ prompt: 'hi' });
    expect(res.text).toBe('second time lucky');
    expect(server.requests).toHaveLength(2);
  });

  it('fails with LlmTimeoutError within the configured timeout when the server never answers', async () => {
    const { server, provider } = await setUp(GOOD_KEY, { timeoutMs: 300 });
    server.enqueue({ kind: 'hang' });
    const started = performance.now();
    const err = await provider.complete({ prompt: 'hi' }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(LlmTimeoutError);
    expect((err as LlmTimeoutError).timeoutMs).toBe(300);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
    expect(server.requests).toHaveLength(1);
  });

  it('lets a request shorten the deadline with timeoutMs', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'hang' });
    const err = await provider.complete({ prompt: 'hi', timeoutMs: 150 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmTimeoutError);
    expect((err as LlmTimeoutError).timeoutMs).toBe(150);
  });

  it('stops with LlmAbortedError when the caller aborts', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'hang' });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await provider.complete({ prompt: 'hi', signal: ac.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmAbortedError);
  });

  it('reports an answer without the promised shape as INVALID_RESPONSE', async () => {
    const { server, provider } = await setUp();
    server.enqueue({ kind: 'malformed' });
    const err = (await provider.complete({ prompt: 'hi' }).catch((e: unknown) => e)) as LlmProviderError;
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(err.code).toBe('INVALID_RESPONSE');
    expect(err.retryable).toBe(false);
  });

  it('sends nothing for an invalid request', async () => {
    const { server, provider } = await setUp();
    await expect(provider.complete({ prompt: 'hi', temperature: 1.5 })).rejects.toBeInstanceOf(LlmValidationError);
    await expect(provider.complete({ prompt: 'hi', maxTokens: 0 })).rejects.toBeInstanceOf(LlmValidationError);
    expect(server.requests).toHaveLength(0);
  });

  it('reports an unreachable provider as CONNECTION', async () => {
    const { server, config } = await setUp();
    await server.close();
    const p = createProvider({ ...config, timeoutMs: 5000 } as never);
    try {
      const err = (await p.complete({ prompt: 'hi' }).catch((e: unknown) => e)) as LlmProviderError;
      expect(err).toBeInstanceOf(LlmProviderError);
      expect(err.code).toBe('CONNECTION');
      expect(err.retryable).toBe(true);
    } finally {
      await p.close();
    }
  });
});
