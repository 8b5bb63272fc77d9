/** The last stage of every governed call: its audit row, one shape and one writer whatever the surface. */
import { asApiError } from '../http/error-model.js';
import type { LlmUsage } from '../llm/index.js';
import type { PolicyEvaluation, PolicyResult, PolicyScope } from '../policy/types.js';
import type { RedactionCounts } from '../redact/index.js';
import { newId } from '../store/index.js';
import { redactionSpan, tracingState, type GenAiCall } from '../tracing/index.js';
import { LLM_OUTPUT_SURFACE } from '../../api/index.js';
import type { BudgetHold, Charge, Spend } from '../budgets/gate.js';
import type { TokenReservation } from './admission.js';
import { auditText } from './audit-text.js';
import type { InputCheck } from './input-check.js';
import type { AuditedCall, GovernedDeps } from './types.js';

export const NO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/**
 * The audit row of a call governed elsewhere (a plan forwarded to the orchestrator): the same shape and writer as
 * the pipeline's own rows. Returns the row's id.
 */
export async function recordOutcome(
  deps: GovernedDeps,
  req: AuditedCall,
  check: InputCheck,
  t0: number,
  outcome: Outcome & { upstreamMs?: number },
): Promise<string> {
  const audit = new AuditRecord(deps, req, check, t0);
  audit.upstreamMs = outcome.upstreamMs ?? 0;
  await audit.write(outcome);
  return audit.id;
}

/** What one audit row says of its call's outcome. */
export interface Outcome {
  decision:
    'allowed' | 'redacted' | 'blocked_input' | 'blocked_output' | 'refused' | 'provider_error' | 'client_closed';
  provider?: string;
  model?: string;
  usage?: LlmUsage;
  response?: string;
  redactions?: Record<string, number>;
  toolCalls?: string[];
  blocked?: PolicyEvaluation;
  /** the output policies' last evaluation (llm_output), when some were in scope */
  output?: PolicyEvaluation;
  error?: unknown;
  stream?: { whole: boolean; ttftMs: number | undefined; finishReason: string | null; usageReported: boolean };
  /** the upstream's own facts (UpstreamAnswer.facts) */
  facts?: Record<string, unknown>;
}

/**
 * The audit row of one governed call, whatever the surface: one shape, one writer. It waits for the context row
 * (its foreign key) and is committed before the answer's end, or behind it under `STEWARD_LLM_AUDIT=background`.
 */
export class AuditRecord {
  readonly id = newId('aud');
  /** time spent waiting on the upstream (the provider's latency as Steward sees it) */
  upstreamMs = 0;
  /** time a stream waited on its consumer */
  waitedMs = 0;
  /** the call's budget reservation, settled to what it used once the outcome is known */
  budget: BudgetHold | undefined;

  constructor(
    private readonly deps: GovernedDeps,
    private readonly req: AuditedCall,
    private readonly check: InputCheck,
    private readonly t0: number,
    /** the call's tokens-per-minute reservation, brought down to what it used once the outcome is known */
    private readonly reservation?: TokenReservation,
    /** the call's span and GenAI metrics (runtime/tracing), ended with the row */
    private readonly call?: GenAiCall,
  ) {}

