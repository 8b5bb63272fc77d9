import { randomUUID } from 'node:crypto';
import { traceHeaders } from '../tracing/spans.js';
import { Ollama, type ChatRequest, type ChatResponse, type Message, type ToolCall } from 'ollama';
import { isConnectionFailure } from './call.js';
import type { ProviderConfig } from './config.js';
import { LlmProviderError, codeForStatus, parseRetryAfterSec, type LlmError } from './errors.js';
import { argumentsObject, finishFrom, makeProvider, unsupported, usageOf, type Adapter } from './provider.js';
import { streamEndedEarly, upstream, type StreamDecoder, type StreamPiece } from './stream.js';
import type { FinishReason, LlmProvider, LlmToolCall, NormalizedRequest } from './types.js';

export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length' };

/**
 * Ollama chat (`POST {endpoint}/api/chat`), non-streamed or NDJSON-streamed. Tools are offered as such, but
 * Ollama cannot be made to call one (`toolChoice` required or a name is refused) and its calls carry no id,
 * so Steward gives each a fresh one. `toolChoice: 'none'` leaves the tools out of the request.
 */
export function createOllamaProvider(config: ProviderConfig): LlmProvider {
  const name = config.name ?? config.type;
  const host = config.endpoint ?? OLLAMA_DEFAULT_HOST;
  const headers = config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : undefined;
  /**
   * NB: the SDK passes no signal on non-streamed calls and its own on streamed ones; a client per call whose
   * fetch carries ours is how the deadline reaches the socket. Construction is a few property writes.
   * It also keeps the answer's Retry-After, which the SDK's ResponseError drops.
   */
  const clientFor = (signal: AbortSignal) => {
    const seen = { retryAfter: null as string | null };
    const client = new Ollama({
      host,
      headers,
      fetch: async (input, init) => {
        const answer = await fetch(input, {
          ...init,
          headers: withTrace(init?.headers),
          signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
        });
        seen.retryAfter = answer.headers.get('retry-after');
        return answer;
      },
    });
    return { client, failed: (err: unknown) => classifyOllamaError(name, err, parseRetryAfterSec(seen.retryAfter)) };
  };
  const adapter: Adapter = {
    check(req, provider) {
      if (req.toolChoice === 'required' || typeof req.toolChoice === 'object') {
        throw unsupported(provider, 'toolChoice', 'forcing a tool call');
      }
    },
    async send(req, signal) {
      const { client, failed } = clientFor(signal);
      const res = await client.chat({ ...wireRequest(name, req), stream: false }).catch((err: unknown) => {
        throw failed(err);
      });
      if (typeof res !== 'object' || res === null || typeof res.message?.content !== 'string') {
        throw new LlmProviderError(name, 'INVALID_RESPONSE', 'the answer has no message');
      }
      const raw = res.done_reason ?? null;
      return {
        text: res.message.content,
        toolCalls: (res.message.tool_calls ?? []).map(toolCallOf),
        model: res.model || req.model,
        // NB: Ollama omits prompt_eval_count when the whole prompt came from its cache; that counts as 0.
        usage: usageOf(res.prompt_eval_count, res.eval_count),
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    async openStream(req, signal) {
      const { client, failed } = clientFor(signal);
      const chunks = await client.chat({ ...wireRequest(name, req), stream: true }).catch((err: unknown) => {
        throw failed(err);
      });
      return upstream(chunks, chunkDecoder(name));
    },
    classify: (provider, err) => classifyOllamaError(provider, err),
  };
  return makeProvider(config, adapter);
}

function wireRequest(provider: string, req: NormalizedRequest): ChatRequest {
  // Ollama answers a tool result by the tool's name, not by a call id.
  const toolNames = new Map(req.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => [c.id, c.name] as const)));
  const messages: Message[] = req.system ? [{ role: 'system', content: req.system }] : [];
  for (const m of req.messages) {
    if (m.role === 'tool') {
      const toolName = toolNames.get(m.toolCallId!);
      messages.push({ role: 'tool', content: m.content, ...(toolName ? { tool_name: toolName } : {}) });
    } else if (m.toolCalls?.length) {
      messages.push({
        role: m.role,
        content: m.content,
        tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: argumentsObject(provider, c) } })),
      });
    } else messages.push({ role: m.role, content: m.content });
  }
  const format = req.responseFormat;
  return {
    model: req.model,
    messages,
    options: { temperature: req.temperature, num_predict: req.maxTokens },
    ...(req.tools && req.toolChoice !== 'none'
      ? {
          tools: req.tools.map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.parameters as never },
          })),
        }
      : {}),
    ...(format ? { format: format.type === 'json_object' ? 'json' : format.schema } : {}),
  };
}

function toolCallOf(call: ToolCall): LlmToolCall {
  // NB: newer Ollama versions send an id; older ones none, so the call gets one here.
  const id = (call as { id?: unknown }).id;
  return {
    id: typeof id === 'string' && id ? id : `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    name: call.function.name,
    arguments: JSON.stringify(call.function.arguments ?? {}),
  };
}

/** NDJSON chat chunks: message text, whole tool calls (never split), then a `done` chunk with the counts. */
function chunkDecoder(provider: string): StreamDecoder<ChatResponse> {
  let last: ChatResponse | undefined;
  let calls = 0;
  return {
    push(chunk) {
      if (typeof chunk !== 'object' || chunk === null)
        throw new LlmProviderError(provider, 'INVALID_RESPONSE', 'a stream line is not JSON');
      if (chunk.done) last = chunk;
      const out: StreamPiece[] = [];
      const text = chunk.message?.content;
      if (typeof text === 'string' && text) out.push({ type: 'text', text });
      for (const c of chunk.message?.tool_calls ?? [])
        out.push({ type: 'tool_call', index: calls++, ...toolCallOf(c) });
      return out;
    },
    end() {
      if (!last) throw streamEndedEarly(provider);
      const raw = last.done_reason ?? null;
      return {
        model: last.model,
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
        // NB: as in complete(), a prompt served from Ollama's cache has no prompt_eval_count; that is 0, not unknown.
        promptTokens: typeof last.eval_count === 'number' ? (last.prompt_eval_count ?? 0) : undefined,
        completionTokens: last.eval_count,
      };
    },
  };
}

function classifyOllamaError(provider: string, err: unknown, retryAfterSec?: number): LlmError {
  if (err instanceof LlmProviderError) return err;
  // The SDK's ResponseError is not exported; it is recognised by its name and status field.
  const e = err as { name?: string; status_code?: unknown; message?: string };
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number') {
    return new LlmProviderError(
      provider,
      codeForStatus(e.status_code),
      `provider answered ${e.status_code}: ${e.message}`,
      {
        status: e.status_code,
        retryAfterSec,
        cause: err,
      },
    );
  }
  if (isConnectionFailure(err))
    return new LlmProviderError(provider, 'CONNECTION', 'provider could not be reached', { cause: err });
  if (err instanceof SyntaxError)
    return new LlmProviderError(provider, 'INVALID_RESPONSE', 'the answer is not JSON', { cause: err });
  return new LlmProviderError(provider, 'UNKNOWN', `unexpected failure: ${e?.message ?? String(err)}`, { cause: err });
}

/** The request's headers with the active trace context added (runtime/tracing). */
function withTrace(headers: ConstructorParameters<typeof Headers>[0]): ConstructorParameters<typeof Headers>[0] {
  const trace = traceHeaders<Record<string, string>>({});
  if (trace.traceparent === undefined) return headers;
  const out = new Headers(headers);
  for (const [k, v] of Object.entries(trace)) out.set(k, v);
  return out;
}
