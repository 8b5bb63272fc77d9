/**
 * A2A push notification configs (migration 13, runtime/a2a/push.ts). Each config is a webhook registration of its
 * own (`kind = 'a2a-push'`, its URL, its token as the signing secret and as a header), beside a row that holds the
 * task's scope and the config in A2A's wire JSON; a task's updates become rows of `webhook_deliveries`, which the
 * orchestrator's delivery worker sends like plan events. Every read and write names the task's scope.
 */
import type { Db } from './db.js';
import { newId } from './ids.js';
import type { A2aTaskScope } from './a2a-tasks.js';

/** The event name of an A2A task update's deliveries (`x-steward-event`). */
export const A2A_TASK_EVENT = 'a2a.task';

export interface A2aPushConfigInput {
  taskId: string;
  id: string;
  url: string;
  /** The HMAC secret of the deliveries' Steward signature. */
  secret: string;
  /** What each delivery carries besides Steward's own headers. */
  headers: Record<string, string>;
  /** The config in A2A's wire JSON, as Get and List answer it. */
  config: Record<string, unknown>;
}

/** A task already has this many configs: one more is refused. */
export class PushConfigLimitError extends Error {
  constructor(readonly limit: number) {
    super(`a task takes at most ${limit} push notification configs`);
    this.name = 'PushConfigLimitError';
  }
}

const scopeParams = (s: A2aTaskScope) => [s.organizationId, s.tenantId, s.owner, s.agent];

// $1..$4 are the scope, in the order of scopeParams; NB: a NULL tenant only matches NULL, as a2a_tasks' scope does.
const IN_SCOPE = 'organization_id = $1 AND tenant_id IS NOT DISTINCT FROM $2 AND owner = $3 AND agent = $4';

export class A2aPushRepository {
  constructor(private readonly db: Db) {}

  /**
   * Creates the config, or replaces the one of the same id on the task (its pending deliveries go with it); throws
   * PushConfigLimitError, writing nothing, when the task has `limit` configs already.
   */
  async save(scope: A2aTaskScope, input: A2aPushConfigInput, limit: number, at: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `DELETE FROM webhooks WHERE id IN (SELECT webhook_id FROM a2a_push_configs WHERE ${IN_SCOPE} AND task_id = $5 AND id = $6)`,
        [...scopeParams(scope), input.taskId, input.id],
      );
      const { rows } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM a2a_push_configs WHERE ${IN_SCOPE} AND task_id = $5`,
        [...scopeParams(scope), input.taskId],
      );
      if (Number(rows[0]?.n ?? 0) >= limit) throw new PushConfigLimitError(limit);
      const webhookId = newId('whk');
      await tx.query(
        `INSERT INTO webhooks (id, organization_id, tenant_id, url, events, secret, active, kind, headers, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, 'a2a-push', $7, $8, $8)`,
        [
          webhookId,
          scope.organizationId,
          scope.tenantId,
          input.url,
          JSON.stringify([A2A_TASK_EVENT]),
          input.secret,
          JSON.stringify(input.headers),
          at,
        ],
      );
      await tx.query(
        `INSERT INTO a2a_push_configs (organization_id, tenant_id, owner, agent, webhook_id, task_id, id, config, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [...scopeParams(scope), webhookId, input.taskId, input.id, JSON.stringify(input.config), at],
      );
    });
  }

  /** The task's configs in A2A's wire JSON, oldest first. */
  async load(scope: A2aTaskScope, taskId: string): Promise<Record<string, unknown>[]> {
    const { rows } = await this.db.query<{ config: Record<string, unknown> }>(
      `SELECT config FROM a2a_push_configs WHERE ${IN_SCOPE} AND task_id = $5 ORDER BY created_at, id`,
      [...scopeParams(scope), taskId],
    );
    return rows.map((r) => r.config);
  }

  /** Deletes a config, its registration and its pending deliveries; nothing when there is none. */
  async remove(scope: A2aTaskScope, taskId: string, id: string): Promise<void> {
    await this.db.query(
      `DELETE FROM webhooks WHERE id IN (SELECT webhook_id FROM a2a_push_configs WHERE ${IN_SCOPE} AND task_id = $5 AND id = $6)`,
      [...scopeParams(scope), taskId, id],
    );
  }

  /**
   * One pending delivery of `payload` per config of the task, in one transaction, ordered after the task's earlier
   * ones (the order key is the task id). Returns how many.
   */
  async enqueue(scope: A2aTaskScope, taskId: string, payload: unknown, at: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ webhook_id: string }>(
        `SELECT webhook_id FROM a2a_push_configs WHERE ${IN_SCOPE} AND task_id = $5 ORDER BY created_at, id`,
        [...scopeParams(scope), taskId],
      );
      for (const { webhook_id } of rows) {
        await tx.query(
          `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event, payload, order_key, next_attempt_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [newId('whd'), webhook_id, scope.organizationId, A2A_TASK_EVENT, JSON.stringify(payload), taskId, at],
        );
      }
      return rows.length;
    });
  }
}
