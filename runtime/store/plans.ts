import type { Queryable } from './db.js';

export type PlanStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** A plan as it starts: who ran it (from the verified identity only), what was asked, and its steps. */
export interface PlanStart {
  id: string;
  organizationId: string;
  tenantId?: string;
  clientId?: string;
  workflowExecutionId: string;
  /** Descriptive only (the body's `user`): never used for tenancy. */
  userContext: Record<string, unknown>;
  query: string;
  domain: string;
  executionMode: string;
  planner: string;
  steps: readonly unknown[];
}

/** A plan's end: its status, the steps with their outcomes, and the answer as it was sent. */
export interface PlanEnd {
  status: Exclude<PlanStatus, 'running'>;
  steps: readonly unknown[];
  result?: string;
  error?: string;
  executionTimeMs: number;
  response: Record<string, unknown>;
}

export interface PlanRecord {
  id: string;
  organizationId: string;
  tenantId?: string;
  clientId?: string;
  workflowExecutionId?: string;
  query: string;
  domain?: string;
  executionMode: string;
  planner?: string;
  status: PlanStatus;
  steps: unknown[];
  result?: string;
  error?: string;
  executionTimeMs?: number;
  response?: Record<string, unknown>;
  /** Steps of a running plan that wait for an approval (docs/approvals.md). */
  waiting?: PlanWaiting[];
  createdAt: Date;
  completedAt?: Date;
}

/** A step of a running plan waiting for a tool call's approval. */
export interface PlanWaiting {
  step: string;
  approval_id: string;
  since: string;
}

interface Row {
  id: string;
  organization_id: string;
  tenant_id: string | null;
  client_id: string | null;
  workflow_execution_id: string | null;
  query: string;
  domain: string | null;
  execution_mode: string;
  planner: string | null;
  status: PlanStatus;
  steps: unknown[];
  result: string | null;
  error: string | null;
  execution_time_ms: number | null;
  response: Record<string, unknown> | null;
  waiting?: PlanWaiting[] | null;
  created_at: Date | string;
  completed_at: Date | string | null;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

const toRecord = (r: Row): PlanRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  tenantId: opt(r.tenant_id),
  clientId: opt(r.client_id),
  workflowExecutionId: opt(r.workflow_execution_id),
  query: r.query,
  domain: opt(r.domain),
  executionMode: r.execution_mode,
  planner: opt(r.planner),
  status: r.status,
  steps: r.steps,
  result: opt(r.result),
  error: opt(r.error),
  executionTimeMs: opt(r.execution_time_ms),
  response: opt(r.response),
  ...(r.waiting?.length ? { waiting: r.waiting } : {}),
  createdAt: new Date(r.created_at),
  completedAt: r.completed_at === null ? undefined : new Date(r.completed_at),
});

/** Plan records (the `plans` table). Every read is scoped to the caller's organization and, when it has one, tenant. */
export class PlanRepository {
  constructor(private readonly db: Queryable) {}

  async start(p: PlanStart): Promise<void> {
    await this.db.query(
      `INSERT INTO plans (id, organization_id, tenant_id, client_id, workflow_execution_id, user_context, query, domain, execution_mode, planner, status, steps)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'running', $11)`,
      [
        p.id,
        p.organizationId,
        p.tenantId ?? null,
        p.clientId ?? null,
        p.workflowExecutionId,
        JSON.stringify(p.userContext),
        p.query,
        p.domain,
        p.executionMode,
        p.planner,
        JSON.stringify(p.steps),
      ],
    );
  }

  /** Records the end of a running plan; a plan already ended (cancelled elsewhere) keeps its first end. */
  /** The steps of a running plan that wait for an approval now (none: an empty list). */
  async setWaiting(id: string, waiting: readonly PlanWaiting[]): Promise<void> {
    await this.db.query(`UPDATE plans SET waiting = $2 WHERE id = $1 AND status = 'running'`, [
      id,
      waiting.length ? JSON.stringify(waiting) : null,
    ]);
  }

  async finish(id: string, end: PlanEnd): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE plans SET status = $2, steps = $3, result = $4, error = $5, execution_time_ms = $6, response = $7, waiting = NULL, completed_at = now()
       WHERE id = $1 AND status = 'running' RETURNING id`,
      [
        id,
        end.status,
        JSON.stringify(end.steps),
        end.result ?? null,
        end.error ?? null,
        Math.round(end.executionTimeMs),
        JSON.stringify(end.response),
      ],
    );
    return rows.length > 0;
  }

  /** One plan of the organization (and tenant, when the caller is narrowed to one); undefined otherwise. */
  async get(scope: { organizationId: string; tenantId?: string }, id: string): Promise<PlanRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT id, organization_id, tenant_id, client_id, workflow_execution_id, query, domain, execution_mode, planner, status, steps,
              result, error, execution_time_ms, response, waiting, created_at, completed_at
       FROM plans WHERE id = $1 AND organization_id = $2 AND ($3::text IS NULL OR tenant_id = $3)`,
      [id, scope.organizationId, scope.tenantId ?? null],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }
}
