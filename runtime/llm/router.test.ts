import { afterEach, describe, expect, it } from 'vitest';
import { ECHO_NOTICE } from './echo.js';
import { LlmNotConfiguredError, LlmValidationError } from './errors.js';
import { LlmConfigError, createLlmRouter, type LlmRouter } from './router.js';

const openai = (name?: string) => ({
  name,
  type: 'openai' as const,
  model: 'gpt-4o',
  apiKey: 'sk-x',
  endpoint: 'http://127.0.0.1:9/v1',
});
const echo = (name?: string) => ({ name, type: 'echo' as const, model: 'echo-1' });

describe('createLlmRouter', () => {
  let router: LlmRouter | undefined;
  afterEach(async () => router?.close());

  it('uses the first provider as the default unless told otherwise', () => {
    router = createLlmRouter([openai(), echo()]);
    expect(router.defaultName).toBe('openai');
    expect(router.get().name).toBe('openai');
    router = createLlmRouter([openai(), echo()], { defaultProvider: 'echo' });
    expect(router.get().name).toBe('echo');
  });

  it('finds providers by configured name, then by type preferring the default', () => {
    router = createLlmRouter([openai('openai-us'), openai('openai-eu'), echo()], { defaultProvider: 'openai-eu' });
    expect(router.names).toEqual(['openai-us', 'openai-eu', 'echo']);
    expect(router.get('openai-us').name).toBe('openai-us');
    expect(router.get('openai').name).toBe('openai-eu');
    expect(router.hasProvider('openai')).toBe(true);
    expect(router.hasProvider('anthropic')).toBe(false);
  });

  it('throws LlmNotConfiguredError naming what is configured', () => {
    router = createLlmRouter([echo()]);
    expect(() => router!.get('anthropic')).toThrow(LlmNotConfiguredError);
    expect(() => router!.get('anthropic')).toThrow(/configured: echo/);
    const empty = createLlmRouter([]);
    expect(empty.hasProvider()).toBe(false);
    expect(() => empty.get()).toThrow(LlmNotConfiguredError);
  });

  it('rejects duplicate names, an unknown default and invalid entries with LlmConfigError', () => {
    expect(() => createLlmRouter([echo('a'), echo('a')])).toThrow(LlmConfigError);
    expect(() => createLlmRouter([echo()], { defaultProvider: 'nope' })).toThrow(/defaultProvider/);
    let caught: unknown;
    try {
      createLlmRouter([echo(), { type: 'openai', model: 'gpt-4o' }]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LlmConfigError);
    expect((caught as LlmConfigError).issues).toEqual([
      { path: 'providers[1].apiKey', message: 'required for openai' },
    ]);
  });

  it('never puts an API key in a config error message', () => {
    expect(() => createLlmRouter([{ type: 'openai', model: '', apiKey: 'sk-leak-me' }])).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sk-leak-me') }),
    );
  });

  it('routes complete() to the named provider and validates the request', async () => {
    router = createLlmRouter([openai(), echo()]);
    const res = await router.complete({ provider: 'echo', prompt: 'plan a trip' });
    expect(res.provider).toBe('echo');
    await expect(router.complete({ provider: 'echo', prompt: 'x', temperature: 2 })).rejects.toBeInstanceOf(
      LlmValidationError,
    );
    await expect(router.complete({ provider: 'nope', prompt: 'x' })).rejects.toBeInstanceOf(LlmNotConfiguredError);
  });
});

describe('echo provider', () => {
  it('says it is not a model and answers from the prompt', async () => {
    const router = createLlmRouter([echo()]);
    const res = await router.complete({ prompt: 'book a flight to Oslo' });
    expect(res.text.startsWith(ECHO_NOTICE)).toBe(true);
    expect(res.text).toContain('book a flight to Oslo');
    expect(res).toMatchObject({ model: 'echo-1', provider: 'echo', finishReason: 'stop' });
    expect(res.usage.promptTokens).toBe(5);
    expect(res.usage.totalTokens).toBe(res.usage.promptTokens + res.usage.completionTokens);
  });

  it('keeps within maxTokens words and reports length when it cuts', async () => {
    const router = createLlmRouter([echo()]);
    const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const res = await router.complete({ prompt: long, maxTokens: 20 });
    expect(res.finishReason).toBe('length');
    expect(res.usage.completionTokens).toBeLessThanOrEqual(20);
    expect(res.text.split(/\s+/).length).toBeLessThanOrEqual(20);
  });
});
