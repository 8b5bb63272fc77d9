import type { LlmSettings } from '../config.js';
import { describeProviderConfig, providerConfigSchema, type ProviderConfigInput } from './config.js';
import { createLlmRouter, type LlmRouter } from './router.js';

/** The providers the environment configures, in a fixed order; the first is the default unless one is named. */
export function providersFromConfig(c: LlmSettings): ProviderConfigInput[] {
  const timeoutMs = c.STEWARD_LLM_TIMEOUT_MS;
  const out: ProviderConfigInput[] = [];
  if (c.OPENAI_API_KEY)
    out.push({
      type: 'openai',
      model: c.STEWARD_OPENAI_MODEL,
      apiKey: c.OPENAI_API_KEY,
      endpoint: c.OPENAI_BASE_URL,
      timeoutMs,
    });
  if (c.ANTHROPIC_API_KEY)
    out.push({
      type: 'anthropic',
      model: c.STEWARD_ANTHROPIC_MODEL,
      apiKey: c.ANTHROPIC_API_KEY,
      endpoint: c.ANTHROPIC_BASE_URL,
      timeoutMs,
    });
  if (c.STEWARD_BEDROCK_REGION)
    out.push({
      type: 'aws-bedrock',
      model: c.STEWARD_BEDROCK_MODEL,
      region: c.STEWARD_BEDROCK_REGION,
      endpoint: c.STEWARD_BEDROCK_ENDPOINT,
      timeoutMs,
    });
  if (c.OLLAMA_HOST) out.push({ type: 'ollama', model: c.STEWARD_OLLAMA_MODEL, endpoint: c.OLLAMA_HOST, timeoutMs });
  if (c.STEWARD_LLM_ECHO) out.push({ type: 'echo', model: 'echo', timeoutMs });
  return out;
}

/** The router of the providers the environment configures, and their descriptions for the start-up log (no secrets). */
export function llmFromSettings(c: LlmSettings): {
  router: LlmRouter;
  described: ReturnType<typeof describeProviderConfig>[];
} {
  const providers = providersFromConfig(c);
  return {
    router: createLlmRouter(
      providers,
      c.STEWARD_LLM_DEFAULT_PROVIDER ? { defaultProvider: c.STEWARD_LLM_DEFAULT_PROVIDER } : {},
    ),
    described: providers.map((p) => describeProviderConfig(providerConfigSchema.parse(p))),
  };
}
