import { callWithDeadline, elapsedMs } from './call.js';
import type { ProviderConfig } from './config.js';
import type { LlmError } from './errors.js';
import type { FinishReason, LlmProvider, LlmResponse, LlmUsage, NormalizedRequest } from './types.js';
import { normalizeRequest } from './validate.js';

/** What an adapter returns for one attempt; the shared wrapper adds provider name and latency. */
export type AdapterResult = Omit<LlmResponse, 'provider' | 'latencyMs'>;

/** The provider-specific part: map a normalised request onto the SDK and its answer back. */
export interface Adapter {
  send(req: NormalizedRequest, signal: AbortSignal): Promise<AdapterResult>;
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
export function finishFrom(raw: string | null | undefined, table: Readonly<Record<string, FinishReason>>): FinishReason {
  return raw && Object.hasOwn(table, raw) ? table[raw]! : 'other';
}
