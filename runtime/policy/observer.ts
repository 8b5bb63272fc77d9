import type { PolicyDecisionOutcome, StewardTelemetry } from '../metrics/index.js';
import { guardrailSpans } from '../tracing/index.js';
import type { PlanDecision, PlanResult } from './plan.js';
import type { PolicyEvaluation, PolicyScope } from './types.js';

/** Told of every concluded evaluation (metrics, spans). Called on the request path: cheap, and never throws. */
export interface PolicyObserver {
  concluded(result: PlanResult, evaluation: PolicyEvaluation, scope: PolicyScope): void;
}

/** What one policy did: a failure blocks whatever the action; a deny is blocked, warned or logged by the action. */
export function decisionOutcome(d: PlanDecision): PolicyDecisionOutcome {
  if (d.failure) return 'failed';
  if (!d.blocked) return d.warn.length ? 'warn' : 'allow';
  return d.action === 'block' ? 'deny' : d.action === 'warn' ? 'warn' : 'log';
}

/**
 * `steward_policy_decisions_total` and `steward_policy_evaluation_duration_seconds` from the engine's results, and
 * an `apply_guardrail` span per policy while traces are exported (runtime/tracing).
 */
export function policyObserver(telemetry: StewardTelemetry): PolicyObserver {
  return {
    concluded(result, evaluation, scope) {
      guardrailSpans(result, evaluation, scope);
      telemetry.policyEvaluated(evaluation.approved, result.durationMs / 1000);
      // NB: `evaluated` holds the policy names in decision order (the decisions carry module names).
      for (let i = 0; i < result.decisions.length; i++)
        telemetry.policyDecision(evaluation.evaluated[i]!, decisionOutcome(result.decisions[i]!));
      for (const r of evaluation.results) telemetry.policyResult(r.policy, r.mode, r.decision);
    },
  };
}