  async write(o: Outcome): Promise<void> {
    const { deps, req, check } = this;
    const spend = spendOf(req, o);
    // NB: priced once, for the token limit, the budgets, the metrics and the row's cost.
    const charge: Charge = deps.budgets?.charge(spend) ?? {
      tokens: spend.usage.promptTokens + spend.usage.completionTokens,
      micros: undefined,
    };
    this.reservation?.settle(charge.tokens);
    this.budget?.settle(charge);
    const costUsd = charge.micros !== undefined && (o.usage || o.response) ? charge.micros / 1_000_000 : undefined;
    deps.telemetry.spend(req.identity.organizationId, spend.model, charge.tokens, costUsd);
    const prompt = auditText(deps, req.identity, req.prompt);
    // NB: the answer is stored as it was sent: the output scan masked it with the same kinds already.
    const response = o.response === undefined || o.response === '' ? undefined : { text: o.response };
    const totalMs = performance.now() - this.t0;
    const usage = o.usage ?? NO_USAGE;
    const entry = {
      id: this.id,
      organizationId: req.identity.organizationId,
      clientId: req.clientId,
      contextId: check.contextId,
      userToken: req.userToken,
      provider: o.provider,
      model: o.model,
      prompt: prompt.text,
      // NB: the answer as it was sent: masked where a redact policy applied
      response: response?.text,
      latencyMs: round(this.upstreamMs),
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      totalTokens: usage.totalTokens,
      metadata: this.metadata(o, prompt.masked, totalMs, costUsd),
    };
    if (this.call) this.endCall(o, entry.metadata, prompt.text, usage);
    const write = () => check.committed.then(() => deps.store.audit.record(entry));
    if (deps.llmAudit !== 'background' || !deps.backgroundWrites || deps.backgroundWrites.full) {
      await write();
      return;
    }
    deps.backgroundWrites.track(write());
  }

  /** The call's span (and its answer's redact-policy spans) and metrics, as the row records the call. */
  private endCall(o: Outcome, metadata: Record<string, unknown>, prompt: string, usage: LlmUsage): void {
    const { deps, req } = this;
    if (tracingState.traces && o.decision !== 'blocked_input' && o.decision !== 'refused') {
      const scope: PolicyScope = {
        surface: LLM_OUTPUT_SURFACE,
        organizationId: req.identity.organizationId,
        tenantId: req.identity.tenantId,
      };
      for (const p of deps.policies.redactPolicies(scope)) redactionSpan(p, o.redactions ?? {});
    }
    const failed = o.decision === 'provider_error' || o.decision === 'refused' || o.decision === 'client_closed';
    this.call!.end({
      provider: o.provider,
      responseModel: o.model,
      ...(o.usage ? { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens } : {}),
      finishReason: o.stream?.finishReason,
      ...(failed
        ? { errorType: String(metadata.error_code ?? o.decision), errorMessage: String(metadata.error ?? '') }
        : {}),
      attributes: {
        'steward.decision': String(metadata.decision),
        'steward.audit_id': this.id,
        'steward.context_id': this.check.contextId,
      },
      content: { prompt, ...(o.response !== undefined ? { response: o.response } : {}) },
    });
  }

  /**
   * The row's metadata: the pipeline's facts, each only when it applies, then the upstream's facts and the
   * surface's own (both may override the pipeline's).
   */
  private metadata(
    o: Outcome,
    promptMasked: RedactionCounts | undefined,
    totalMs: number,
    costUsd: number | undefined,
  ): Record<string, unknown> {
    const { deps, req } = this;
    const results = policyResultsOf(this.check.evaluation, o.output, o.blocked);
    const evaluated = policiesEvaluatedOf(this.check.evaluation, o.output, o.blocked);
    const facts: Record<string, unknown> = {
      governed: true,
      via: req.via,
      surface: req.surface,
      decision: rowDecision(o.decision, results),
      stream: o.stream ? !o.stream.whole : req.stream === true,
      steward_ms: round(Math.max(0, totalMs - this.upstreamMs - this.waitedMs)),
      upstream_ms: round(this.upstreamMs),
      stored_text: deps.auditRawText ? 'raw' : 'masked',
    };
    if (o.stream) {
      facts.finish_reason = o.stream.finishReason;
      if (!o.stream.whole) {
        facts.ttft_ms = o.stream.ttftMs === undefined ? null : round(o.stream.ttftMs);
        facts.usage_reported = o.stream.usageReported;
      }
    }
    if (o.redactions && Object.keys(o.redactions).length) facts.redactions = o.redactions;
    if (promptMasked) facts.prompt_redactions = promptMasked;
    if (o.toolCalls?.length) facts.tool_calls = o.toolCalls;
    if (o.blocked) {
      facts.block_reason = o.blocked.blockReason;
      facts.policies = o.blocked.triggered;
    }
    if (evaluated.length) facts.policies_evaluated = evaluated;
    if (results.length) facts.policy_results = results;
    if (o.error !== undefined) Object.assign(facts, errorFacts(o.error));
    if (req.identity.tenantId) facts.tenant_id = req.identity.tenantId;
    // NB: the AgentConfig that ran the call (a plan step's, an A2A card's): what the audit API's `agent` filter reads
    if (req.agent !== undefined) facts.agent = req.agent;
    if (costUsd !== undefined) facts.cost_usd = costUsd;
    if (this.budget) facts.budget = this.budget.view.budget;
    // NB: spread, not Object.assign: a `__proto__` key of the caller's metadata stays a plain key.
    return { ...facts, ...o.facts, ...req.metadata };
  }
}

