/**
 * `POST /api/request` with `request_type: multi-agent-plan`: authenticate (done by the route), pre-check the query
 * (surface `plan`), record the context, forward to the orchestrator with the verified identity, audit the outcome
 * and answer the plan at the top level (the reference) and under `data` (the SDKs read `data.steps`).
 * A blocked query, at the gateway or by the orchestrator's pre-flight, answers 200 `blocked: true`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SurfaceErrorCode } from '../../../api/index.js';
import { ApiError } from '../../http/errors.js';
import { warnCaller } from '../../http/warning-header.js';
import type { Identity } from '../../auth/identity.js';
import type { PlanRouteOptions } from '../deps.js';
import { checkInput, recordOutcome, type GovernedRequest, type InputCheck } from '../../governed/index.js';
import type { PolicyEvaluation } from '../../policy/types.js';
import { OrchestratorUnreachableError, type ForwardedPlan } from '../plan-forward.js';

export interface PlanCall {
  query: string;
  context?: Record<string, unknown>;
  domain?: string;
  execution_mode?: string;
  clientId: string;
  userToken: string;
}

/** Plan fields an SDK reads, copied from the orchestrator's answer. */
const PLAN_FIELDS = ['plan_id', 'workflow_execution_id', 'result', 'steps', 'metadata'] as const;

/** Orchestrator codes the gateway answers with the same status (api/errors.ts GATEWAY_ERRORS lists them). */
const PASSED_THROUGH: ReadonlySet<SurfaceErrorCode<'gateway'>> = new Set<SurfaceErrorCode<'gateway'>>([
  'INVALID_REQUEST',
  'NO_AGENTS_AVAILABLE',
  'RATE_LIMITED',
  'PLANNING_TIMEOUT',
  'EXECUTION_ERROR',
  'FORBIDDEN',
  'FEATURE_NOT_AVAILABLE',
  'PROVIDER_ERROR',
  'PROVIDER_NOT_CONFIGURED',
  'PROVIDER_TIMEOUT',
  'AGENT_UNAVAILABLE',
  'BUDGET_EXCEEDED',
]);

/** The orchestrator's error, when its answer is one. */
export interface PlanError {
  code?: string;
  message?: string;
  details?: Record<string, unknown>;
}

/** What became of a plan request, whichever surface sent it; every outcome is audited. */
export type PlanOutcome =
  /** The gateway's input policies blocked the query; nothing was forwarded. */
  | { kind: 'blocked'; check: InputCheck }
  /** The orchestrator answered: a plan (status 200), its own block (`blockedThere`) or an error. */
  | {
      kind: 'answered';
      check: InputCheck;
      auditId: string;
      forwarded: ForwardedPlan;
      /** The plan fields of the answer (PLAN_FIELDS). */
      plan: Record<string, unknown>;
      error?: PlanError;
      blockedThere: boolean;
      /** The gateway's input warnings and the plan's own, once each. */
      warnings: string[];
    };

/**
 * The governed path of a plan request: the input stage (surface `plan`), the context row, the orchestrator, the
 * audit row of the forwarding. Throws 503 SERVICE_UNAVAILABLE when there is no orchestrator or it cannot be reached.
 */
