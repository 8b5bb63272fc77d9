/**
 * One plan from request to record: pick the domain and its agents, plan (LLM planner when a provider is
 * configured, else deterministic), store the plan with its organization, pass the policy pre-flight, check every
 * step's LLM provider, run the DAG on the pool within the plan's deadline, and store the answer. Every model call
 * (the LLM planner's, each LLM step's) goes through the governed pipeline. Running plans can be cancelled by id
 * (their dispatches are aborted).
 */
import type { z } from 'zod';
import type { planRequest } from '../../../api/http/orchestrator.js';
import type { Identity } from '../../auth/identity.js';
import type { GovernedDeps } from '../../governed/index.js';
import { ApiError } from '../../http/errors.js';
import type { LlmRouter } from '../../llm/index.js';
import type { Logger } from '../../../platform/log.js';
import type { PolicyEvaluator } from '../../policy/types.js';
import type { DeclarativeSource } from '../../source/index.js';
import { newId, type Store } from '../../store/index.js';
import type { AgentPool } from '../pool/index.js';
import { catalogue, pickDomain } from './agents.js';
import { stepErrors } from './answer.js';
import { deterministicSteps, domainAgents, NoAgentsError } from './deterministic.js';
import { executePlan } from './execute.js';
import type { ConnectorGateway } from './gateway-client.js';
import { llmPlan } from './llm-planner.js';
import { preflight } from './preflight.js';
import { resolveStepLlm, type StepLlm } from './providers.js';
import { PlanRun, type PlanEvents } from './record.js';
import { DEFAULT_PLAN_TIMEOUT_MS, type ExecutionMode, type Plan, type PlanAgent, type StepOutcome } from './types.js';

export type PlanRequest = z.infer<typeof planRequest>;
export type { PlanEvents } from './record.js';

export interface PlanServiceOptions {
  pool: AgentPool;
  source: DeclarativeSource;
  store: Store;
  /** The orchestrator's providers: the LLM planner's, and the check of every step's provider. */
  llm: LlmRouter;
  /** The policy set of the pre-flight (surface `plan`) and of policy-check steps. */
  policies: PolicyEvaluator;
  /**
   * The governed pipeline (runtime/governed) of every model call a plan makes: the LLM planner's and each LLM
   * step's. Its policies are `policies`.
   */
  governed: GovernedDeps;
  /**
   * The gateway's connector path for connector-call steps (in process in standalone, STEWARD_GATEWAY_URL in a
   * cluster); absent: those steps fail with SERVICE_UNAVAILABLE.
   */
  connectors?: ConnectorGateway;
  /** step.completed, plan.completed and plan.failed; absent: no events. */
  events?: PlanEvents;
  /** 'auto': the LLM planner when a (non-echo) provider is configured; 'deterministic': never. @default auto */
  planner?: 'auto' | 'deterministic';
  /**
   * Whether this process's providers are the agents' (an in-process pool): then a step whose provider is missing
   * fails the plan before anything runs. Remote agents have their own; they answer PROVIDER_NOT_CONFIGURED. @default true
   */
  checkProviders?: boolean;
  /** The whole plan's budget, planning included (408 PLANNING_TIMEOUT). @default DEFAULT_PLAN_TIMEOUT_MS */
  planTimeoutMs?: number;
  /** Budget of one LLM planner call. @default 30 s */
  plannerCallTimeoutMs?: number;
  log: Logger;
}

/** A plan that ran (or began to) and did not succeed: the error, and the plan's answer to send with it. */
export class PlanFailedError extends ApiError<'plan'> {
  constructor(
    code: 'EXECUTION_ERROR' | 'PLANNING_TIMEOUT' | 'POLICY_VIOLATION' | PassedStepCode,
    message: string,
    details: Record<string, unknown>,
    readonly answer: Record<string, unknown>,
  ) {
    super('plan', code, message, details);
    this.name = 'PlanFailedError';
  }
}

/**
 * A failed step's code, and the plan's code (and status, PLAN_ERRORS) for it: failures whose cause is a provider,
 * the pool or a policy answer as such, so that a 500 (EXECUTION_ERROR) is left to Steward's own faults. A step
 * whose agent did not answer within its timeout was waiting on its provider: PROVIDER_TIMEOUT.
 */
const PASSED_STEP_CODES: Record<string, PassedStepCode | undefined> = {
  PROVIDER_NOT_CONFIGURED: 'PROVIDER_NOT_CONFIGURED',
  PROVIDER_ERROR: 'PROVIDER_ERROR',
  PROVIDER_TIMEOUT: 'PROVIDER_TIMEOUT',
  QUERY_TIMEOUT: 'PROVIDER_TIMEOUT',
  AGENT_UNAVAILABLE: 'AGENT_UNAVAILABLE',
  POLICY_VIOLATION: 'POLICY_VIOLATION',
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
};
type PassedStepCode =
  | 'PROVIDER_NOT_CONFIGURED'
  | 'PROVIDER_ERROR'
  | 'PROVIDER_TIMEOUT'
  | 'AGENT_UNAVAILABLE'
  | 'POLICY_VIOLATION'
  | 'BUDGET_EXCEEDED';

