import { ApiError, echo } from '../http/errors.js';
import {
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
import type { GatewayDeps } from './deps.js';
import { evaluatePolicies } from './policy-call.js';

export interface GovernedCall {
  /** The text the policies' `input.query`, the context and the audit entry record. */
  prompt: string;
  /**
   * The conversation sent to the provider instead of `prompt` as one user turn; the policies see every message
   * of it as `input.llm.messages`.
   */
  messages?: readonly LlmMessage[];
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
  llm?: { provider?: string; model?: string; messages?: readonly LlmMessage[] };
}

/**
 * Evaluates the request against the organization's policies for the surface and records its pre-check context
 * (approved or blocked), as a pre-check would: the first step of every governed request.
 */
export async function checkAndRecord(deps: GatewayDeps, identity: Identity, call: PolicyCheckCall) {
  const evaluation = await evaluatePolicies(
    deps.policies,
    { query: call.query, surface: call.surface, client_id: call.clientId, user: { id: call.userToken }, context: call.context ?? {}, ...(call.llm ? { llm: call.llm } : {}) },
    { surface: call.surface, organizationId: identity.organizationId, tenantId: identity.tenantId },
  );
  const createdAt = deps.now();
  const ctx = await deps.store.contexts.record({
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
  });
  return { evaluation, ctx };
}

/**
 * A governed LLM call: policy check → provider → audit. A blocked prompt never reaches the provider; an
 * allowed one is audited (committed) before the caller gets the answer. Both outcomes record a context.
 */
export async function governedLlmCall(deps: GatewayDeps, identity: Identity, call: GovernedCall): Promise<GovernedResult> {
  const { evaluation, ctx } = await checkAndRecord(deps, identity, {
    query: call.prompt,
    surface: 'llm',
    clientId: call.clientId,
    userToken: call.userToken,
    context: call.context,
    // NB: every turn, assistant ones included: the caller writes them all, and the provider reads them all.
    llm: { provider: call.provider, model: call.model, ...(call.messages ? { messages: call.messages } : {}) },
  });
  if (!evaluation.approved) return { blocked: true, evaluation, contextId: ctx.id };
  // NB: after the policies: a query they block is blocked whether or not a provider is configured.
  if (!deps.llm?.hasProvider(call.provider)) {
    throw new ApiError(
      'gateway',
      'PROVIDER_NOT_CONFIGURED',
      call.provider
        ? `no LLM provider named ${echo(call.provider)} is configured`
        : 'no LLM provider is configured; set OPENAI_API_KEY, ANTHROPIC_API_KEY, STEWARD_BEDROCK_REGION or OLLAMA_HOST',
    );
  }

  let response: LlmResponse;
  const t0 = performance.now();
  try {
    response = await deps.llm.complete({
      provider: call.provider,
      ...(call.messages ? { messages: call.messages } : { prompt: call.prompt }),
      model: call.model,
      temperature: call.temperature,
      maxTokens: call.maxTokens,
      signal: call.signal,
    });
  } catch (err) {
    const provider = err instanceof Error && 'provider' in err && typeof err.provider === 'string' ? err.provider : (call.provider ?? 'default');
    deps.telemetry.llmCall(provider, call.model ?? 'default', (performance.now() - t0) / 1000);
    throw toApiError(err);
  }
  deps.telemetry.llmCall(response.provider, response.model, response.latencyMs / 1000, response.usage);
  const entry = await deps.store.audit.record({
    organizationId: identity.organizationId,
    clientId: call.clientId,
    contextId: ctx.id,
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
  });
  return { blocked: false, evaluation, contextId: ctx.id, auditId: entry.id, response };
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
