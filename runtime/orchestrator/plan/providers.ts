/**
 * Which provider a step's agent calls, as the orchestrator can tell before the plan runs. With an in-process pool
 * the agents' router is this process's, so the answer is the agents' own (runtime/llm/agent-route.ts: the
 * AgentConfig's provider, else the default on a fallback); a step that cannot have one fails the plan before
 * anything runs. Remote agents decide for themselves: the orchestrator knows only what the AgentConfig asks.
 */
import { routeAgentLlm, type LlmRouter } from '../../llm/index.js';
import type { PlanAgent } from './types.js';

export type StepLlm = { provider?: string; model?: string; fallback?: boolean } | { missing: string };

/** @param inProcess false when the agents run elsewhere (remote pool): they know their own providers. */
export function resolveStepLlm(agent: PlanAgent, llm: LlmRouter, inProcess: boolean): StepLlm {
  if (!inProcess) return agent.llm ? { provider: agent.llm.provider, model: agent.llm.model } : {};
  return routeAgentLlm(agent.llm, llm);
}
