import { ApiError, echo } from '../http/errors.js';
import {
  DEFAULT_MAX_TOKENS,
  LlmAbortedError,
  LlmNotConfiguredError,
  LlmProviderError,
  LlmTimeoutError,
  LlmValidationError,
  type LlmMessage,
  type LlmResponse,
} from '../llm/index.js';
import type { PolicyEvaluation } from '../policy/types.js';
import type { Identity } from '../auth/identity.js';
import { RateLimitStoreError, type RateLimitDecision } from '../limits/index.js';
import type { LlmRouter } from '../llm/index.js';
import { newId } from '../store/index.js';
import type { GatewayDeps } from './deps.js';
import { evaluatePolicies } from './policy-call.js';

export interface GovernedCall {
  /** The text the policies' `input.query`, the context and the audit entry record. */
  prompt: string;
  clientId: string;
  userToken: string;
  context?: Record<string, unknown>;
  provider?: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export type GovernedResult =
  | { blocked: true; evaluation: PolicyEvaluation; contextId: string }
  | { blocked: false; evaluation: PolicyEvaluation; contextId: string; auditId: string; response: LlmResponse };

/** What a governed request asks the policies about. */
export interface PolicyCheckCall {
  query: string;
  surface: 'llm' | 'plan';
  clientId: string;
  userToken: string;
  context?: Record<string, unknown>;
  /** `input.llm`: provider, model, messages as `policyMessages` writes them, tools, the body's end-user field. */
  llm?: {
    provider?: string;
    model?: string;
    messages?: readonly Record<string, unknown>[];
    tools?: readonly unknown[];
    user?: string;
  };
}

/**
 * Evaluates the request against the organization's policies for the surface and records its pre-check context
 * (approved or blocked), as a pre-check would: the first step of every governed request.
 */
export async function checkAndRecord(deps: GatewayDeps, identity: Identity, call: PolicyCheckCall) {
  const { evaluation, contextId, committed } = await checkAndStartRecord(deps, identity, call);
  await committed;
  return { evaluation, ctx: { id: contextId } };
}

/** A policy decision whose context row is on its way to the database. */
export interface StartedCheck {
  evaluation: PolicyEvaluation;
  contextId: string;
  /** Resolves once the context row is committed (the audit entry's foreign key needs it first). */
  committed: Promise<void>;
}

/**
 * `checkAndRecord` without waiting for the context's commit: a governed LLM call overlaps it with the provider
 * call and awaits `committed` before its audit entry. NB: `committed` has a handler attached, so a failure while
 * nobody awaits it yet is not an unhandled rejection; it rejects again for whoever awaits it.
 */
export async function checkAndStartRecord(deps: GatewayDeps, identity: Identity, call: PolicyCheckCall): Promise<StartedCheck> {
  const evaluation = await evaluatePolicies(
    deps.policies,
    { query: call.query, surface: call.surface, client_id: call.clientId, user: { id: call.userToken }, context: call.context ?? {}, ...(call.llm ? { llm: call.llm } : {}) },
    { surface: call.surface, organizationId: identity.organizationId, tenantId: identity.tenantId },
  );
  const createdAt = deps.now();
  const contextId = newId('ctx');
  const committed = deps.store.contexts
    .record({
      id: contextId,
      organizationId: identity.organizationId,
      clientId: call.clientId,
      userToken: call.userToken,
      query: call.query,
      approved: evaluation.approved,
      policies: evaluation.triggered,
      blockReason: evaluation.blockReason,
      warnings: evaluation.warnings,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + deps.contextTtlMs),
      // NB: a governed call writes its own audit entry: POST /api/audit/llm-call cannot add a second one
      auditedByGateway: true,
    })
    .then(() => undefined);
  committed.catch(() => {});
  return { evaluation, contextId, committed };
}

/**
 * Writes a governed LLM call's records as `deps.llmAudit` says: `commit` (the default) waits for the commit, so
 * the answer follows a durable entry; `background` returns at once and the write completes behind the answer
 * (`deps.backgroundWrites` tracks it, logs and counts a failure, and drains it at shutdown; when it is full, the
 * caller waits as in `commit` mode).
 */
export async function writeLlmRecords(deps: GatewayDeps, write: () => Promise<unknown>): Promise<void> {
  if (deps.llmAudit !== 'background' || !deps.backgroundWrites || deps.backgroundWrites.full) {
    await write();
    return;
  }
  deps.backgroundWrites.track(write());
}

/**
 * A governed LLM call: policy check → provider → audit. A blocked prompt never reaches the provider; an
 * allowed one is audited (committed) before the caller gets the answer. Both outcomes record a context.
 */
export async function governedLlmCall(deps: GatewayDeps, identity: Identity, call: GovernedCall): Promise<GovernedResult> {
  await admitTokens(deps, identity, call.prompt, call.maxTokens);
  const { evaluation, contextId, committed } = await checkAndStartRecord(deps, identity, {
    query: call.prompt,
    surface: 'llm',
    clientId: call.clientId,
    userToken: call.userToken,
    context: call.context,
    llm: { provider: call.provider, model: call.model },
  });
  if (!evaluation.approved) {
    await writeLlmRecords(deps, () => committed);
    return { blocked: true, evaluation, contextId };
  }
  let llm: LlmRouter;
  try {
    llm = requireProvider(deps, call.provider);
  } catch (err) {
    await committed;
    throw err;
  }

  let response: LlmResponse;
  const t0 = performance.now();
  try {
    response = await llm.complete({
      provider: call.provider,
      prompt: call.prompt,
      model: call.model,
      temperature: call.temperature,
      maxTokens: call.maxTokens,
      signal: call.signal,
    });
  } catch (err) {
    deps.telemetry.llmCall(providerOf(err, call.provider), call.model ?? 'default', (performance.now() - t0) / 1000);
    await writeLlmRecords(deps, () => committed);
    throw toApiError(err);
  }
  deps.telemetry.llmCall(response.provider, response.model, response.latencyMs / 1000, response.usage);
  const auditId = newId('aud');
  const audit = {
    id: auditId,
    organizationId: identity.organizationId,
    clientId: call.clientId,
    contextId,
    userToken: call.userToken,
    provider: response.provider,
    model: response.model,
    prompt: call.prompt,
    response: response.text,
    latencyMs: response.latencyMs,
    promptTokens: response.usage.promptTokens,
    completionTokens: response.usage.completionTokens,
    totalTokens: response.usage.totalTokens,
    metadata: { finish_reason: response.finishReason, governed: true },
  };
  await writeLlmRecords(deps, () => committed.then(() => deps.store.audit.record(audit)));
  return { blocked: false, evaluation, contextId, auditId, response };
}

