import type { Logger } from '../../platform/log.js';
import type { Identity } from '../auth/identity.js';
import type { RateLimiter } from '../limits/index.js';
import type { FinishReason, LlmStream, LlmToolCall, LlmUsage } from '../llm/index.js';
import type { StewardTelemetry } from '../metrics/index.js';
import type { PolicyEvaluation, PolicyEvaluator } from '../policy/types.js';
import type { Store } from '../store/index.js';
import type { BudgetGate, BudgetHold } from '../budgets/gate.js';
import type { BackgroundWrites } from './background-writes.js';

/** What the governed pipeline needs of its process: the gateway's deps have all of it; the orchestrator builds it. */
export interface GovernedDeps {
  log: Logger;
  store: Pick<Store, 'contexts' | 'audit'>;
  policies: PolicyEvaluator;
  now: () => Date;
  /** Lifetime of a call's context row. */
  contextTtlMs: number;
  telemetry: StewardTelemetry;
  /** LLM tokens per organization per minute (`STEWARD_LLM_TOKENS_PER_MINUTE`); absent: no token limit. */
  tokens?: { limiter: RateLimiter; perMinute: number };
  /** When a call's records are written (`STEWARD_LLM_AUDIT`): before the answer's end, or behind it. @default 'commit' */
  llmAudit?: 'commit' | 'background';
  backgroundWrites?: BackgroundWrites;
  /**
   * Store prompts and answers as they were, not as the policies left them (`STEWARD_AUDIT_RAW_TEXT`). @default false:
   * the kinds of the organization's redact policies are masked in the stored text too.
   */
  auditRawText?: boolean;
  /** Budgets (runtime/budgets) and the prices every audit row's cost is taken at; absent: no budgets, no cost. */
  budgets?: BudgetGate;
}

/** Where a governed call came in: the audit row's `metadata.via`. */
export type GovernedVia =
  | 'execute'
  | 'request'
  | 'request_plan'
  | 'chat_completions'
  | 'messages'
  | 'planner'
  | 'plan_step'
  | 'parallel'
  | 'a2a'
  | 'pre_check';

/** The policy surface of a call's input stage. */
export type InputSurface = 'llm' | 'plan' | 'parallel';

/** A call as its audit row records it: a governed request, or a pre-check the policies blocked (no model is asked). */
export type AuditedCall = Omit<GovernedRequest, 'surface'> & { surface: InputSurface | 'pre-check' };

/** One call that reaches a model, as any surface reads it. */
export interface GovernedRequest {
  via: GovernedVia;
  surface: InputSurface;
  identity: Identity;
  clientId: string;
  userToken: string;
  /** The text the policies read as `input.query`; the context row and the audit row store it (as the policies leave it). */
  prompt: string;
  /** `input.request_type` when the request names one (`/api/request`); absent: the surface's (runtime/policy/caller.ts). */
  requestType?: string;
  context?: Record<string, unknown>;
  /** `input.llm`: the provider and model asked for, the conversation, tools, the body's end-user field. */
  llm?: {
    provider?: string;
    model?: string;
    messages?: readonly Record<string, unknown>[];
    tools?: readonly unknown[];
    user?: string;
  };
  /** The answer's token budget: charged to the organization's tokens per minute with the prompt. */
  maxTokens?: number;
  /** Ask the upstream for a stream (its events as they come) rather than a whole answer. */
  stream?: boolean;
  /** The caller went away or the surface's deadline passed: the upstream call is aborted. */
  signal?: AbortSignal;
  /** Receives the stages' times (the Server-Timing of HTTP answers). */
  timing?: (name: 'policy' | 'upstream' | 'output', ms: number, desc?: string) => void;
  /** More facts for the audit row's metadata (a plan's ids, a query's index). */
  metadata?: Record<string, unknown>;
  /** The AgentConfig the call runs as (a plan step's): budgets scoped to an agent charge it. */
  agent?: string;
}

/** A whole answer from the upstream (a provider's, or a pool agent's). */
export interface UpstreamAnswer {
  text: string;
  toolCalls: readonly LlmToolCall[];
  provider: string;
  model: string;
  usage: LlmUsage;
  finishReason: FinishReason;
  /** Facts of the upstream's for the audit row's metadata (a pool agent's provider fallback). */
  facts?: Record<string, unknown>;
}

/** What answers a governed call: a provider through the router, or a pool agent. */
export interface Upstream {
  /** The provider and model asked (what output policies read before the answer names its own). */
  readonly provider: string;
  readonly model: string;
  complete(signal: AbortSignal | undefined): Promise<UpstreamAnswer>;
  /** A streamed answer; resolves once the upstream accepted. Absent: streamed calls get the whole answer as one event. */
  stream?(signal: AbortSignal | undefined): Promise<LlmStream>;
}

/** A governed answer as it goes to the caller: already scanned (masked) text and tool-call pieces, then its end. */
export type GovernedEvent =
  | { type: 'text'; text: string }
  /** a tool call's piece: `id` and `name` on its first piece, then argument text */
  | { type: 'tool'; index: number; id?: string; name?: string; arguments: string }
  | { type: 'end'; answer: GovernedAnswer };

/** A finished, audited answer. */
export interface GovernedAnswer {
  auditId: string;
  contextId: string;
  provider: string;
  model: string;
  text: string;
  toolCalls: LlmToolCall[];
  finishReason: FinishReason;
  usage: LlmUsage;
  /** what output redaction masked, per kind */
  redactions: Record<string, number>;
  /** the input policies' warnings, then the output policies' */
  warnings: string[];
  /** the input stage's decision */
  evaluation: PolicyEvaluation;
}

/** A governed call past its input stage, with its upstream answering. */
export interface GovernedRun {
  readonly contextId: string;
  readonly auditId: string;
  readonly evaluation: PolicyEvaluation;
  readonly provider: string;
  readonly model: string;
  /** The deciding budget's view (the X-Budget-* headers) and the budgets' warnings, when a budget charges the call. */
  readonly budget?: Pick<BudgetHold, 'view' | 'warnings'>;
  /**
   * The answer, scanned, once. Its audit row is written before `end` (or before the error that ends it): a
   * caller that saw the end knows the answer was recorded. Errors are typed (error-model.ts maps them).
   */
  events(): AsyncGenerator<GovernedEvent, void, undefined>;
}
