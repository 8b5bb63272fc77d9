/**
 * Which provider and model a step calls: its AgentConfig's `spec.llm` when that provider is configured, the
 * default provider for agents without one (coordinators), and the `echo` stand-in (STEWARD_LLM_ECHO) for any
 * agent whose provider is missing, when it is enabled. Otherwise the step cannot run, and the message names the
 * missing provider and the setting that configures it.
 */
import type { LlmRouter } from '../../llm/index.js';
import type { PlanAgent } from './types.js';

export type StepLlm = { provider?: string; model?: string } | { missing: string };

const SETTING: Record<string, string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'aws-bedrock': 'STEWARD_BEDROCK_REGION',
  ollama: 'OLLAMA_HOST',
};

/** @param check false when the agents run elsewhere (remote pool): they know their own providers. */
export function resolveStepLlm(agent: PlanAgent, llm: LlmRouter, check: boolean): StepLlm {
  const wanted = agent.llm?.provider;
  if (!check) return agent.llm ? { provider: agent.llm.provider, model: agent.llm.model } : {};
  if (wanted !== undefined && llm.hasProvider(wanted)) return { provider: wanted, model: agent.llm!.model };
  if (wanted === undefined && llm.hasProvider()) return {};
  const echo = llm.names.find((n) => llm.get(n).type === 'echo');
  if (echo) return { provider: echo };
  if (wanted === undefined) {
    return { missing: 'an LLM provider, and none is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY, STEWARD_BEDROCK_REGION or OLLAMA_HOST (or STEWARD_LLM_ECHO=true for development)' };
  }
  return { missing: `the LLM provider ${wanted}, which is not configured: set ${SETTING[wanted] ?? 'its settings'} (or STEWARD_LLM_ECHO=true for development)` };
}
