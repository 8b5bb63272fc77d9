/**
 * Which provider an agent's calls go to: its AgentConfig's `spec.llm` when that provider is configured here; the
 * process's default provider for an agent without one (coordinators); and, when the AgentConfig's provider is not
 * configured, the default provider too (a fallback), unless `spec.llm.fallback: false`. A sample that names
 * `anthropic` thus runs on a machine that only has an OpenAI key, and says so in its results, its audit rows, its
 * start-up log and (cluster mode) its AgentConfig status. Decided here only: the orchestrator's plan and the pool
 * agents read the same answer.
 */
import type { LlmRouter } from './router.js';

/** The provider and model an agent calls. */
export interface AgentLlmRoute {
  /** The configured provider's name. */
  provider: string;
  /** The AgentConfig's model; undefined: the provider's own default model. */
  model?: string;
  /** True when the AgentConfig named a provider that is not configured, and the default answers instead. */
  fallback: boolean;
  /** The provider the AgentConfig named, on a fallback. */
  requested?: string;
}

/** What an AgentConfig's `spec.llm` says of its provider (the fields this decision reads). */
export interface AgentLlmSpec {
  provider: string;
  model?: string;
  /** @default true */
  fallback?: boolean;
}

/** The route, or why the agent has none (the message names the setting that would give it one). */
export type AgentLlmResolution = AgentLlmRoute | { missing: string };

const SETTING: Record<string, string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'aws-bedrock': 'STEWARD_BEDROCK_REGION',
  ollama: 'OLLAMA_HOST',
};

const ANY_PROVIDER =
  'set OPENAI_API_KEY, ANTHROPIC_API_KEY, STEWARD_BEDROCK_REGION or OLLAMA_HOST (or STEWARD_LLM_ECHO=true for development)';

export function routeAgentLlm(
  spec: AgentLlmSpec | undefined,
  router: Pick<LlmRouter, 'hasProvider' | 'get' | 'defaultName'>,
): AgentLlmResolution {
  if (spec !== undefined && router.hasProvider(spec.provider))
    return { provider: router.get(spec.provider).name, model: spec.model, fallback: false };
  const fallbackAllowed = spec?.fallback !== false;
  if (fallbackAllowed && router.defaultName !== undefined) {
    return spec === undefined
      ? { provider: router.defaultName, fallback: false }
      : { provider: router.defaultName, fallback: true, requested: spec.provider };
  }
  if (spec === undefined) return { missing: `an LLM provider, and none is configured: ${ANY_PROVIDER}` };
  const setting = `set ${SETTING[spec.provider] ?? 'its settings'}`;
  return fallbackAllowed
    ? {
        missing: `the LLM provider ${spec.provider}, and no provider is configured: ${setting}, or any provider for a fallback (${ANY_PROVIDER})`,
      }
    : {
        missing: `the LLM provider ${spec.provider}, which is not configured (spec.llm.fallback is false): ${setting}`,
      };
}

/** The start-up warning of an agent that runs on a fallback or has no provider, or undefined when it has its own. */
export function routeWarning(agent: string, route: AgentLlmResolution): string | undefined {
  if ('missing' in route)
    return `agent ${agent} has no LLM provider: its LLM steps fail with PROVIDER_NOT_CONFIGURED until there is ${route.missing}`;
  if (!route.fallback) return undefined;
  return `agent ${agent} names the LLM provider ${route.requested}, which is not configured: it runs on the default provider ${route.provider} (spec.llm.fallback: false makes it fail instead)`;
}
