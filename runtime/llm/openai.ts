import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ProviderConfig } from './config.js';
import { LlmProviderError } from './errors.js';
import { classifyHttpSdkError } from './http-sdk-errors.js';
import { finishFrom, makeProvider, usageOf, type Adapter } from './provider.js';
import type { FinishReason, LlmProvider } from './types.js';

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
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.endpoint ?? OPENAI_DEFAULT_BASE_URL,
    // NB: retries and the deadline are ours (call.ts); explicit nulls stop the SDK reading OPENAI_* variables.
    maxRetries: 0,
    timeout: config.timeoutMs + 1000,
    organization: null,
    project: null,
  });
  const adapter: Adapter = {
    async send(req, signal) {
      const messages: OpenAI.ChatCompletionMessageParam[] = [];
      if (req.system) messages.push({ role: 'system', content: req.system });
      for (const m of req.messages) messages.push({ role: m.role, content: m.content });
      const res = await client.chat.completions.create(
        {
          model: req.model,
          messages,
          temperature: req.temperature,
          // NB: max_tokens is deprecated and refused by reasoning models; max_completion_tokens is the current field.
          max_completion_tokens: req.maxTokens,
        },
        { signal, timeout: req.timeoutMs + 1000, maxRetries: 0 },
      );
      // NB: the SDK hands back a non-JSON body as a string rather than failing.
      const choice = typeof res === 'object' && res !== null && Array.isArray(res.choices) ? res.choices[0] : undefined;
      if (!choice?.message) throw new LlmProviderError(config.name ?? config.type, 'INVALID_RESPONSE', 'the answer has no choices');
      const raw = choice.finish_reason ?? null;
      return {
        text: choice.message.content ?? '',
        model: res.model || req.model,
        usage: usageOf(res.usage?.prompt_tokens, res.usage?.completion_tokens),
        finishReason: choice.message.refusal ? 'content_filter' : finishFrom(raw, FINISH),
        rawFinishReason: raw,
      };
    },
    classify: (provider, err) => classifyHttpSdkError(provider, err, { APIError, APIConnectionError, APIConnectionTimeoutError }),
  };
  return makeProvider(config, adapter);
}
