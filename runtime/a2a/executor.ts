/**
 * A message to an agent's card, run as that agent's work on the one governed path (runtime/governed): its text and
 * data parts are the prompt the input policies read (a blocked one never reaches a model), the agent's provider and
 * model answer with its description as the system text, the answer streams back as one artifact through output
 * redaction, and the call is audited (`via: a2a`) and charged to budgets like any other.
 */
import { randomUUID } from 'node:crypto';
import type { Message, Part, Task, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { AgentConfigResource } from '../../api/index.js';
import type { Identity } from '../auth/identity.js';
import { llmUpstream, openGoverned, PolicyBlockedError, type GovernedRequest } from '../governed/index.js';
import type { LlmRouteOptions } from '../gateway/deps.js';
import { forwardPlan, planBlockReason, planFailureCode } from '../gateway/routes/plan-request.js';
import { ApiError } from '../http/errors.js';
import { httpErrorOf } from '../http/error-model.js';
import { routeAgentLlm } from '../llm/index.js';
import type { A2aTaskScope } from '../store/a2a-tasks.js';
import type { Sdk } from './sdk.js';

/** What the route knows of a call, handed to the executor and the task store through the SDK's call context. */
export interface A2aCall {
  identity: Identity;
  clientId: string;
  userToken: string;
  /** The agent whose card was called; absent: the Orchestrator's. */
  agent?: AgentConfigResource;
  scope: A2aTaskScope;
}

/** The key of the call in `ServerCallContext.state`. */
export const CALL_STATE = 'steward.call';

/** The model routes' and the plan route's options: an agent's message is a model call, the Orchestrator's a plan. */
export type ExecutorDeps = LlmRouteOptions;

/** What a finished message recorded. */
interface Answered {
  auditId: string;
  redactions: Record<string, number>;
  warnings: string[];
}

/** The orchestrator blocked the plan (its pre-flight or a step's input): the task is rejected. */
class PlanBlockedError extends Error {
  constructor(reason: string) {
    super(`blocked by policy: ${reason}`);
    this.name = 'PlanBlockedError';
  }
}

export class GovernedAgentExecutor implements AgentExecutor {
  /** Tasks running here, to cancel. */
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly sdk: Sdk,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { sdk } = this;
    const call = ctx.context.state.get(CALL_STATE) as A2aCall;
    const { taskId, contextId } = ctx;
    const status = (state: TaskState, text?: string, metadata?: Record<string, unknown>) =>
      sdk.AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: text === undefined ? undefined : agentMessage(sdk, taskId, contextId, text),
          timestamp: new Date().toISOString(),
        },
        metadata,
      });
    if (!ctx.task) {
      const task: Task = {
        id: taskId,
        contextId,
        status: { state: sdk.TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      };
      bus.publish(sdk.AgentEvent.task(task));
    }
    const controller = new AbortController();
    this.running.set(taskId, controller);
    try {
      const prompt = promptOf(ctx.userMessage.parts);
      bus.publish(status(sdk.TaskState.TASK_STATE_WORKING));
      const emit = (parts: Part[], first: boolean) =>
        bus.publish(
          sdk.AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: `${taskId}:answer`,
              name: 'answer',
              description: '',
              parts,
              metadata: undefined,
              extensions: [],
            },
            append: !first,
            lastChunk: false,
            metadata: undefined,
          }),
        );
      const answered = call.agent
        ? await this.run(call, call.agent, prompt, controller.signal, (text, first) => emit([textPart(text)], first))
        : await this.plan(call, prompt, taskId, controller.signal, (parts) => emit(parts, true));
      bus.publish(
        status(sdk.TaskState.TASK_STATE_COMPLETED, undefined, {
          audit_id: answered.auditId,
          redactions: answered.redactions,
          ...(answered.warnings.length ? { warnings: answered.warnings } : {}),
        }),
      );
    } catch (err) {
      if (controller.signal.aborted) bus.publish(status(sdk.TaskState.TASK_STATE_CANCELED, 'the task was canceled'));
      else if (err instanceof PolicyBlockedError)
        bus.publish(
          status(sdk.TaskState.TASK_STATE_REJECTED, err.message, { code: 'POLICY_VIOLATION', ...err.details }),
        );
      else if (err instanceof PlanBlockedError)
        bus.publish(status(sdk.TaskState.TASK_STATE_REJECTED, err.message, { code: 'POLICY_VIOLATION' }));
      else {
        const e = httpErrorOf(err, { surface: 'gateway' }, this.deps.log);
        bus.publish(status(sdk.TaskState.TASK_STATE_FAILED, e.message, { code: e.code, status: e.status }));
      }
    } finally {
      this.running.delete(taskId);
      bus.finished();
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    const running = this.running.get(taskId);
    if (!running) throw new this.sdk.TaskNotCancelableError({ message: `task ${taskId} is not running here` });
    running.abort();
  }

  /**
   * A message to the Orchestrator's card: a multi-agent plan on the governed plan path (the gateway's input policies,
   * then the orchestrator's own per step). The answer is one artifact: the plan's result as text and the plan (id,
   * steps) as data.
   */
  private async plan(
    call: A2aCall,
    prompt: string,
    taskId: string,
    signal: AbortSignal,
    emit: (parts: Part[]) => void,
  ): Promise<Answered> {
    const governed: GovernedRequest = {
      via: 'a2a',
      surface: 'plan',
      identity: call.identity,
      prompt,
      clientId: call.clientId,
      userToken: call.userToken,
    };
    const outcome = await forwardPlan(
      this.deps,
      governed,
      { query: prompt, clientId: call.clientId, userToken: call.userToken },
      taskId,
      signal,
    );
    const { evaluation, contextId } = outcome.check;
    if (outcome.kind === 'blocked') throw new PolicyBlockedError('input', evaluation, contextId);
    const { forwarded, plan, error, blockedThere, warnings, auditId } = outcome;
    if (blockedThere) throw new PlanBlockedError(planBlockReason(error!));
    if (forwarded.status !== 200)
      throw new ApiError(
        'gateway',
        planFailureCode(error),
        error?.message ?? `the orchestrator answered ${forwarded.status}`,
        error?.details,
      );
    const result = plan.result;
    emit([
      textPart(typeof result === 'string' ? result : JSON.stringify(result ?? '')),
      { content: { $case: 'data', value: plan }, metadata: undefined, filename: '', mediaType: 'application/json' },
    ]);
    return { auditId, redactions: {}, warnings };
  }

  /** The governed call: its masked text, piece by piece, then what the audit row recorded. */
  private async run(
    call: A2aCall,
    agent: AgentConfigResource,
    prompt: string,
    signal: AbortSignal,
    emit: (text: string, first: boolean) => void,
  ): Promise<Answered> {
    const { deps } = this;
    const { spec, metadata } = agent;
    const route = routeAgentLlm(spec.llm, deps.llm);
    if ('missing' in route)
      throw new ApiError('gateway', 'PROVIDER_NOT_CONFIGURED', `agent ${metadata.name} needs ${route.missing}`);
    const run = await openGoverned(
      deps,
      {
        via: 'a2a',
        surface: 'llm',
        identity: call.identity,
        clientId: call.clientId,
        userToken: call.userToken,
        prompt,
        llm: { provider: route.provider, model: route.model },
        stream: true,
        signal,
        agent: metadata.name,
      },
      () =>
        llmUpstream(deps.llm, {
          provider: route.provider,
          ...(route.model ? { model: route.model } : {}),
          prompt,
          ...(spec.description ? { system: spec.description } : {}),
        }),
    );
    let first = true;
    for await (const ev of run.events()) {
      if (ev.type === 'text' && ev.text) {
        emit(ev.text, first);
        first = false;
      } else if (ev.type === 'end') {
        if (first) emit('', true);
        return { auditId: ev.answer.auditId, redactions: ev.answer.redactions, warnings: ev.answer.warnings };
      }
    }
    throw new Error('a governed answer ended without its end event');
  }
}

/**
 * The prompt of a message: its text parts, and its data parts as JSON, one per line, in order. Files (raw bytes or
 * a URL) are refused: no policy reads them.
 */
export function promptOf(parts: readonly Part[]): string {
  const lines: string[] = [];
  for (const part of parts) {
    const content = part.content;
    if (content?.$case === 'text') lines.push(content.value);
    else if (content?.$case === 'data') lines.push(JSON.stringify(content.value));
    else
      throw new ApiError(
        'gateway',
        'INVALID_REQUEST',
        'a message part is a file: Steward takes text and data parts, which its policies read',
      );
  }
  const prompt = lines.join('\n');
  if (prompt.trim() === '') throw new ApiError('gateway', 'INVALID_REQUEST', 'the message has no text or data');
  return prompt;
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(sdk: Sdk, taskId: string, contextId: string, text: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: sdk.Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