/** Every policy result of a call's evaluations (the input stage's, then the output's), each evaluation once. */
export function policyResultsOf(...evaluations: (PolicyEvaluation | null | undefined)[]): PolicyResult[] {
  const seen = new Set<PolicyEvaluation>();
  const out: PolicyResult[] = [];
  for (const e of evaluations) {
    if (!e || seen.has(e)) continue;
    seen.add(e);
    out.push(...e.results);
  }
  return out;
}

/** The policies each evaluation of the call evaluated (input, then output; a policy once), for the reports. */
export function policiesEvaluatedOf(...evaluations: (PolicyEvaluation | null | undefined)[]): string[] {
  const seen = new Set<PolicyEvaluation>();
  const out = new Set<string>();
  for (const e of evaluations) {
    if (!e || seen.has(e)) continue;
    seen.add(e);
    for (const p of e.evaluated) out.add(p);
  }
  return [...out];
}

/**
 * The row's decision: the call's outcome; a call that went through while a policy that is not enforced matched says
 * so: `warn` (a warn-mode policy), else `audit` (an audited one), else `exempted` (a PolicyException).
 */
export function rowDecision(decision: string, results: readonly PolicyResult[]): string {
  if (decision !== 'allowed' || results.length === 0) return decision;
  if (results.some((r) => r.decision === 'warn' && r.mode === 'warn')) return 'warn';
  if (results.some((r) => r.decision === 'audit')) return 'audit';
  if (results.some((r) => r.decision === 'exempted')) return 'exempted';
  return decision;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** The error's code (its own, or the catalogue's) and a bounded message, for the audit row. */
function errorFacts(err: unknown): Record<string, unknown> {
  const mapped = asApiError(err);
  const e =
    typeof mapped === 'object' && mapped !== null ? (mapped as { code?: unknown; message?: unknown }) : undefined;
  const code = typeof e?.code === 'string' ? e.code : 'INTERNAL_ERROR';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { error_code: code, error: message.slice(0, 300) };
}

/**
 * What a call used, priced by the model that answered: the provider's usage, else (a pool agent's answer, a stream
 * cut short) characters / 4 of the prompt and of what was sent; nothing for a call that got no answer.
 */
function spendOf(req: AuditedCall, o: Outcome): Spend {
  const provider = o.provider ?? req.llm?.provider ?? 'default';
  const model = o.model ?? req.llm?.model ?? 'default';
  if (o.usage && o.usage.totalTokens > 0) return { provider, model, usage: o.usage };
  if (!o.response && o.decision !== 'client_closed')
    return { provider, model, usage: { promptTokens: 0, completionTokens: 0 } };
  return {
    provider,
    model,
    usage: {
      promptTokens: Math.ceil(req.prompt.length / 4),
      completionTokens: Math.ceil((o.response?.length ?? 0) / 4),
    },
  };
}