export async function forwardPlan(
  deps: PlanRouteOptions,
  governed: GovernedRequest,
  call: PlanCall,
  requestId: string,
  signal: AbortSignal,
): Promise<PlanOutcome> {
  const t0 = performance.now();
  const check = await checkInput(deps, governed);
  const { evaluation } = check;
  if (!evaluation.approved) {
    await recordOutcome(deps, governed, check, t0, {
      decision: 'blocked_input',
      provider: 'orchestrator',
      model: 'multi-agent-plan',
      blocked: evaluation,
    });
    return { kind: 'blocked', check };
  }
  if (!deps.plans) {
    await committedOrNothing(check);
    throw new ApiError(
      'gateway',
      'SERVICE_UNAVAILABLE',
      'multi-agent plans need the orchestrator: set STEWARD_ORCHESTRATOR_URL and STEWARD_INTERNAL_SECRET (standalone wires it itself)',
    );
  }
  const upstreamStart = performance.now();
  const forwarded = await deps.plans
    .forward(
      {
        query: call.query,
        ...(call.domain ? { domain: call.domain } : {}),
        ...(call.execution_mode ? { execution_mode: call.execution_mode } : {}),
        context: call.context ?? {},
        user: { id: call.userToken, client_id: call.clientId },
      },
      governed.identity,
      requestId,
      signal,
    )
    .catch(async (err: unknown) => {
      await committedOrNothing(check);
      if (err instanceof OrchestratorUnreachableError)
        throw new ApiError('gateway', 'SERVICE_UNAVAILABLE', err.message, undefined, { cause: err });
      throw err;
    });
  const upstreamMs = performance.now() - upstreamStart;
  const body = forwarded.body;
  const plan = Object.fromEntries(PLAN_FIELDS.filter((f) => body[f] !== undefined).map((f) => [f, body[f]]));
  const error = typeof body.error === 'object' && body.error !== null ? (body.error as PlanError) : undefined;
  const blockedThere = error?.code === 'POLICY_VIOLATION';
  // NB: the plan's planner and steps are audited by the orchestrator (via planner, plan_step); this row records the forwarding.
  const auditId = await recordOutcome(
    deps,
    {
      ...governed,
      metadata: {
        plan_id: body.plan_id ?? null,
        success: body.success === true,
        status: forwarded.status,
        ...(error?.code ? { code: error.code } : {}),
      },
    },
    check,
    t0,
    {
      decision: forwarded.status === 200 ? 'allowed' : blockedThere ? 'blocked_input' : 'provider_error',
      provider: 'orchestrator',
      model: 'multi-agent-plan',
      response: typeof body.result === 'string' ? body.result : '',
      upstreamMs,
      ...(error && !blockedThere ? { error: { code: error.code, message: error.message ?? '' } } : {}),
    },
  );
  const warnings = [...new Set([...evaluation.warnings, ...planWarnings(body)])];
  return { kind: 'answered', check, auditId, forwarded, plan, ...(error ? { error } : {}), blockedThere, warnings };
}

/** The gateway's code for a plan the orchestrator failed: its own where the gateway passes it on, else 503's. */
export function planFailureCode(error: PlanError | undefined): SurfaceErrorCode<'gateway'> {
  const code = error?.code as SurfaceErrorCode<'gateway'> | undefined;
  return code && PASSED_THROUGH.has(code) ? code : 'SERVICE_UNAVAILABLE';
}

/** The reason the orchestrator gave for blocking a plan. */
export function planBlockReason(error: PlanError): string {
  return typeof error.details?.block_reason === 'string'
    ? error.details.block_reason
    : (error.message ?? 'blocked by policy');
}

export async function multiAgentPlan(
  deps: PlanRouteOptions,
  req: FastifyRequest,
  reply: FastifyReply,
  identity: Identity,
  call: PlanCall,
  signal: AbortSignal,
) {
  const t0 = performance.now();
  const governed: GovernedRequest = {
    via: 'request_plan',
    surface: 'plan',
    identity,
    prompt: call.query,
    clientId: call.clientId,
    userToken: call.userToken,
    context: call.context,
  };
  const outcome = await forwardPlan(deps, governed, call, req.id, signal);
  const { evaluation, contextId } = outcome.check;
  const common = () => ({
    policy_info: policyInfo(evaluation, identity),
    context_id: contextId,
    request_id: req.id,
    latency_ms: Math.round(performance.now() - t0),
  });
  if (outcome.kind === 'blocked') {
    deps.metrics.outcome(req, 'blocked');
    return { success: false, blocked: true, block_reason: evaluation.blockReason, ...common() };
  }
  const { forwarded, plan, error, blockedThere, warnings, auditId } = outcome;
  warnCaller(reply, warnings);
  const envelope = { ...common(), audit_id: auditId, ...(warnings.length ? { warnings } : {}) };
  if (forwarded.status === 200)
    return { ...plan, success: forwarded.body.success === true, blocked: false, data: plan, ...envelope };
  if (blockedThere) {
    deps.metrics.outcome(req, 'blocked');
    return { ...plan, success: false, blocked: true, block_reason: planBlockReason(error!), data: plan, ...envelope };
  }
  const code = planFailureCode(error);
  const status = code === 'SERVICE_UNAVAILABLE' ? 503 : forwarded.status;
  void reply.headers(forwarded.headers);
  return reply.code(status).send({
    ...plan,
    success: false,
    blocked: false,
    error: error?.message ?? `the orchestrator answered ${forwarded.status}`,
    code,
    ...(error?.details ? { details: error.details } : {}),
    data: plan,
    ...envelope,
  });
}

/** The orchestrator's plan answer's `metadata.warnings`. */
function planWarnings(body: Record<string, unknown>): string[] {
  const metadata = body.metadata as { warnings?: unknown } | undefined;
  return Array.isArray(metadata?.warnings) ? metadata.warnings.filter((w) => typeof w === 'string') : [];
}

/** Waits for the context row (a refusal answered after it must not leave its write behind). */
async function committedOrNothing(check: InputCheck): Promise<void> {
  await check.committed.catch(() => undefined);
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
