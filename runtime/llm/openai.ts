// NB: the SDK's types describe the wire; the SDK itself is not loaded (wire.ts speaks HTTP).
import type OpenAI from 'openai';
import { traceHeaders } from '../tracing/spans.js';
import type { ProviderConfig } from './config.js';
import { LlmProviderError } from './errors.js';
import { finishFrom, makeProvider, usageOf, type Adapter } from './provider.js';
import { streamEndedEarly, upstream, type StreamDecoder, type StreamEnd, type StreamPiece } from './stream.js';
import type { FinishReason, LlmProvider, LlmToolCall, NormalizedRequest } from './types.js';
import { classifyWireError, WireClient } from './wire.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
};

/** OpenAI Chat Completions (`POST {endpoint}/chat/completions`), also any server that speaks it. */
export function createOpenAiProvider(config: ProviderConfig): LlmProvider {
  const name = config.name ?? config.type;
  // NB: retries and the deadline are ours (call.ts); the client's timers are a backstop a second behind.
  const client = new WireClient({
    provider: name,
    baseURL: config.endpoint ?? OPENAI_DEFAULT_BASE_URL,
    headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
  });
  const adapter: Adapter = {
    async send(req, signal) {
      const res = (await client.json({
        path: '/chat/completions',
        body: wireRequest(req),
        signal,
        timeoutMs: req.timeoutMs + 1000,
        headers: traceHeaders({}),
      })) as OpenAI.ChatCompletion;
      const choice = typeof res === 'object' && res !== null && Array.isArray(res.choices) ? res.choices[0] : undefined;
      if (!choice?.message) throw new LlmProviderError(name, 'INVALID_RESPONSE', 'the answer has no choices');
      const raw = choice.finish_reason ?? null;
      const toolCalls: LlmToolCall[] = (choice.message.tool_calls ?? []).flatMap((c) =>
        c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
      );
      return {
        text: choice.message.content ?? '',
        toolCalls,
        model: res.model || req.model,
        usage: usageOf(res.usage?.prompt_tokens, res.usage?.completion_tokens),
        finishReason: choice.message.refusal ? 'content_filter' : finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    async openStream(req, signal) {
      const chunks = await client.events({
        path: '/chat/completions',
        body: { ...wireRequest(req), stream: true, stream_options: { include_usage: true } },
        signal,
        timeoutMs: req.timeoutMs + 1000,
        headers: traceHeaders({}),
      });
      return upstream(chunks as AsyncIterable<OpenAI.ChatCompletionChunk>, chunkDecoder(name));
    },
    classify: classifyWireError,
    close: () => client.close(),
  };
  return makeProvider(config, adapter);
}

function wireRequest(req: NormalizedRequest): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.ChatCompletionMessageParam[] = [];
  if (req.system) messages.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    if (m.role === 'tool') messages.push({ role: 'tool', tool_call_id: m.toolCallId!, content: m.content });
    else if (m.role === 'assistant' && m.toolCalls?.length) {
      messages.push({
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      });
    } else messages.push({ role: m.role as 'user' | 'assistant', content: m.content });
  }
  const choice = req.toolChoice;
  const format = req.responseFormat;
  return {
    model: req.model,
    messages,
    temperature: req.temperature,
    // NB: max_tokens is deprecated and refused by reasoning models; max_completion_tokens is the current field.
    max_completion_tokens: req.maxTokens,
    ...(req.tools
      ? {
          tools: req.tools.map((t) => ({
            type: 'function' as const,
            function: {
              name: t.name,
              ...(t.description !== undefined ? { description: t.description } : {}),
              ...(t.parameters ? { parameters: t.parameters } : {}),
            },
          })),
        }
      : {}),
    ...(choice
      ? { tool_choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } } }
      : {}),
    ...(format?.type === 'json_object' ? { response_format: { type: 'json_object' } } : {}),
    ...(format?.type === 'json_schema'
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: {
              name: format.name,
              schema: format.schema,
              ...(format.strict !== undefined ? { strict: format.strict } : {}),
            },
          },
        }
      : {}),
  };
}

/**
 * Chat completion chunks: `delta.content` is text, `delta.tool_calls[i]` carries id and name on its first
 * delta and argument text after; with `include_usage` a last chunk without choices carries the counts.
 */
function chunkDecoder(provider: string): StreamDecoder<OpenAI.ChatCompletionChunk> {
  let model: string | undefined;
  let raw: string | null | undefined;
  let refused = false;
  let usage: OpenAI.CompletionUsage | undefined;
  const started = new Set<number>();
  return {
    push(chunk) {
      if (typeof chunk !== 'object' || chunk === null)
        throw new LlmProviderError(provider, 'INVALID_RESPONSE', 'a stream chunk is not JSON');
      model ||= chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) return [];
      if (choice.finish_reason) raw = choice.finish_reason;
      const delta = choice.delta ?? {};
      if (delta.refusal) refused = true;
      const out: StreamPiece[] = [];
      if (delta.content) out.push({ type: 'text', text: delta.content });
      for (const call of delta.tool_calls ?? []) {
        const args = call.function?.arguments ?? '';
        if (!started.has(call.index)) {
          started.add(call.index);
          out.push({
            type: 'tool_call',
            index: call.index,
            id: call.id ?? `call_${call.index}`,
            name: call.function?.name ?? '',
            arguments: args,
          });
        } else if (args) out.push({ type: 'tool_call', index: call.index, arguments: args });
      }
      return out;
    },
    end(): StreamEnd {
      if (raw === undefined) throw streamEndedEarly(provider);
      return {
        model,
        finishReason: refused ? 'content_filter' : finishFrom(raw, FINISH),
        rawFinishReason: raw,
        promptTokens: usage?.prompt_tokens,
        completionTokens: usage?.completion_tokens,
      };
    },
  };
}
