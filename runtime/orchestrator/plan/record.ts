/**
 * One plan's record and events: the `plans` row (started with the verified identity, ended with the answer as
 * sent) and the step.completed / plan.completed / plan.failed events, recorded in order. Both are committed before
 * the plan answers.
 */
import type { Identity } from '../../auth/identity.js';
import type { Logger } from '../../../platform/log.js';
import type { PlanWaiting, Store } from '../../store/index.js';
import { planAnswer } from './answer.js';
import type { ExecutionMode, Plan, StepOutcome } from './types.js';

/** Where plan events go (the webhooks' emitter): a delivery row per subscription, committed before `emit` resolves. */
export interface PlanEvents {
  emit(
    organizationId: string,
    event: 'plan.completed' | 'plan.failed' | 'step.completed',
    data: Record<string, unknown>,
    tenantId?: string,
  ): Promise<void>;
}

export interface PlanRunInit {
  planId: string;
  workflowExecutionId: string;
  plan: Plan;
  mode: ExecutionMode;
  identity: Identity;
  /** performance.now() when the call started */
  started: number;
  store: Store;
  events?: PlanEvents;
  log: Logger;
}

export class PlanRun {
  /** Events of one plan are recorded in order: each emit waits for the one before. */
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly init: PlanRunInit) {}

  elapsedMs(): number {
    return performance.now() - this.init.started;
  }

  async start(request: { query: string; user?: Record<string, unknown> }): Promise<void> {
    const { planId, workflowExecutionId, plan, mode, identity, store } = this.init;
    await store.plans.start({
      id: planId,
      organizationId: identity.organizationId,
      tenantId: identity.tenantId,
      clientId: identity.clientId,
      workflowExecutionId,
      userContext: request.user ?? {},
      query: request.query,
      domain: plan.domain,
      executionMode: mode,
      planner: plan.planner,
      steps: plan.steps,
    });
  }

  answer(outcomes: readonly StepOutcome[], warnings?: readonly string[]) {
    const { planId, workflowExecutionId, plan, mode } = this.init;
    return planAnswer({
      planId,
      workflowExecutionId,
      plan,
      mode,
      outcomes,
      executionTimeMs: this.elapsedMs(),
      warnings,
    });
  }

  /** Steps that wait for an approval now, as the plan's record shows them while it runs. */
  private readonly waiting = new Map<string, PlanWaiting>();

  /** A step waits for a tool call's approval (its id), or stopped waiting (undefined): the running record says so. */
  async awaiting(stepId: string, approvalId: string | undefined): Promise<void> {
    if (approvalId === undefined) this.waiting.delete(stepId);
    else this.waiting.set(stepId, { step: stepId, approval_id: approvalId, since: new Date().toISOString() });
    await this.init.store.plans.setWaiting(this.init.planId, [...this.waiting.values()]);
  }

  stepEnded(s: StepOutcome): void {
    this.emit('step.completed', {
      planId: this.init.planId,
      stepId: s.id,
      name: s.name,
      agent: s.agent,
      status: s.status,
      timeMs: Math.round(s.endedMs - s.startedMs),
    });
  }

  /** Records a successful plan and its event. */
  async complete(outcomes: readonly StepOutcome[], answer: Record<string, unknown>): Promise<void> {
    this.emit('plan.completed', {
      planId: this.init.planId,
      status: 'completed',
      totalExecutionTimeMs: Math.round(this.elapsedMs()),
    });
    await this.end({ status: 'completed', outcomes, result: String(answer.result ?? ''), response: answer });
  }

  /** Records a failed (or cancelled) plan and its event. */
  async fail(
    status: 'failed' | 'cancelled',
    outcomes: readonly StepOutcome[],
    error: { code: string; message: string },
    response: Record<string, unknown>,
  ): Promise<void> {
    this.emit('plan.failed', {
      planId: this.init.planId,
      status,
      totalExecutionTimeMs: Math.round(this.elapsedMs()),
      error,
    });
    await this.end({ status, outcomes, error: error.message, response });
  }

  private async end(e: {
    status: 'completed' | 'failed' | 'cancelled';
    outcomes: readonly StepOutcome[];
    result?: string;
    error?: string;
    response: Record<string, unknown>;
  }): Promise<void> {
    const steps = withOutcomes(this.init.plan, e.outcomes);
    // NB: the record and the event rows are written together; both are committed before the answer.
    await Promise.all([
      this.init.store.plans.finish(this.init.planId, {
        status: e.status,
        steps,
        result: e.result,
        error: e.error,
        executionTimeMs: this.elapsedMs(),
        response: e.response,
      }),
      this.chain,
    ]);
  }

  /** Queues an event after the plan's earlier ones; a failure to record it is logged, never the plan's failure. */
  private emit(event: 'plan.completed' | 'plan.failed' | 'step.completed', data: Record<string, unknown>): void {
    const sink = this.init.events;
    if (!sink) return;
    const { organizationId, tenantId } = this.init.identity;
    this.chain = this.chain.then(() =>
      sink
        .emit(organizationId, event, data, tenantId)
        .catch((err: unknown) => this.init.log.error({ err, event, planId: data.planId }, 'plan event not recorded')),
    );
  }
}

/** The steps as stored: each with its outcome. */
function withOutcomes(plan: Plan, outcomes: readonly StepOutcome[]): unknown[] {
  return plan.steps.map((s) => {
    const o = outcomes.find((x) => x.id === s.id);
    return o
      ? { ...s, status: o.status, time_ms: Math.round(o.endedMs - o.startedMs), ...(o.error ? { error: o.error } : {}) }
      : s;
  });
}
