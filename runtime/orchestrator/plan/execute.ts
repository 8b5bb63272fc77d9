/**
 * Runs a plan's steps on the agent pool as a DAG. Each step goes to a member of its agent's AgentConfig with the
 * AgentConfig's timeout; its output reaches the steps that depend on it (in their work item's context). A step
 * whose dependency failed fails without running. Modes:
 * - `sequential`: topological order, one step at a time;
 * - `parallel`: in waves — every ready step at once, the next wave once the whole wave ended;
 * - `auto`: the DAG as planned — each step starts as soon as its own dependencies ended.
 * In the parallel modes the pool bounds how many steps run at once (items wait for a free member).
 * Only `llm-call` steps go to the pool, each through the governed pipeline (runtime/governed): the organization's
 * input policies before the dispatch, its output policies and the audit row on the agent's answer, so that the
 * steps that depend on it read the answer as the policies left it. `connector-call` and `policy-check` steps run
 * through the gateway's connector path and the policy engine (steps.ts) and never become an LLM call.
 */
import type { WorkItem } from '../../agent/work.js';
import type { Identity } from '../../auth/identity.js';
import { collect, openGoverned, type GovernedDeps } from '../../governed/index.js';
import { poolUpstream, WorkFailedError, workErrorOf } from '../governed-work.js';
import type { AgentPool } from '../pool/index.js';
import type { PolicyEvaluator } from '../../policy/types.js';
import type { ConnectorGateway } from './gateway-client.js';
import { runA2aStep, runConnectorStep, runPolicyStep, type StepResult } from './steps.js';
import { topologicalOrder } from './validate.js';
import type { ExecutionMode, LlmStep, PlanAgent, PlanStep, StepOutcome } from './types.js';

/**
 * The agent's own policy of a step's work item: the plan passed the pre-flight before it ran (preflight.ts), and
 * the governed pipeline applies the organization's policies to each step.
 */
export const STEP_POLICY = 'package steward.plan.step\n\nallow := true\n';

export interface ExecuteOptions {
  pool: AgentPool;
  planId: string;
  query: string;
  context: Record<string, unknown>;
  steps: readonly PlanStep[];
  agents: ReadonlyMap<string, PlanAgent>;
  mode: ExecutionMode;
  /** The plan's deadline and cancellation: running steps are aborted, waiting ones never start. */
  signal: AbortSignal;
  onStep?: (outcome: StepOutcome) => void;
  /** A connector-call step waits for a tool call's approval (its id), or stopped waiting (undefined). */
  onAwaiting?: (stepId: string, approvalId: string | undefined) => Promise<void>;
  /** The origin of the steps' times (performance clock), e.g. when the plan call started. @default now */
  t0?: number;
  /** The caller's verified identity: connector-call steps are made with it, policy-check steps scoped to it. */
  identity: Identity;
  /** The gateway's connector path; absent: connector-call steps fail with SERVICE_UNAVAILABLE. */
  connectors?: ConnectorGateway;
  /** The plan's policy engine (the pre-flight's): policy-check steps. */
  policies: PolicyEvaluator;
  /** The governed pipeline of LLM steps (its policies are the plan's, with surface `plan`). */
  governed: GovernedDeps;
  /** The caller's user as the request names it (descriptive: the audit row's user token). @default '' */
  userToken?: string;
}

export async function executePlan(options: ExecuteOptions): Promise<StepOutcome[]> {
  const t0 = options.t0 ?? performance.now();
  const outcomes = new Map<string, StepOutcome>();
  const run = async (step: PlanStep): Promise<void> => {
    const outcome = await runStep(step, outcomes, options, t0);
    outcomes.set(step.id, outcome);
    options.onStep?.(outcome);
  };
  const order = topologicalOrder(options.steps);
  if (options.mode === 'sequential') {
    for (const step of order) await run(step);
  } else if (options.mode === 'parallel') {
    const left = new Set(order);
    while (left.size > 0) {
      const wave = [...left].filter((s) => s.depends_on.every((d) => outcomes.has(d)));
      for (const s of wave) left.delete(s);
      await Promise.all(wave.map(run));
    }
  } else {
    const done = new Map<string, Promise<void>>();
    for (const step of order) {
      done.set(
        step.id,
        Promise.all(step.depends_on.map((d) => done.get(d)!)).then(() => run(step)),
      );
    }
    await Promise.all(done.values());
  }
  return options.steps.map((s) => outcomes.get(s.id)!);
}

async function runStep(
  step: PlanStep,
  outcomes: ReadonlyMap<string, StepOutcome>,
  o: ExecuteOptions,
  t0: number,
): Promise<StepOutcome> {
  const startedMs = performance.now() - t0;
  const base = { id: step.id, name: step.name, agent: step.agent, startedMs };
  const end = (rest: Pick<StepOutcome, 'status' | 'output' | 'error' | 'agentId' | 'llm'>): StepOutcome => ({
    ...base,
    ...rest,
    endedMs: performance.now() - t0,
  });
  const failedDep = step.depends_on.map((d) => outcomes.get(d)!).find((d) => d.status !== 'completed');
  if (failedDep) {
    return end({
      status: failedDep.status === 'cancelled' || failedDep.status === 'awaiting_approval' ? 'cancelled' : 'failed',
      error: { code: 'DEPENDENCY_FAILED', message: `step ${failedDep.id} (${failedDep.name}) did not complete` },
    });
  }
  if (o.signal.aborted) return end({ status: 'cancelled', error: abortError(o.signal) });
  if (step.type === 'llm-call') return end(await runLlmStep(step, outcomes, o));
  const c = {
    identity: o.identity,
    requestId: `${o.planId}.${o.steps.indexOf(step)}`,
    signal: o.signal,
    ...(o.onAwaiting ? { awaiting: (id: string | undefined) => o.onAwaiting!(step.id, id) } : {}),
  };
  try {
    const result =
      step.type === 'connector-call'
        ? await runConnectorStep(step, o.connectors, c)
        : step.type === 'a2a-call'
          ? await runA2aStep(step, o.connectors, { ...c, text: step.message ?? a2aText(step, o.query, outcomes) })
          : await runPolicyStep(step, o.policies, { ...c, query: o.query });
    if (o.signal.aborted && result.status !== 'completed' && result.status !== 'awaiting_approval')
      return end({ status: 'cancelled', error: abortError(o.signal) });
    return end(result);
  } catch (err) {
    if (o.signal.aborted) return end({ status: 'cancelled', error: abortError(o.signal) });
    throw err;
  }
}