/**
 * The router, once a governed call may go on. NB: checked after the policies: a query they block is blocked
 * whether or not a provider is configured.
 */
export function requireProvider(deps: GatewayDeps, provider: string | undefined): LlmRouter {
  if (deps.llm?.hasProvider(provider)) return deps.llm;
  throw new ApiError(
    'gateway',
    'PROVIDER_NOT_CONFIGURED',
    provider
      ? `no LLM provider named ${echo(provider)} is configured`
      : 'no LLM provider is configured; set OPENAI_API_KEY, ANTHROPIC_API_KEY, STEWARD_BEDROCK_REGION or OLLAMA_HOST',
  );
}

/**
 * Charges a governed LLM call to its organization's tokens per minute (`deps.tokens`) for its worst case: the
 * prompt's estimated tokens (characters / 4) plus its token budget. A call larger than the whole limit is charged
 * the limit (it passes only in an unused minute). Refused: 429 RATE_LIMITED with Retry-After. NB: as for request
 * limits, a failing Redis lets the call through and says so in the log.
 */
export async function admitTokens(deps: GatewayDeps, identity: Identity, prompt: string, maxTokens: number | undefined): Promise<void> {
  if (!deps.tokens) return;
  const { limiter, perMinute } = deps.tokens;
  const cost = Math.min(perMinute, Math.ceil(prompt.length / 4) + (maxTokens ?? DEFAULT_MAX_TOKENS));
  let decision: RateLimitDecision;
  try {
    decision = limiter.hitSync ? limiter.hitSync(identity.organizationId, cost) : await limiter.hit(identity.organizationId, cost);
  } catch (err) {
    if (!(err instanceof RateLimitStoreError)) throw err;
    deps.log.error({ err }, 'token limiter unavailable; allowing the call');
    return;
  }
  if (decision.allowed) return;
  deps.telemetry.rateLimitRejections.inc({ window: 'tokens-60s' });
  throw new ApiError(
    'gateway',
    'RATE_LIMITED',
    `token limit of ${decision.limit} LLM tokens per minute exceeded for this organization (this call reserves ${cost}: prompt characters / 4 plus max_tokens)`,
    { limit: decision.limit, period: `${decision.windowSec}s`, unit: 'tokens', requested: cost, remaining: decision.remaining, reset_at: new Date(decision.resetAtSec * 1000).toISOString() },
    { headers: { 'retry-after': String(decision.retryAfterSec) } },
  );
}

/** The provider a failed call names (the LLM layer's errors carry it), else the one asked for, else `default`. */
export function providerOf(err: unknown, fallback: string | undefined): string {
  return err instanceof Error && 'provider' in err && typeof err.provider === 'string' ? err.provider : (fallback ?? 'default');
}

/** Maps the LLM layer's typed errors onto the gateway catalogue. */
export function toApiError(err: unknown): unknown {
  if (err instanceof LlmValidationError) return new ApiError('gateway', 'INVALID_REQUEST', err.message, undefined, { cause: err });
  if (err instanceof LlmNotConfiguredError) return new ApiError('gateway', 'PROVIDER_NOT_CONFIGURED', err.message, undefined, { cause: err });
  if (err instanceof LlmTimeoutError) return new ApiError('gateway', 'PROVIDER_TIMEOUT', err.message, undefined, { cause: err });
  if (err instanceof LlmProviderError) {
    return new ApiError('gateway', 'PROVIDER_ERROR', `the LLM provider ${err.provider} failed: ${err.message}`, { provider: err.provider, status: err.status }, { cause: err });
  }
  if (err instanceof LlmAbortedError) return err; // the client went away; nothing is sent
  return err;
}

/** The SDKs' `policy_info` object. */
export function policyInfo(evaluation: PolicyEvaluation, identity: Identity) {
  return {
    policies_evaluated: evaluation.evaluated,
    static_checks: evaluation.triggered,
    processing_time: `${evaluation.evaluationMs.toFixed(3)}ms`,
    ...(identity.tenantId ? { tenant_id: identity.tenantId } : {}),
  };
}

/**
 * The conversation as the policies read it (`input.llm.messages`): `{role, content}` per turn, with
 * `tool_calls: [{id, name, arguments}]` on assistant turns that made calls, `tool_call_id` on tool turns and
 * `name` where the body gave one (`names`, by index).
 */
export function policyMessages(
  messages: readonly LlmMessage[],
  names?: readonly (string | undefined)[],
): Record<string, unknown>[] {
  return messages.map((m, i) => ({
    role: m.role,
    content: m.content,
    ...(names?.[i] !== undefined ? { name: names[i] } : {}),
    ...(m.toolCalls && m.toolCalls.length > 0 ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } : {}),
    ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
  }));
}
