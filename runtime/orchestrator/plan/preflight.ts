/**
 * Policy pre-flight: before any step runs, every step (its agent, model and the request) goes through the policy
 * set with `input.surface = "plan"`, in step order. The first block stops the plan: 403 POLICY_VIOLATION naming
 * the policy and the step.
 */
import { A2A_SEND_TOOL } from '../../../api/index.js';
import type { Identity } from '../../auth/identity.js';
import { ApiError } from '../../http/errors.js';
import { PolicyInputTooLargeError } from '../../policy/input-size.js';
import { policyClient, requestTypeOf } from '../../policy/caller.js';
import type { PolicyEvaluator } from '../../policy/types.js';
import type { PlanAgent, PlanStep } from './types.js';

export interface PreflightInput {
  query: string;
  domain: string;
  steps: readonly PlanStep[];
  agents: ReadonlyMap<string, PlanAgent>;
  identity: Identity;
  /** the body's `user`: descriptive, for policies that read it */
  user: Record<string, unknown>;
  context: Record<string, unknown>;
  llmOf: (agent: PlanAgent) => { provider?: string; model?: string };
}

export type PreflightResult =
  { blocked: false; warnings: string[] } | { blocked: true; policy: string; step: PlanStep; reason: string };

export async function preflight(policies: PolicyEvaluator, input: PreflightInput): Promise<PreflightResult> {
  const warnings = new Set<string>();
  for (const step of input.steps) {
    const agent = input.agents.get(step.agent)!;
    const llm = input.llmOf(agent);
    let evaluation;
    try {
      evaluation = await policies.evaluate(
        {
          query: input.query,
          surface: 'plan',
          client_id: input.identity.clientId ?? input.identity.organizationId,
          client: policyClient(input.identity),
          request_type: requestTypeOf('plan'),
          user: input.user,
          context: { ...input.context, plan: { domain: input.domain, step: stepFacts(step) } },
          ...(step.type === 'llm-call'
            ? { llm: { provider: llm.provider ?? 'default', model: llm.model ?? 'default' } }
            : {}),
        },
        { surface: 'plan', tenantId: input.identity.tenantId, organizationId: input.identity.organizationId },
      );
    } catch (err) {
      if (err instanceof PolicyInputTooLargeError) {
        throw new ApiError(
          'plan',
          'INVALID_REQUEST',
          err.message,
          { field: 'query', bytes: err.bytes, max_bytes: err.maxBytes },
          { cause: err },
        );
      }
      throw err;
    }
    for (const w of evaluation.warnings) warnings.add(w);
    if (!evaluation.approved) {
      const reason = evaluation.blockReason ?? 'blocked by policy';
      // NB: the block reason starts with the blocking policy's name; `triggered` lists warning policies too.
      const policy =
        evaluation.triggered.find((p) => reason.startsWith(`${p}:`)) ?? evaluation.triggered[0] ?? 'unknown';
      return { blocked: true, policy, step, reason };
    }
  }
  return { blocked: false, warnings: [...warnings] };
}

/** What policies see of a step: its id, name, type and agent, and the connector and tool (or policy) it names. */
function stepFacts(step: PlanStep): Record<string, unknown> {
  const facts = { id: step.id, name: step.name, type: step.type, agent: step.agent };
  if (step.type === 'connector-call')
    return { ...facts, connector: step.connector, ...(step.tool ? { tool: step.tool } : { operation: 'query' }) };
  if (step.type === 'a2a-call') return { ...facts, connector: step.connector, tool: A2A_SEND_TOOL };
  if (step.type === 'policy-check') return { ...facts, policy: step.policy };
  return facts;
}