async function runLlmStep(
  step: LlmStep,
  outcomes: ReadonlyMap<string, StepOutcome>,
  o: ExecuteOptions,
): Promise<StepResult & Pick<StepOutcome, 'agentId' | 'llm'>> {
  const agent = o.agents.get(step.agent)!;
  const item: WorkItem = {
    requestId: o.planId,
    queryIndex: o.steps.indexOf(step),
    query: stepQuery(step, o.query),
    policy: STEP_POLICY,
    timeoutMs: agent.timeoutMs,
    context: stepContext(step, o, outcomes),
    // NB: no provider: the agent calls its AgentConfig's, or the default on a fallback (runtime/llm/agent-route.ts).
    llm: {},
  };
  const upstream = poolUpstream(o.pool, item, {
    agentConfig: agent.ref,
    unavailableCode: 'AGENT_UNAVAILABLE',
    aborted: abortError,
  });
  // NB: the member that answered; a pool failure names the one it tried.
  const agentId = (err?: unknown) =>
    err instanceof WorkFailedError && err.agentId ? err.agentId : upstream.dispatched?.result.agentId;
  const llm = (err?: unknown) => {
    const route = err instanceof WorkFailedError && err.llm ? err.llm : upstream.dispatched?.result.llm;
    return route ? { llm: route } : {};
  };
  try {
    const run = await openGoverned(
      o.governed,
      {
        via: 'plan_step',
        surface: 'plan',
        identity: o.identity,
        clientId: o.identity.clientId ?? o.identity.organizationId,
        userToken: o.userToken ?? '',
        prompt: item.query,
        context: item.context,
        // NB: what the AgentConfig asks; the audit row names the provider the agent called
        llm: { provider: agent.llm?.provider ?? upstream.provider, model: agent.llm?.model ?? upstream.model },
        signal: o.signal,
        metadata: { plan_id: o.planId, step: step.id, agent: step.agent },
        // NB: budgets scoped to an agent charge the step to the AgentConfig that runs it.
        agent: step.agent,
      },
      () => upstream,
    );
    const answer = await collect(run);
    return {
      status: 'completed',
      output: answer.text,
      agentId: agentId(),
      ...llm(),
      ...(answer.warnings.length ? { warnings: answer.warnings } : {}),
    };
  } catch (err) {
    if (o.signal.aborted)
      return { status: 'cancelled', error: abortError(o.signal), agentId: agentId(err), ...llm(err) };
    return { status: 'failed', error: workErrorOf(err, 'plan', o.governed.log), agentId: agentId(err), ...llm(err) };
  }
}

/** Why the plan's signal fired, as a step error. */
function abortError(signal: AbortSignal): { code: string; message: string } {
  const reason: unknown = signal.reason;
  const code =
    reason instanceof Error && 'code' in reason && typeof reason.code === 'string' ? reason.code : 'CANCELLED';
  return { code, message: reason instanceof Error ? reason.message : 'the plan was aborted' };
}

function stepQuery(step: PlanStep, query: string): string {
  const task = `Your step (${step.name}): ${step.description}\n\nThe request: ${query}`;
  return step.depends_on.length === 0
    ? task
    : `${task}\n\nThe results of the steps this one builds on are in the context (steps).`;
}

/**
 * An a2a-call step's message when it names none: the step, the request, and the outputs of the steps it depends on
 * (a remote agent has no plan context to read them from).
 */
function a2aText(step: PlanStep, query: string, outcomes: ReadonlyMap<string, StepOutcome>): string {
  const task = `${step.description || step.name}\n\nThe request: ${query}`;
  const results = step.depends_on.map((d) => {
    const done = outcomes.get(d)!;
    return `- ${done.name}: ${done.output ?? ''}`;
  });
  return results.length ? `${task}\n\nWhat the earlier steps found:\n${results.join('\n')}` : task;
}

/** The request's context, the plan's ids, and the outputs of the steps this one depends on. */
function stepContext(
  step: PlanStep,
  o: ExecuteOptions,
  outcomes: ReadonlyMap<string, StepOutcome>,
): Record<string, unknown> {
  const steps: Record<string, { name: string; agent: string; output: string }> = {};
  for (const d of step.depends_on) {
    const done = outcomes.get(d)!;
    steps[d] = { name: done.name, agent: done.agent, output: done.output ?? '' };
  }
  return { ...o.context, plan: { id: o.planId, step: step.id }, ...(step.depends_on.length ? { steps } : {}) };
}
