import { describe, expect, it } from 'vitest';
import { LlmValidationError } from './errors.js';
import type { LlmRequest } from './types.js';
import { MAX_MESSAGES, mergeConsecutiveTurns, normalizeRequest } from './validate.js';

const defaults = { model: 'gpt-4o', timeoutMs: 30_000 };
const normalize = (req: unknown) => normalizeRequest(req as LlmRequest, defaults);

describe('normalizeRequest', () => {
  it('fills the reference defaults: temperature 0.7, max tokens 500, the configured model and timeout', () => {
    expect(normalize({ prompt: 'hi' })).toEqual({
      model: 'gpt-4o',
      system: null,
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.7,
      maxTokens: 500,
      timeoutMs: 30_000,
    });
  });

  it('accepts the bounds of the temperature range', () => {
    expect(normalize({ prompt: 'hi', temperature: 0 }).temperature).toBe(0);
    expect(normalize({ prompt: 'hi', temperature: 1 }).temperature).toBe(1);
  });

  it('gathers system text from `system` and system-role messages, in that order', () => {
    const n = normalize({
      system: 'first',
      messages: [
        { role: 'system', content: 'second' },
        { role: 'user', content: 'q' },
      ],
    });
    expect(n.system).toBe('first\n\nsecond');
    expect(n.messages).toEqual([{ role: 'user', content: 'q' }]);
  });

  it.each([
    { name: 'temperature above 1', req: { prompt: 'x', temperature: 1.01 }, field: 'temperature' },
    { name: 'negative temperature', req: { prompt: 'x', temperature: -0.1 }, field: 'temperature' },
    { name: 'temperature as a string', req: { prompt: 'x', temperature: '0.5' }, field: 'temperature' },
    { name: 'NaN temperature', req: { prompt: 'x', temperature: Number.NaN }, field: 'temperature' },
    { name: 'max tokens 0', req: { prompt: 'x', maxTokens: 0 }, field: 'max_tokens' },
    { name: 'fractional max tokens', req: { prompt: 'x', maxTokens: 10.5 }, field: 'max_tokens' },
    { name: 'infinite max tokens', req: { prompt: 'x', maxTokens: Number.POSITIVE_INFINITY }, field: 'max_tokens' },
    { name: 'a 0 ms timeout', req: { prompt: 'x', timeoutMs: 0 }, field: 'timeoutMs' },
    { name: 'an empty model', req: { prompt: 'x', model: ' ' }, field: 'model' },
    { name: 'neither prompt nor messages', req: {}, field: 'prompt' },
    { name: 'both prompt and messages', req: { prompt: 'x', messages: [{ role: 'user', content: 'y' }] }, field: 'prompt' },
    { name: 'an empty prompt', req: { prompt: '   ' }, field: 'prompt' },
    { name: 'messages that are not an array', req: { messages: 'hi' }, field: 'messages' },
    { name: 'an unknown role', req: { messages: [{ role: 'tool', content: 'x' }] }, field: 'messages[0].role' },
    { name: 'empty content', req: { messages: [{ role: 'user', content: '' }] }, field: 'messages[0].content' },
    { name: 'a message that is not an object', req: { messages: [null] }, field: 'messages[0]' },
    { name: 'only system messages', req: { messages: [{ role: 'system', content: 'x' }] }, field: 'messages' },
    { name: 'only assistant messages', req: { messages: [{ role: 'assistant', content: 'x' }] }, field: 'messages' },
    { name: 'a system that is not a string', req: { prompt: 'x', system: 3 }, field: 'system' },
    { name: 'too many messages', req: { messages: Array.from({ length: MAX_MESSAGES + 1 }, () => ({ role: 'user', content: 'x' })) }, field: 'messages' },
    { name: 'a request that is not an object', req: null, field: 'request' },
  ])('rejects $name naming the field $field', ({ req, field }) => {
    let caught: unknown;
    try {
      normalize(req);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LlmValidationError);
    expect((caught as LlmValidationError).field).toBe(field);
    expect((caught as LlmValidationError).code).toBe('INVALID_REQUEST');
  });
});

describe('mergeConsecutiveTurns', () => {
  it('joins consecutive turns of one role and leaves alternating turns alone', () => {
    expect(
      mergeConsecutiveTurns([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
        { role: 'user', content: 'd' },
      ]),
    ).toEqual([
      { role: 'user', content: 'a\n\nb' },
      { role: 'assistant', content: 'c' },
      { role: 'user', content: 'd' },
    ]);
  });

  it('does not modify its input', () => {
    const input = [
      { role: 'user' as const, content: 'a' },
      { role: 'user' as const, content: 'b' },
    ];
    mergeConsecutiveTurns(input);
    expect(input[0]!.content).toBe('a');
  });
});
