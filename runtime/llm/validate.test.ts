import { describe, expect, it } from 'vitest';
import { LlmValidationError } from './errors.js';
import type { LlmMessage, LlmRequest } from './types.js';
import { MAX_MESSAGES, MAX_TOOLS, blockTurns, normalizeRequest } from './validate.js';

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

  it('keeps tools, tool choice, tool turns and a JSON format; an assistant turn that only calls tools may be empty', () => {
    const n = normalize({
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
        },
        { role: 'tool', content: 'rain', toolCallId: 'c1' },
      ],
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      toolChoice: { name: 'get_weather' },
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
    });
    expect(n.messages[1]).toEqual({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
    });
    expect(n.messages[2]).toEqual({ role: 'tool', content: 'rain', toolCallId: 'c1' });
    expect(n.tools).toEqual([{ name: 'get_weather', parameters: { type: 'object' } }]);
    expect(n.toolChoice).toEqual({ name: 'get_weather' });
    expect(n.responseFormat).toEqual({ type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true });
  });

  it('leaves out a text response format and a tool choice without tools', () => {
    const n = normalize({ prompt: 'x', responseFormat: { type: 'text' }, toolChoice: 'none', tools: [] });
    expect(n).not.toHaveProperty('responseFormat');
    expect(n).not.toHaveProperty('toolChoice');
    expect(n).not.toHaveProperty('tools');
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
    {
      name: 'both prompt and messages',
      req: { prompt: 'x', messages: [{ role: 'user', content: 'y' }] },
      field: 'prompt',
    },
    { name: 'an empty prompt', req: { prompt: '   ' }, field: 'prompt' },
    { name: 'messages that are not an array', req: { messages: 'hi' }, field: 'messages' },
    { name: 'an unknown role', req: { messages: [{ role: 'developer', content: 'x' }] }, field: 'messages[0].role' },
    { name: 'empty content', req: { messages: [{ role: 'user', content: '' }] }, field: 'messages[0].content' },
    { name: 'a message that is not an object', req: { messages: [null] }, field: 'messages[0]' },
    { name: 'only system messages', req: { messages: [{ role: 'system', content: 'x' }] }, field: 'messages' },
    { name: 'only assistant messages', req: { messages: [{ role: 'assistant', content: 'x' }] }, field: 'messages' },
    { name: 'a system that is not a string', req: { prompt: 'x', system: 3 }, field: 'system' },
    {
      name: 'too many messages',
      req: { messages: Array.from({ length: MAX_MESSAGES + 1 }, () => ({ role: 'user', content: 'x' })) },
      field: 'messages',
    },
    { name: 'a request that is not an object', req: null, field: 'request' },
    { name: 'tools that are not an array', req: { prompt: 'x', tools: {} }, field: 'tools' },
    {
      name: 'a tool name with a space',
      req: { prompt: 'x', tools: [{ name: 'get weather' }] },
      field: 'tools[0].name',
    },
    {
      name: 'a 65-character tool name',
      req: { prompt: 'x', tools: [{ name: 'a'.repeat(65) }] },
      field: 'tools[0].name',
    },
    {
      name: 'two tools of one name',
      req: { prompt: 'x', tools: [{ name: 't' }, { name: 't' }] },
      field: 'tools[1].name',
    },
    {
      name: 'more than 128 tools',
      req: { prompt: 'x', tools: Array.from({ length: MAX_TOOLS + 1 }, (_, i) => ({ name: `t${i}` })) },
      field: 'tools',
    },
    {
      name: 'parameters that are not an object',
      req: { prompt: 'x', tools: [{ name: 't', parameters: 'string' }] },
      field: 'tools[0].parameters',
    },
    {
      name: 'a toolChoice naming no offered tool',
      req: { prompt: 'x', tools: [{ name: 't' }], toolChoice: { name: 'u' } },
      field: 'toolChoice.name',
    },
    { name: 'toolChoice required without tools', req: { prompt: 'x', toolChoice: 'required' }, field: 'toolChoice' },
    {
      name: 'an unknown toolChoice',
      req: { prompt: 'x', tools: [{ name: 't' }], toolChoice: 'any' },
      field: 'toolChoice',
    },
    {
      name: 'a tool message without toolCallId',
      req: {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'tool', content: 'r' },
        ],
      },
      field: 'messages[1].toolCallId',
    },
    {
      name: 'tool calls on a user message',
      req: { messages: [{ role: 'user', content: 'q', toolCalls: [{ id: '1', name: 't', arguments: '{}' }] }] },
      field: 'messages[0].toolCalls',
    },
    {
      name: 'a tool call with a bad name',
      req: {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 'a b', arguments: '{}' }] },
        ],
      },
      field: 'messages[1].toolCalls[0].name',
    },
    {
      name: 'tool call arguments that are not a string',
      req: {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 't', arguments: {} }] },
        ],
      },
      field: 'messages[1].toolCalls[0].arguments',
    },
    {
      name: 'an empty assistant message without tool calls',
      req: {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '' },
        ],
      },
      field: 'messages[1].content',
    },
    {
      name: 'an unknown response format',
      req: { prompt: 'x', responseFormat: { type: 'xml' } },
      field: 'responseFormat.type',
    },
    {
      name: 'a json_schema format without a schema',
      req: { prompt: 'x', responseFormat: { type: 'json_schema', name: 'answer' } },
      field: 'responseFormat.schema',
    },
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

describe('blockTurns', () => {
  const asText = (m: LlmMessage) => [m.role === 'tool' ? `result:${m.content}` : m.content];
  const blocks = { textOf: (b: string) => (b.startsWith('result:') ? undefined : b), text: (t: string) => t };

  it('joins consecutive turns of one role and leaves alternating turns alone', () => {
    const messages: LlmMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'c' },
      { role: 'user', content: 'd' },
    ];
    expect(blockTurns(messages, asText, blocks)).toEqual([
      { role: 'user', content: ['a\n\nb'] },
      { role: 'assistant', content: ['c'] },
      { role: 'user', content: ['d'] },
    ]);
  });

  it('puts consecutive tool results into one user turn, without joining them as text', () => {
    const messages: LlmMessage[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: '1', name: 't', arguments: '{}' },
          { id: '2', name: 't', arguments: '{}' },
        ],
      },
      { role: 'tool', content: 'x', toolCallId: '1' },
      { role: 'tool', content: 'y', toolCallId: '2' },
    ];
    expect(blockTurns(messages, asText, blocks)[2]).toEqual({ role: 'user', content: ['result:x', 'result:y'] });
  });

  it('does not modify its input', () => {
    const input: LlmMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ];
    blockTurns(input, asText, blocks);
    expect(input[0]!.content).toBe('a');
  });
});
