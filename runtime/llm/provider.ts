import { callWithDeadline, elapsedMs } from './call.js';
import type { ProviderConfig } from './config.js';
import { LlmValidationError, type LlmError } from './errors.js';
import { openStream, type UpstreamStream } from './stream.js';
import type { FinishReason, LlmProvider, LlmResponse, LlmUsage, NormalizedRequest } from './types.js';
import { normalizeRequest } from './validate.js';

/** What an adapter returns for one attempt; the shared wrapper adds provider name and latency. */
export type AdapterResult = Omit<LlmResponse, 'provider' | 'latencyMs'>;

/** The provider-specific part: map a normalised request onto the SDK and its answer back. */
export interface Adapter {
  /** Refuses, with LlmValidationError, what the provider cannot do (tools, response formats), before anything is sent. */
  check?(req: NormalizedRequest, provider: string): void;
  send(req: NormalizedRequest, signal: AbortSignal): Promise<AdapterResult>;
  /** Sends a streamed request; resolves once the provider accepted it. `signal` aborts it for its whole life. */
  openStream(req: NormalizedRequest, signal: AbortSignal): Promise<UpstreamStream>;
  classify(provider: string, err: unknown): LlmError;
  close?(): Promise<void>;
}

/** Wraps an adapter with validation, the deadline, retries and latency measurement. */
export function makeProvider(config: ProviderConfig, adapter: Adapter): LlmProvider {
  const name = config.name ?? config.type;
  return {
    name,
    type: config.type,
    defaultModel: config.model,
    async complete(request) {
      const req = normalizeRequest(request, { model: config.model, timeoutMs: config.timeoutMs });
      adapter.check?.(req, name);
      const startedAt = performance.now();
      const out = await callWithDeadline(
        {
          provider: name,
          timeoutMs: req.timeoutMs,
          maxRetries: config.maxRetries,
          signal: request.signal,
          classify: (err) => adapter.classify(name, err),
        },
        (signal) => adapter.send(req, signal),
      );
      return { ...out, provider: name, latencyMs: elapsedMs(startedAt) };
    },
    async stream(request) {
      const req = normalizeRequest(request, { model: config.model, timeoutMs: config.timeoutMs });
      adapter.check?.(req, name);
      return openStream({
        provider: name,
        req,
        maxRetries: config.maxRetries,
        signal: request.signal,
        classify: (err) => adapter.classify(name, err),
        open: (signal) => adapter.openStream(req, signal),
      });
    },
    close: () => adapter.close?.() ?? Promise.resolve(),
  };
}

/** Usage from provider counters; absent or malformed counters count as 0 rather than poisoning totals. */
export function usageOf(promptTokens: unknown, completionTokens: unknown): LlmUsage {
  const p = count(promptTokens);
  const c = count(completionTokens);
  return { promptTokens: p, completionTokens: c, totalTokens: p + c };
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/** Sums optional counters (for example cached input tokens reported apart from the rest). */
export function sumOf(...values: unknown[]): number {
  let total = 0;
  for (const v of values) total += count(v);
  return total;
}

/** Maps a provider's stop word to ours; unknown words are `other` (the raw word is kept beside it). */
export function finishFrom(
  raw: string | null | undefined,
  table: Readonly<Record<string, FinishReason>>,
): FinishReason {
  return raw && Object.hasOwn(table, raw) ? table[raw]! : 'other';
}

/** The refusal of a feature a provider lacks; `field` names the request field that asked for it. */
export function unsupported(provider: string, field: string, what: string): LlmValidationError {
  return new LlmValidationError(field, `${what} is not supported by provider ${provider}`);
}

/** Parses a tool call's JSON arguments for providers that take an object (Anthropic, Bedrock, Ollama). */
export function argumentsObject(provider: string, call: { id: string; arguments: string }): Record<string, unknown> {
  if (call.arguments.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new LlmValidationError(`toolCalls[${call.id}].arguments`, `must be a JSON object for provider ${provider}`);
  }
  return parsed as Record<string, unknown>;
}
