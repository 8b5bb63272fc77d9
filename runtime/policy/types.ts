import type { PolicySurface } from '../../api/index.js';

/** The input document every policy sees (DESIGN.md, Decision contract). */
export interface PolicyInput {
  query: string;
  surface: PolicySurface;
  client_id?: string;
  user?: Record<string, unknown>;
  context?: Record<string, unknown>;
  mcp?: Record<string, unknown>;
  llm?: Record<string, unknown>;
}

/** The outcome of evaluating every enabled policy in scope, in priority order. */
export interface PolicyEvaluation {
  approved: boolean;
  /** Names of the policies that blocked or warned, in evaluation order. */
  triggered: string[];
  /** The first blocking message, prefixed with its policy name. */
  blockReason?: string;
  warnings: string[];
  /** Policies with action `log` that matched; reported to the log and audit only. */
  logged: string[];
  /** Every policy evaluated for this input, in order (the SDKs' policy_info.policies_evaluated). */
  evaluated: string[];
  evaluationMs: number;
}

export interface PolicyScope {
  surface: PolicySurface;
  tenantId?: string;
}

/** What the gateway, orchestrator and agents call; implemented over the Rego engine in engine.ts. */
export interface PolicyEvaluator {
  evaluate(input: PolicyInput, scope: PolicyScope): PolicyEvaluation;
  /** Names and compile errors of policies that could not be loaded. */
  problems(): readonly { policy: string; message: string }[];
}
