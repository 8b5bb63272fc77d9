// NB: the SDK's types describe the wire; the SDK itself is not loaded (wire.ts speaks HTTP).
import type Anthropic from '@anthropic-ai/sdk';
import { traceHeaders } from '../tracing/spans.js';
import type { ProviderConfig } from './config.js';
import { LlmProviderError } from './errors.js';
import { argumentsObject, finishFrom, makeProvider, sumOf, unsupported, usageOf, type Adapter } from './provider.js';
import { streamEndedEarly, upstream, type StreamDecoder, type StreamPiece } from './stream.js';
import type { FinishReason, LlmMessage, LlmProvider, NormalizedRequest } from './types.js';
import { blockTurns } from './validate.js';
import { classifyWireError, WireClient } from './wire.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/**
 * The Messages API version Steward speaks (`anthropic-version`), the one the official SDK 1.11 sends. It removed
 * the sampling parameters: any of them is a 400, even at its default, so Steward sends none.
 */
export const ANTHROPIC_API_VERSION = '2026-10-21';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
  tool_use: 'tool_use',
};

/** Anthropic Messages API (`POST {endpoint}/v1/messages`). */
export function createAnthropicProvider(config: ProviderConfig): LlmProvider {
  const name = config.name ?? config.type;
  // NB: retries and the deadline are ours (call.ts); the client's timers are a backstop a second behind.
  const client = new WireClient({
    provider: name,
    baseURL: config.endpoint ?? ANTHROPIC_DEFAULT_BASE_URL,
    headers: { 'anthropic-version': ANTHROPIC_API_VERSION, ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}) },
  });
  const adapter: Adapter = {
    check(req, provider) {
      // Structured output (`output_config.format`) takes a schema only; there is no "any JSON object" mode.
      if (req.responseFormat?.type === 'json_object')
        throw unsupported(provider, 'responseFormat.type', 'json_object (use json_schema)');
    },
    async send(req, signal) {
      const res = (await client.json({
        path: '/v1/messages',
        body: wireRequest(name, req),
        signal,
        timeoutMs: req.timeoutMs + 1000,
        headers: traceHeaders({}),
      })) as Anthropic.Message;
      if (typeof res !== 'object' || res === null || !Array.isArray(res.content)) {
        throw new LlmProviderError(name, 'INVALID_RESPONSE', 'the answer is not a message');
      }
      const text = res.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      const toolCalls = res.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }] : [],
      );
      const u = res.usage;
      // NB: input_tokens excludes cache reads and writes; all three are input the provider processed.
      const promptTokens = sumOf(u?.input_tokens, u?.cache_creation_input_tokens, u?.cache_read_input_tokens);
      const raw = res.stop_reason ?? null;
      return {
        text,
        toolCalls,
        model: res.model || req.model,
        usage: usageOf(promptTokens, u?.output_tokens),
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    async openStream(req, signal) {
      const events = await client.events({
        path: '/v1/messages',
        body: { ...wireRequest(name, req), stream: true },
        signal,
        timeoutMs: req.timeoutMs + 1000,
        headers: traceHeaders({}),
      });
      return upstream(events as AsyncIterable<Anthropic.RawMessageStreamEvent>, eventDecoder(name));
    },
    classify: classifyWireError,
    close: () => client.close(),
  };
  return makeProvider(config, adapter);
}

function wireRequest(provider: string, req: NormalizedRequest): Anthropic.MessageCreateParamsNonStreaming {
  const choice = req.toolChoice;
  const format = req.responseFormat;
  return {
    model: req.model,
    max_tokens: req.maxTokens,
    // NB: no temperature (ANTHROPIC_API_VERSION).
    ...(req.system ? { system: req.system } : {}),
    messages: wireMessages(provider, req.messages),
    ...(req.tools
      ? {
          tools: req.tools.map((t) => ({
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
            input_schema: (t.parameters ?? { type: 'object', properties: {} }) as Anthropic.Tool.InputSchema,
          })),
        }
      : {}),
    ...(choice
      ? {
          tool_choice:
            choice === 'required'
              ? { type: 'any' }
              : choice === 'auto' || choice === 'none'
                ? { type: choice }
                : { type: 'tool', name: choice.name },
        }
      : {}),
    ...(format?.type === 'json_schema'
      ? { output_config: { format: { type: 'json_schema', schema: format.schema } } }
      : {}),
  };
}

