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
import { llmUpstream, openGoverned, PolicyBlockedError, type GovernedDeps } from '../governed/index.js';
import { ApiError } from '../http/errors.js';
import { httpErrorOf } from '../http/error-model.js';
import { routeAgentLlm, type LlmRouter } from '../llm/index.js';
import type { A2aTaskScope } from '../store/a2a-tasks.js';
import type { Sdk } from './sdk.js';

/** What the route knows of a call, handed to the executor and the task store through the SDK's call context. */
export interface A2aCall {
  identity: Identity;
  clientId: string;
  userToken: string;
  agent: AgentConfigResource;
  scope: A2aTaskScope;
}

/** The key of the call in `ServerCallContext.state`. */
export const CALL_STATE = 'steward.call';

export interface ExecutorDeps extends GovernedDeps {
  llm: LlmRouter;
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
      const answered = await this.run(call, prompt, controller.signal, (text, first) =>
        bus.publish(
          sdk.AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: `${taskId}:answer`,
              name: 'answer',
              description: '',
              parts: [textPart(text)],
              metadata: undefined,
              extensions: [],
            },
            append: !first,
            lastChunk: false,
            metadata: undefined,
          }),
        ),
      );
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

  /** The governed call: its masked text, piece by piece, then what the audit row recorded. */
  private async run(
    call: A2aCall,
    prompt: string,
    signal: AbortSignal,
    emit: (text: string, first: boolean) => void,
  ): Promise<{ auditId: string; redactions: Record<string, number>; warnings: string[] }> {
    const { deps } = this;
    const { spec, metadata } = call.agent;
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
