import type { LlmSettings } from '../config.js';
import type { ProviderConfigInput } from '../llm/index.js';

/** The providers the environment configures, in a fixed order; the first is the default unless one is named. */
export function providersFromConfig(c: LlmSettings): ProviderConfigInput[] {
  const timeoutMs = c.STEWARD_LLM_TIMEOUT_MS;
  const out: ProviderConfigInput[] = [];
  if (c.OPENAI_API_KEY) out.push({ type: 'openai', model: c.STEWARD_OPENAI_MODEL, apiKey: c.OPENAI_API_KEY, endpoint: c.OPENAI_BASE_URL, timeoutMs });
  if (c.ANTHROPIC_API_KEY) out.push({ type: 'anthropic', model: c.STEWARD_ANTHROPIC_MODEL, apiKey: c.ANTHROPIC_API_KEY, endpoint: c.ANTHROPIC_BASE_URL, timeoutMs });
  if (c.STEWARD_BEDROCK_REGION) out.push({ type: 'aws-bedrock', model: c.STEWARD_BEDROCK_MODEL, region: c.STEWARD_BEDROCK_REGION, endpoint: c.STEWARD_BEDROCK_ENDPOINT, timeoutMs });
  if (c.OLLAMA_HOST) out.push({ type: 'ollama', model: c.STEWARD_OLLAMA_MODEL, endpoint: c.OLLAMA_HOST, timeoutMs });
  if (c.STEWARD_LLM_ECHO) out.push({ type: 'echo', model: 'echo', timeoutMs });
  return out;
}
