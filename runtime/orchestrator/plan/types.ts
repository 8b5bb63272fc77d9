/**
 * The plan surface's vocabulary: the agents a planner may use, a plan's steps, and what running a step produced.
 * Pure types and limits; no I/O.
 */
import type { AgentLlmRoute } from '../../llm/index.js';

export type ExecutionMode = 'sequential' | 'parallel' | 'auto';

/** Which planner made a plan (`metadata.planner`). */
export type PlannerKind = 'llm' | 'llm-repaired' | 'deterministic';

/**
 * What a step does: call its agent's LLM, call a connector through the gateway, message a remote A2A agent (an `a2a`
 * connector, through the same path), or ask the policy engine.
 */
export type StepType = 'llm-call' | 'connector-call' | 'a2a-call' | 'policy-check';

/** What every step has. `depends_on` names the ids of the steps whose outputs it needs. */
interface StepBase {
  id: string;
  name: string;
  description: string;
  depends_on: string[];
  /** the AgentConfig's name (`namespace/name` outside the default namespace): the step's owner; its LLM for llm-call */
  agent: string;
}

export interface LlmStep extends StepBase {
  type: 'llm-call';
}

/** A governed connector call: a tool with its arguments, or an SQL query (`query.statement`, `arguments` its params). */
export interface ConnectorStep extends StepBase {
  type: 'connector-call';
  connector: string;
  tool?: string;
  query?: { statement: string };
  arguments: Record<string, unknown> | unknown[];
}

/**
 * A message to a remote A2A agent: the `a2a` connector's `send_message` through the gateway's governed connector
 * path (input policies on the message, output redaction on the answer, audit), waiting for the agent's task.
 */
export interface A2aStep extends StepBase {
  type: 'a2a-call';
  connector: string;
  /** The text; absent: the step's description with the plan's request and the outputs of the steps it depends on. */
  message?: string;
  data?: Record<string, unknown>;
}

/** The fields of a policy input a policy-check step may set; `surface` and `client_id` are the orchestrator's. */
export interface PolicyStepInput {
  query?: string;
  user?: Record<string, unknown>;
  context?: Record<string, unknown>;
  mcp?: Record<string, unknown>;
  llm?: Record<string, unknown>;
}

/** One named policy's decision on `input` (surface `plan`). */
export interface PolicyStep extends StepBase {
  type: 'policy-check';
  policy: string;
  input: PolicyStepInput;
}

/** A step as the reference shows it, plus the fields of its type. */
export type PlanStep = LlmStep | ConnectorStep | A2aStep | PolicyStep;

/** A step the validation refused because its type's fields are missing (INVALID_REQUEST, details `{step, fields}`). */
export interface StepRefusal {
  code: 'INVALID_REQUEST';
  message: string;
  details: { step: string; type: StepType; fields: string[] };
}

export interface Plan {
  domain: string;
  steps: PlanStep[];
  planner: PlannerKind;
  /** Why the LLM planner's answer was repaired or replaced; absent when it was used as it came. */
  plannerNote?: string;
  /** Steps of the LLM planner's answers refused for missing fields (they never ran). */
  plannerRefusals?: StepRefusal[];
  /** The caller-visible warnings of the planner's calls (policies in warn mode, warn rules). */
  warnings?: string[];
}

/** An AgentConfig as the planners and the executor see it. */
export interface PlanAgent {
  /** `name`, or `namespace/name` outside the default namespace: what plan steps name */
  name: string;
  /** `namespace/name`: the pool's AgentConfig key */
  ref: string;
  domain: string;
  type: 'specialist' | 'coordinator';
  description: string;
  capabilities: string[];
  llm?: { provider: string; model: string; fallback?: boolean };
  /** the AgentConfig's `spec.timeout`: each of its steps' budget */
  timeoutMs: number;
}

/** `awaiting_approval`: a connector call a policy parked was still waiting for its approval when the plan ended. */
export type StepStatus = 'completed' | 'failed' | 'skipped' | 'cancelled' | 'awaiting_approval';

/** One step's run. Times are ms from the plan's start (performance clock), so overlaps can be read from them. */
export interface StepOutcome {
  id: string;
  name: string;
  agent: string;
  status: StepStatus;
  startedMs: number;
  endedMs: number;
  output?: string;
  error?: { code: string; message: string };
  /** the pool member's agent id */
  agentId?: string;
  /** the provider an llm-call step called (a fallback says so) */
  llm?: AgentLlmRoute;
  /** the caller-visible warnings of the step's governed call */
  warnings?: readonly string[];
}

/** Most steps a plan may have (the LLM planner is told so; a longer answer is refused). */
export const PLAN_MAX_STEPS = 10;
/** A step's budget when its AgentConfig gives none (the reference: 60 s). */
export const DEFAULT_STEP_TIMEOUT_MS = 60_000;
/**
 * The whole plan's budget, planning included: 408 PLANNING_TIMEOUT after it. Below the reference clients' 120 s
 * plan timeout, so that they read our answer rather than their own.
 */
export const DEFAULT_PLAN_TIMEOUT_MS = 110_000;