/** Why a plan's signal fired; `code` becomes the steps' error code. */
class PlanStop extends Error {
  constructor(
    readonly code: 'PLANNING_TIMEOUT' | 'CANCELLED',
    message: string,
  ) {
    super(message);
    this.name = 'PlanStop';
  }
}

interface Running {
  controller: AbortController;
  organizationId: string;
  tenantId?: string;
}

export class PlanService {
  private readonly running = new Map<string, Running>();

  constructor(private readonly options: PlanServiceOptions) {}

  /** Plans and runs one request for a verified identity; throws ApiError (PlanFailedError once the plan exists). */
  async run(request: PlanRequest, identity: Identity, clientSignal?: AbortSignal): Promise<Record<string, unknown>> {
    const o = this.options;
    const timeoutMs = o.planTimeoutMs ?? DEFAULT_PLAN_TIMEOUT_MS;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new PlanStop('PLANNING_TIMEOUT', `the plan did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onClient = () => controller.abort(new PlanStop('CANCELLED', 'the client closed the connection'));
    clientSignal?.addEventListener('abort', onClient, { once: true });
    const planId = newId('plan');
    const started = performance.now();
    try {
      const registry = catalogue(o.source);
      const userToken = typeof request.user?.id === 'string' ? request.user.id : '';
      const plan = await this.plan(request, registry, { planId, identity, userToken, signal: controller.signal });
      const stepLlm = (agent: PlanAgent): StepLlm => resolveStepLlm(agent, o.llm, o.checkProviders ?? true);
      const llmOf = (agent: PlanAgent) => {
        const r = stepLlm(agent);
        return 'missing' in r ? {} : { provider: r.provider, model: r.model };
      };
      const mode: ExecutionMode = request.execution_mode ?? 'auto';
      const run = new PlanRun({
        planId,
        workflowExecutionId: newId('wfx'),
        plan,
        mode,
        identity,
        started,
        store: o.store,
        events: o.events,
        log: o.log,
      });
      this.running.set(planId, { controller, organizationId: identity.organizationId, tenantId: identity.tenantId });
      await run.start(request);
      const fail = async (err: PlanFailedError, outcomes: StepOutcome[]) => {
        const stop: unknown = controller.signal.reason;
        await run.fail(
          stop instanceof PlanStop && stop.code === 'CANCELLED' ? 'cancelled' : 'failed',
          outcomes,
          { code: err.code, message: err.message },
          err.answer,
        );
        return err;
      };

      const check = await preflight(o.policies, {
        query: request.query,
        domain: plan.domain,
        steps: plan.steps,
        agents: registry,
        identity,
        user: request.user ?? {},
        context: request.context ?? {},
        llmOf,
      });
      if (check.blocked) {
        const { policy, step, reason } = check;
        const message = `policy ${policy} blocked step ${step.id} (${step.name}, agent ${step.agent}): ${reason}`;
        const details = { policy, step: step.id, agent: step.agent, block_reason: reason, plan_id: planId };
        throw await fail(
          new PlanFailedError('POLICY_VIOLATION', message, details, {
            ...run.answer([]),
            success: false,
            blocked: true,
            block_reason: reason,
          }),
          [],
        );
      }
      const missing = missingProvider(plan, registry, stepLlm);
      if (missing) {
        const error = { code: 'PROVIDER_NOT_CONFIGURED', message: missing.message };
        const outcomes = plan.steps.map((s): StepOutcome => ({
          id: s.id,
          name: s.name,
          agent: s.agent,
          status: 'failed',
          startedMs: 0,
          endedMs: 0,
          error,
        }));
        const message = `the plan was generated but cannot run: step ${missing.step.id} (${missing.step.agent}) needs ${missing.message}`;
        throw await fail(
          new PlanFailedError(
            'PROVIDER_NOT_CONFIGURED',
            message,
            { plan_id: planId, steps: stepErrors(outcomes) },
            run.answer(outcomes, check.warnings),
          ),
          outcomes,
        );
      }

      const outcomes = await executePlan({
        pool: o.pool,
        planId,
        query: request.query,
        context: request.context ?? {},
        steps: plan.steps,
        agents: registry,
        mode,
        signal: controller.signal,
        t0: started,
        identity,
        connectors: o.connectors,
        policies: o.policies,
        governed: o.governed,
        userToken,
        onStep: (s) => run.stepEnded(s),
        onAwaiting: (stepId, approvalId) => run.awaiting(stepId, approvalId),
      });
      const answer = run.answer(outcomes, check.warnings);
      if (answer.success) {
        await run.complete(outcomes, answer);
        return answer;
      }
      const stop = controller.signal.reason;
      if (stop instanceof PlanStop && stop.code === 'PLANNING_TIMEOUT') {
        throw await fail(
          new PlanFailedError(
            'PLANNING_TIMEOUT',
            stop.message,
            { plan_id: planId, timeout_ms: timeoutMs, steps: stepErrors(outcomes) },
            answer,
          ),
          outcomes,
        );
      }
      const errors = stepErrors(outcomes);
      // NB: the first step that failed of itself; the steps after it failed for it (DEPENDENCY_FAILED).
      const first = errors.find((e) => e.code !== 'DEPENDENCY_FAILED') ?? errors[0]!;
      const message =
        stop instanceof PlanStop
          ? `the plan was stopped: ${stop.message}`
          : `step ${first.step} (${first.agent}) failed: ${first.code}: ${first.message}`;
      const code = stop instanceof PlanStop ? 'EXECUTION_ERROR' : (PASSED_STEP_CODES[first.code] ?? 'EXECUTION_ERROR');
      const details = {
        plan_id: planId,
        steps: errors,
        ...(code === 'POLICY_VIOLATION' ? { step: first.step, agent: first.agent, block_reason: first.message } : {}),
      };
      throw await fail(new PlanFailedError(code, message, details, answer), outcomes);
    } catch (err) {
      if (err instanceof NoAgentsError)
        throw new ApiError('plan', 'NO_AGENTS_AVAILABLE', err.message, { domain: err.domain }, { cause: err });
      const stop: unknown = controller.signal.reason;
      if (!(err instanceof ApiError) && stop instanceof PlanStop) {
        // Stopped while planning: nothing ran.
        throw new ApiError(
          'plan',
          stop.code === 'PLANNING_TIMEOUT' ? 'PLANNING_TIMEOUT' : 'EXECUTION_ERROR',
          stop.message,
          { timeout_ms: timeoutMs },
          { cause: err },
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
      clientSignal?.removeEventListener('abort', onClient);
      this.running.delete(planId);
    }
  }

  /** Aborts a running plan of the caller's organization (and tenant); false when none runs here by that id. */
  cancel(scope: { organizationId: string; tenantId?: string }, planId: string): boolean {
    const r = this.running.get(planId);
    if (
      !r ||
      r.organizationId !== scope.organizationId ||
      (scope.tenantId !== undefined && r.tenantId !== scope.tenantId)
    )
      return false;
    r.controller.abort(new PlanStop('CANCELLED', 'the plan was cancelled (POST /api/v1/plan/{id}/cancel)'));
    return true;
  }

  /** Plans running in this process. */
  get active(): number {
    return this.running.size;
  }

  private async plan(
    request: PlanRequest,
    registry: Map<string, PlanAgent>,
    call: { planId: string; identity: Identity; userToken: string; signal: AbortSignal },
  ): Promise<Plan> {
    const o = this.options;
    const picked = pickDomain(request, registry.values());
    const { domain, agents } = domainAgents(picked.domain, picked.inferred, registry.values());
    const fallback = () => deterministicSteps(request.query, { agents }, registry.values());
    if (!this.llmPlanner()) return { domain, steps: fallback(), planner: 'deterministic' };
    const offered = [...registry.values()].filter((a) => a.domain === domain || a.domain === 'generic');
    return llmPlan({
      query: request.query,
      domain,
      offered,
      registry,
      fallback,
      llm: o.llm,
      timeoutMs: o.plannerCallTimeoutMs ?? 30_000,
      governed: o.governed,
      ...call,
    });
  }

  private llmPlanner(): boolean {
    const o = this.options;
    if (o.planner === 'deterministic' || !o.llm.hasProvider()) return false;
    // NB: the echo stand-in repeats its prompt: it cannot plan, and would only cost two calls before the fallback.
    return o.llm.get().type !== 'echo';
  }
}

/** The first LLM step whose provider is not configured, with the message naming it. */
function missingProvider(
  plan: Plan,
  registry: ReadonlyMap<string, PlanAgent>,
  stepLlm: (a: PlanAgent) => StepLlm,
): { step: Plan['steps'][number]; message: string } | undefined {
  for (const step of plan.steps) {
    if (step.type !== 'llm-call') continue;
    const r = stepLlm(registry.get(step.agent)!);
    if ('missing' in r) return { step, message: r.missing };
  }
  return undefined;
}
