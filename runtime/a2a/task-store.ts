/**
 * The SDK's TaskStore over the store's `a2a_tasks` table (runtime/store/a2a-tasks.ts): tasks are durable like plans,
 * and every read and write is scoped to the caller (organization, tenant, client) and the card, so a task id from
 * another scope is simply not found.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { Part } from '@a2a-js/sdk';
import type { Identity } from '../auth/identity.js';
import type { A2aTaskRepository, A2aTaskScope } from '../store/a2a-tasks.js';
import { CALL_STATE, type A2aCall } from './executor.js';

/** `ListTasks` without a page size: 50; at most 100 (the protocol's bounds). */
const DEFAULT_PAGE = 50;
const MAX_PAGE = 100;

export class StoredTasks implements TaskStore {
  constructor(
    private readonly repo: A2aTaskRepository,
    private readonly sdk: Pick<typeof import('@a2a-js/sdk'), 'Task' | 'taskStateToJSON'>,
    private readonly malformed: (message: string) => Error,
    /** Text as audit rows store it (the organization's redact kinds masked): a task's messages are stored so too. */
    private readonly mask: (identity: Identity, text: string) => string,
  ) {}

  async save(task: Task, ctx: ServerCallContext): Promise<void> {
    const { identity } = callOf(ctx);
    // NB: the caller's messages (a blocked one included) are kept as the audit row keeps the prompt: masked.
    const history = task.history.map((m) => ({ ...m, parts: m.parts.map((p) => this.maskPart(identity, p)) }));
    const wire = this.sdk.Task.toJSON({ ...task, history }) as Record<string, unknown>;
    await this.repo.save(scopeOf(ctx), {
      id: task.id,
      contextId: task.contextId,
      state: this.sdk.taskStateToJSON(task.status?.state ?? 0),
      task: wire,
      statusAt: new Date(task.status?.timestamp ?? Date.now()),
    });
  }

  /** A text part masked; a data part's strings masked (the masks keep its JSON valid). */
  private maskPart(identity: Identity, part: Part): Part {
    const content = part.content;
    if (content?.$case === 'text')
      return { ...part, content: { $case: 'text', value: this.mask(identity, content.value) } };
    if (content?.$case === 'data') {
      const json = JSON.stringify(content.value);
      const masked = this.mask(identity, json);
      return masked === json ? part : { ...part, content: { $case: 'data', value: JSON.parse(masked) as unknown } };
    }
    return part;
  }

  async load(taskId: string, ctx: ServerCallContext): Promise<Task | undefined> {
    const row = await this.repo.load(scopeOf(ctx), taskId);
    return row ? this.sdk.Task.fromJSON(row.task) : undefined;
  }

  async list(params: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE)
      throw this.malformed(`pageSize must be an integer from 1 to ${MAX_PAGE}`);
    const after = params.statusTimestampAfter ? new Date(params.statusTimestampAfter) : undefined;
    if (after && Number.isNaN(after.getTime()))
      throw this.malformed('statusTimestampAfter must be an ISO 8601 timestamp');
    const page = await this.repo
      .list(scopeOf(ctx), {
        pageSize,
        ...(params.contextId ? { contextId: params.contextId } : {}),
        ...(params.status ? { state: this.sdk.taskStateToJSON(params.status) } : {}),
        ...(after ? { statusAfter: after } : {}),
        ...(params.pageToken ? { pageToken: params.pageToken } : {}),
      })
      .catch((err: unknown) => {
        throw err instanceof RangeError ? this.malformed('pageToken is not a token this server gave') : err;
      });
    const tasks = page.tasks.map((row) => {
      const task = this.sdk.Task.fromJSON(row.task);
      if (!params.includeArtifacts) task.artifacts = [];
      if (params.historyLength !== undefined)
        task.history = params.historyLength <= 0 ? [] : task.history.slice(-params.historyLength);
      return task;
    });
    return { tasks, nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }
}

function callOf(ctx: ServerCallContext): A2aCall {
  const call = ctx.state.get(CALL_STATE) as A2aCall | undefined;
  // NB: fail closed: a store call outside a Steward call has no scope to read or write.
  if (!call) throw new Error('an A2A task store call without the caller');
  return call;
}

/** The task scope of a call: the caller and the card (executor.ts puts it in the call context). */
export function scopeOf(ctx: ServerCallContext): A2aTaskScope {
  return callOf(ctx).scope;
}
