/**
 * A2A push notifications over the orchestrator's signed webhooks (docs/a2a.md, Push notifications). A task's push
 * config is a webhook registration of its own (runtime/store/a2a-push.ts); the task's updates are queued as its
 * deliveries, and the orchestrator's delivery worker (in standalone, this process) sends them with Steward's
 * signature, its retries and its SSRF rules, plus the config's token in `X-A2A-Notification-Token` as A2A asks.
 */
import { randomUUID } from 'node:crypto';
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { PushNotificationSender, PushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import type { Logger } from '../../platform/log.js';
import { registrationProblem } from '../orchestrator/webhooks/ssrf.js';
import { A2A_TASK_EVENT, PushConfigLimitError, type A2aPushRepository } from '../store/index.js';
import type { Sdk } from './sdk.js';
import { scopeOf } from './task-store.js';

/** Configs one task takes. */
export const MAX_PUSH_CONFIGS = 10;

/** The header A2A receivers read the config's token from (the SDK's DefaultPushNotificationSender's). */
export const TOKEN_HEADER = 'x-a2a-notification-token';

export interface PushOptions {
  repo: A2aPushRepository;
  /** STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS: configs may name private and loopback hosts. */
  allowPrivateTargets: boolean;
  log: Logger;
  now: () => Date;
}

/** The SDK's push config store over the store: each save is checked as a webhook registration is. */
export class StoredPushConfigs implements PushNotificationStore {
  constructor(
    private readonly o: PushOptions,
    private readonly sdk: Sdk,
  ) {}

  async save(taskId: string, ctx: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    const problem = registrationProblem(config.url, this.o.allowPrivateTargets) ?? tokenProblem(config);
    if (problem) throw this.refused(problem);
    // NB: the SDK reads the id it did not give from the config it passed (Create's answer).
    if (!config.id) config.id = randomUUID();
    const auth = config.authentication;
    const headers: Record<string, string> = {
      [TOKEN_HEADER]: config.token,
      ...(auth?.scheme && auth.credentials ? { authorization: `${auth.scheme} ${auth.credentials}` } : {}),
    };
    const wire = this.sdk.TaskPushNotificationConfig.toJSON({ ...config, taskId }) as Record<string, unknown>;
    await this.o.repo
      .save(
        scopeOf(ctx),
        // NB: the token is the signature's secret: the receiver chose it, so it can verify what Steward signs.
        { taskId, id: config.id, url: config.url, secret: config.token, headers, config: wire },
        MAX_PUSH_CONFIGS,
        this.o.now(),
      )
      .catch((err: unknown) => {
        throw err instanceof PushConfigLimitError ? this.refused(err.message) : err;
      });
  }

  async load(taskId: string, ctx: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const configs = await this.o.repo.load(scopeOf(ctx), taskId);
    return configs.map((c) => this.sdk.TaskPushNotificationConfig.fromJSON(c));
  }

  async delete(taskId: string, ctx: ServerCallContext, configId?: string): Promise<void> {
    // NB: as the SDK's own store: a config without an id was saved under the task's id.
    await this.o.repo.remove(scopeOf(ctx), taskId, configId ?? taskId);
  }

  /** The binding's own "malformed request" (HTTP+JSON: 400), carrying Steward's code in its ErrorInfo. */
  private refused(message: string): Error {
    return new this.sdk.RequestMalformedError({ message, metadata: { code: 'INVALID_REQUEST' } });
  }
}

/**
 * The SDK's push sender, queueing instead of sending: a task's submission and status changes become deliveries of
 * each of its configs, in order. Artifact chunks are not delivered one by one: the delivery of a final status is
 * the whole task, its artifacts included. Histories are left out (they hold the caller's messages, which the
 * delivery table would keep unmasked).
 */
export class WebhookPushSender implements PushNotificationSender {
  /** The last queueing of each task, so that its updates are queued in the order they happened. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly final: ReadonlySet<number>;

  constructor(
    private readonly o: PushOptions,
    private readonly sdk: Sdk,
  ) {
    const s = sdk.TaskState;
    this.final = new Set([s.TASK_STATE_COMPLETED, s.TASK_STATE_FAILED, s.TASK_STATE_CANCELED, s.TASK_STATE_REJECTED]);
  }

  send(update: StreamResponse, ctx: ServerCallContext, task?: Task): Promise<void> {
    const delivered = this.deliveredFor(update, task);
    if (!delivered) return Promise.resolve();
    const { taskId, response } = delivered;
    const scope = scopeOf(ctx);
    const payload = {
      event: A2A_TASK_EVENT,
      timestamp: this.o.now().toISOString(),
      data: this.sdk.StreamResponse.toJSON(response),
    };
    const queued = (this.chains.get(taskId) ?? Promise.resolve())
      .then(() => this.o.repo.enqueue(scope, taskId, payload, this.o.now()))
      .then(
        () => undefined,
        (err: unknown) => this.o.log.error({ err, taskId }, 'a2a push notification not queued'),
      );
    this.chains.set(taskId, queued);
    void queued.then(() => {
      if (this.chains.get(taskId) === queued) this.chains.delete(taskId);
    });
    return queued;
  }

  /** What an update delivers, if anything: the task (without history) or the status update as it is. */
  private deliveredFor(update: StreamResponse, task?: Task): { taskId: string; response: StreamResponse } | undefined {
    const p = update.payload;
    const whole = (t: Task) => ({
      taskId: t.id,
      response: { payload: { $case: 'task' as const, value: { ...t, history: [] } } },
    });
    if (p?.$case === 'task') return whole(p.value);
    if (p?.$case !== 'statusUpdate') return undefined;
    const state = p.value.status?.state;
    if (state !== undefined && this.final.has(state) && task) return whole(task);
    return { taskId: p.value.taskId, response: update };
  }
}

/** A config's token is required: it is the secret the receiver verifies Steward's signature with. */
function tokenProblem(config: TaskPushNotificationConfig): string | undefined {
  if (!config.token) return 'token is required: Steward signs the deliveries with it (docs/a2a.md)';
  if (config.token.length > 512) return 'token is longer than 512 characters';
  return undefined;
}