/** Our turns as Anthropic content blocks: tool calls are `tool_use` blocks, tool results `tool_result` blocks of a user turn. */
function wireMessages(provider: string, messages: readonly LlmMessage[]): Anthropic.MessageParam[] {
  const toBlocks = (m: LlmMessage): Anthropic.ContentBlockParam[] =>
    m.role === 'tool'
      ? [{ type: 'tool_result', tool_use_id: m.toolCallId!, content: m.content }]
      : [
          ...(m.content !== '' ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({
            type: 'tool_use' as const,
            id: c.id,
            name: c.name,
            input: argumentsObject(provider, c),
          })),
        ];
  const turns = blockTurns(messages, toBlocks, {
    textOf: (b) => (b.type === 'text' ? b.text : undefined),
    text: (text) => ({ type: 'text' as const, text }),
  });
  return turns.map(({ role, content }) => {
    // NB: the API wants a user turn's tool results before its other blocks.
    const ordered =
      role === 'user'
        ? [...content.filter((b) => b.type === 'tool_result'), ...content.filter((b) => b.type !== 'tool_result')]
        : content;
    const only = ordered.length === 1 ? ordered[0] : undefined;
    // A turn of text alone goes as a plain string, as before tools existed.
    return { role, content: only?.type === 'text' ? only.text : ordered };
  });
}

/**
 * Messages stream events: `message_start` (model, input counts), content blocks (`text_delta`; `tool_use` starts
 * then `input_json_delta` partial JSON), `message_delta` (stop reason, cumulative output count), `message_stop`.
 * Tool calls are numbered in their order, apart from the content block index, which counts text blocks too.
 */
function eventDecoder(provider: string): StreamDecoder<Anthropic.RawMessageStreamEvent> {
  let model: string | undefined;
  let raw: string | null | undefined;
  let stopped = false;
  let promptTokens: number | undefined;
  let completionTokens: number | undefined;
  const tools = new Map<number, { index: number; argChars: number }>();
  const input = (u: Partial<Anthropic.MessageDeltaUsage> | undefined) => {
    if (typeof u?.input_tokens === 'number')
      promptTokens = sumOf(u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens);
    if (typeof u?.output_tokens === 'number') completionTokens = u.output_tokens;
  };
  return {
    push(event): StreamPiece[] {
      if (typeof event !== 'object' || event === null)
        throw new LlmProviderError(provider, 'INVALID_RESPONSE', 'a stream event is not JSON');
      switch (event.type) {
        case 'message_start':
          model = event.message?.model;
          input(event.message?.usage ?? undefined);
          return [];
        case 'content_block_start': {
          const block = event.content_block;
          if (block.type === 'text' && block.text) return [{ type: 'text', text: block.text }];
          if (block.type !== 'tool_use') return [];
          const tool = { index: tools.size, argChars: 0 };
          tools.set(event.index, tool);
          return [{ type: 'tool_call', index: tool.index, id: block.id, name: block.name, arguments: '' }];
        }
        case 'content_block_delta': {
          const d = event.delta;
          if (d.type === 'text_delta') return d.text ? [{ type: 'text', text: d.text }] : [];
          const tool = tools.get(event.index);
          if (d.type !== 'input_json_delta' || !tool || !d.partial_json) return [];
          tool.argChars += d.partial_json.length;
          return [{ type: 'tool_call', index: tool.index, arguments: d.partial_json }];
        }
        case 'content_block_stop': {
          const tool = tools.get(event.index);
          // NB: a call without arguments streams no JSON at all; its arguments are the empty object.
          return tool && tool.argChars === 0 ? [{ type: 'tool_call', index: tool.index, arguments: '{}' }] : [];
        }
        case 'message_delta':
          raw = event.delta?.stop_reason ?? raw;
          input(event.usage ?? undefined);
          return [];
        case 'message_stop':
          stopped = true;
          return [];
        default:
          return [];
      }
    },
    end() {
      if (!stopped) throw streamEndedEarly(provider);
      const r = raw ?? null;
      return { model, finishReason: finishFrom(r, FINISH), rawFinishReason: r, promptTokens, completionTokens };
    },
  };
}
