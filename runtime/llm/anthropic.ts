import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { ProviderConfig } from './config.js';
import { LlmProviderError } from './errors.js';
import { classifyHttpSdkError } from './http-sdk-errors.js';
import { finishFrom, makeProvider, sumOf, usageOf, type Adapter } from './provider.js';
import type { FinishReason, LlmProvider } from './types.js';
import { mergeConsecutiveTurns } from './validate.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

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
  const client = new Anthropic({
    apiKey: config.apiKey,
    // NB: an explicit base URL keeps the SDK from reading ANTHROPIC_BASE_URL; retries and deadline are ours.
    baseURL: config.endpoint ?? ANTHROPIC_DEFAULT_BASE_URL,
    maxRetries: 0,
    timeout: config.timeoutMs + 1000,
  });
  const adapter: Adapter = {
    async send(req, signal) {
      const res = await client.messages.create(
        {
          model: req.model,
          max_tokens: req.maxTokens,
          // NB: no temperature. API version 2026-10-21, which this SDK sends, answers 400 to any sampling
          // parameter (temperature, top_p, top_k), even at its default; the SDK type no longer has the field.
          ...(req.system ? { system: req.system } : {}),
          messages: mergeConsecutiveTurns(req.messages).map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
        },
        // NB: an explicit timeout also skips the SDK's "streaming required" guard for large max_tokens.
        { signal, timeout: req.timeoutMs + 1000, maxRetries: 0 },
      );
      // NB: the SDK hands back a non-JSON body as a string rather than failing.
      if (typeof res !== 'object' || res === null || !Array.isArray(res.content)) {
        throw new LlmProviderError(config.name ?? config.type, 'INVALID_RESPONSE', 'the answer is not a message');
      }
      const text = res.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      const u = res.usage;
      // NB: input_tokens excludes cache reads and writes; all three are input the provider processed.
      const promptTokens = sumOf(u?.input_tokens, u?.cache_creation_input_tokens, u?.cache_read_input_tokens);
      const raw = res.stop_reason ?? null;
      return {
        text,
        model: res.model || req.model,
        usage: usageOf(promptTokens, u?.output_tokens),
        finishReason: finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    classify: (provider, err) => classifyHttpSdkError(provider, err, { APIError, APIConnectionError, APIConnectionTimeoutError }),
  };
  return makeProvider(config, adapter);
}
