/**
 * The plan response: the reference's fields (`success, plan_id, result, steps, metadata {tasks_executed,
 * execution_mode, execution_time_ms, tasks [{name, status, time_ms}]}`) plus `workflow_execution_id`,
 * `metadata.planner` and, per task, its id, agent and start/end offsets (ms from the plan's start).
 */
import { routeView } from '../governed-work.js';
import type { ExecutionMode, Plan, StepOutcome } from './types.js';

export interface PlanAnswerInput {
  planId: string;
  workflowExecutionId: string;
  plan: Plan;
  mode: ExecutionMode;
  outcomes: readonly StepOutcome[];
  executionTimeMs: number;
  /** The pre-flight's warnings; the planner's and the steps' are read from `plan` and `outcomes`. */
  warnings?: readonly string[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The final step's output: the synthesis (the one step no other depends on). */
export function finalOutput(plan: Plan, outcomes: readonly StepOutcome[]): string {
  const sink = plan.steps.find((s) => !plan.steps.some((o) => o.depends_on.includes(s.id)));
  return outcomes.find((o) => o.id === sink?.id)?.output ?? '';
}

/** Every caller-visible warning of a plan, once each: the pre-flight's, the planner calls', then the steps'. */
export function planWarnings(input: Pick<PlanAnswerInput, 'plan' | 'outcomes' | 'warnings'>): string[] {
  const all = new Set(input.warnings);
  for (const w of input.plan.warnings ?? []) all.add(w);
  for (const o of input.outcomes) for (const w of o.warnings ?? []) all.add(w);
  return [...all];
}

export function planAnswer(input: PlanAnswerInput): Record<string, unknown> & { success: boolean } {
  const { plan, outcomes } = input;
  const warnings = planWarnings(input);
  const success = outcomes.length > 0 && outcomes.every((o) => o.status === 'completed');
  return {
    success,
    plan_id: input.planId,
    workflow_execution_id: input.workflowExecutionId,
    result: success ? finalOutput(plan, outcomes) : '',
    steps: plan.steps,
    metadata: {
      tasks_executed: outcomes.filter(
        (o) => o.status === 'completed' || (o.status === 'failed' && o.error?.code !== 'DEPENDENCY_FAILED'),
      ).length,
      execution_mode: input.mode,
      execution_time_ms: Math.round(input.executionTimeMs),
      tasks: outcomes.map((o) => ({
        name: o.name,
        status: o.status,
        time_ms: round1(o.endedMs - o.startedMs),
        id: o.id,
        agent: o.agent,
        started_ms: round1(o.startedMs),
        ended_ms: round1(o.endedMs),
        ...(o.agentId ? { agent_id: o.agentId } : {}),
        ...routeView(o.llm),
        ...(o.error ? { error: o.error } : {}),
        ...(o.warnings?.length ? { warnings: o.warnings } : {}),
      })),
      planner: plan.planner,
      domain: plan.domain,
      ...(plan.plannerNote ? { planner_note: plan.plannerNote } : {}),
      ...(plan.plannerRefusals?.length ? { planner_refusals: plan.plannerRefusals } : {}),
      ...(warnings.length ? { warnings } : {}),
    },
  };
}

/** Per failed step, for the EXECUTION_ERROR details. */
export function stepErrors(
  outcomes: readonly StepOutcome[],
): { step: string; name: string; agent: string; status: string; code: string; message: string }[] {
  return outcomes
    .filter((o) => o.status !== 'completed')
    .map((o) => ({
      step: o.id,
      name: o.name,
      agent: o.agent,
      status: o.status,
      code: o.error?.code ?? 'EXECUTION_ERROR',
      message: o.error?.message ?? '',
    }));
}
