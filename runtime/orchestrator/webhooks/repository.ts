/**
 * Webhook registrations and deliveries in the operational database (migrations 1 and 4). Every read and write of
 * a registration names its organization; deliveries are claimed with a lease so that one worker, in whichever
 * process, sends a row at a time.
 */
import type { Db } from '../../store/index.js';
import { newId } from '../../store/index.js';
import type { Identity } from '../../auth/identity.js';
import { tenantFilter, tenantSql } from '../../auth/scope.js';
import type { WebhookEvent } from './events.js';

export interface WebhookRecord {
  id: string;
  organizationId: string;
  /** The tenant whose plans it hears of; null: organization-wide (every plan of the organization). */
  tenantId: string | null;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookInput {
  url: string;
  events: WebhookEvent[];
  secret: string;
  active: boolean;
}

/** A delivery claimed for sending, with what the send needs. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  organizationId: string;
  /** The receiver's origin (`https://hooks.example.com:8443`, lower-cased): what the per-target limits count. */
  target: string;
  url: string;
  secret: string;
  /** Headers the registration's deliveries carry besides Steward's own (an A2A push config's token). */
  headers: Record<string, string>;
  /** `a2a-push`: the body is `payload.data` bare (an A2A StreamResponse), signed in the headers only. */
  kind: 'registration' | 'a2a-push';
  event: string;
  payload: { event: string; timestamp: string; data: Record<string, unknown> };
  attempts: number;
}

export interface AttemptRecord {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  orderKey: string;
  nextAttemptAt: Date;
  createdAt: Date;
  deliveredAt: Date | null;
  lastError: string | null;
  responseStatus: number | null;
  attemptLog: AttemptRecord[];
}

interface WebhookRow {
  id: string;
  organization_id: string;
  tenant_id: string | null;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

const toWebhook = (r: WebhookRow): WebhookRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  tenantId: r.tenant_id,
  url: r.url,
  events: r.events,
  active: r.active,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const COLUMNS = 'id, organization_id, tenant_id, url, events, active, created_at, updated_at';

/**
 * Who reads and writes registrations: the organization, and the tenant filter of runtime/auth/scope.ts
 * (`tenantFilter`), which the statements apply to `tenant_id` as `$2` (bound) and `$3` (narrowed).
 */
export type WebhookScope = { organizationId: string } & ReturnType<typeof tenantFilter>;

/** The scope of `identity`'s reads and writes. */
export const webhookScope = (identity: Identity): WebhookScope => ({
  organizationId: identity.organizationId,
  ...tenantFilter(identity),
});

// NB: only registrations made here: an A2A push config's (`kind = 'a2a-push'`, runtime/store/a2a-push.ts) is its task's.
const IN_SCOPE = `organization_id = $1 AND ${tenantSql('tenant_id', '$2', '$3')} AND kind = 'registration'`;
const scopeParams = (s: WebhookScope) => [s.organizationId, s.bound, s.narrowed];

/**
 * How many deliveries a worker may claim per organization and per target (an organization's receiver origin),
 * counting the sends it has in flight. A target is the organization's own: another organization's failing
 * receiver on the same host takes none of its slots.
 */
export interface ClaimFairness {
  perOrganization: number;
  perTarget: number;
  inFlight: { organizations: Record<string, number>; targets: Record<string, Record<string, number>> };
}

/** The origin of a registration `w`'s URL, as ClaimedDelivery.target; the whole URL if it has no `scheme://`. */
const TARGET = `lower(COALESCE(substring(w.url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'), w.url))`;

/** A delivery `d` that no earlier pending delivery of its registration and plan holds back. */
const HEAD_OF_ORDER = `NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id AND e.order_key = d.order_key
  AND e.status = 'pending' AND e.seq < d.seq)`;

export class WebhookRepository {
  constructor(private readonly db: Db) {}

  /** A registration of the organization for `tenantId` (null: organization-wide; runtime/auth/scope.ts decides it). */
  async create(organizationId: string, tenantId: string | null, input: WebhookInput, at: Date): Promise<WebhookRecord> {
    const { rows } = await this.db.query<WebhookRow>(
      `INSERT INTO webhooks (id, organization_id, tenant_id, url, events, secret, active, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${COLUMNS}`,
      [newId('whk'), organizationId, tenantId, input.url, JSON.stringify(input.events), input.secret, input.active, at],
    );
    return toWebhook(rows[0]!);
  }

  async list(scope: WebhookScope): Promise<WebhookRecord[]> {
    const { rows } = await this.db.query<WebhookRow>(
      `SELECT ${COLUMNS} FROM webhooks WHERE ${IN_SCOPE} ORDER BY created_at, id`,
      scopeParams(scope),
    );
    return rows.map(toWebhook);
  }

  async get(scope: WebhookScope, id: string): Promise<WebhookRecord | undefined> {
    const { rows } = await this.db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE ${IN_SCOPE} AND id = $4`, [
      ...scopeParams(scope),
      id,
    ]);
    return rows[0] ? toWebhook(rows[0]) : undefined;
  }

  async update(
    scope: WebhookScope,
    id: string,
    patch: Partial<WebhookInput>,
    at: Date,
  ): Promise<WebhookRecord | undefined> {
    const { rows } = await this.db.query<WebhookRow>(
      `UPDATE webhooks SET url = COALESCE($5, url), events = COALESCE($6::jsonb, events), secret = COALESCE($7, secret),
         active = COALESCE($8, active), updated_at = $9
       WHERE ${IN_SCOPE} AND id = $4 RETURNING ${COLUMNS}`,
      [
        ...scopeParams(scope),
        id,
        patch.url ?? null,
        patch.events ? JSON.stringify(patch.events) : null,
        patch.secret ?? null,
        patch.active ?? null,
        at,
      ],
    );
    return rows[0] ? toWebhook(rows[0]) : undefined;
  }

  async remove(scope: WebhookScope, id: string): Promise<boolean> {
    const { rows } = await this.db.query(`DELETE FROM webhooks WHERE ${IN_SCOPE} AND id = $4 RETURNING id`, [
      ...scopeParams(scope),
      id,
    ]);
    return rows.length > 0;
  }

  /**
   * One pending delivery per active registration that subscribes to the event and hears of the plan's tenant (an
   * organization-wide one, or the tenant's own), committed in one transaction. Returns how many.
   */
  async enqueue(
    source: { organizationId: string; tenantId?: string },
    event: WebhookEvent,
    payload: unknown,
    orderKey: string,
    at: Date,
  ): Promise<number> {
    const { organizationId } = source;
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `SELECT id FROM webhooks WHERE organization_id = $1 AND active AND kind = 'registration' AND events ? $2
         AND (tenant_id IS NULL OR tenant_id = $3)`,
        [organizationId, event, source.tenantId ?? null],
      );
      for (const { id } of rows) {
        await tx.query(
          `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event, payload, order_key, next_attempt_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
          [newId('whd'), id, organizationId, event, JSON.stringify(payload), orderKey, at],
        );
      }
      return rows.length;
    });
  }

  /**
   * Claims up to `limit` due deliveries for `leaseMs`: pending, due, of an active registration, not leased by
   * another worker, and the first pending one of their (registration, order key) — a later event of a plan waits
   * for the earlier ones. Organizations take turns: rows are ranked within their organization and the least busy
   * organization's next row comes first (its sends in flight plus its rank), so one organization's backlog, however
   * old, takes one slot before another's first. Per-target and per-organization caps (`fairness`, counting sends in
   * flight) leave the rest for a later claim; without `fairness` only the turns apply.
   */
  async claimDue(now: Date, limit: number, leaseMs: number, fairness?: ClaimFairness): Promise<ClaimedDelivery[]> {
    const caps = fairness ?? { perOrganization: limit, perTarget: limit, inFlight: { organizations: {}, targets: {} } };
    const { rows } = await this.db.query<{
      id: string;
      webhook_id: string;
      organization_id: string;
      target: string;
      url: string;
      secret: string;
      headers: Record<string, string> | null;
      kind: 'registration' | 'a2a-push';
      event: string;
      payload: ClaimedDelivery['payload'];
      attempts: number;
    }>(
      // NB: FOR UPDATE may not share a query level with window functions, hence the CTEs; the locking level repeats
      // the claimability test on d, so that a row another worker claimed meanwhile is re-checked, not taken twice.
      `WITH candidates AS (
         SELECT d.id, d.organization_id AS org, ${TARGET} AS target, d.next_attempt_at, d.seq,
           row_number() OVER (PARTITION BY d.organization_id, ${TARGET} ORDER BY d.next_attempt_at, d.seq) AS target_rank
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until <= $1) AND ${HEAD_OF_ORDER}),
       eligible AS (
         SELECT c.id, c.next_attempt_at, c.seq,
           row_number() OVER (PARTITION BY c.org ORDER BY c.next_attempt_at, c.seq) + COALESCE(($5::jsonb ->> c.org)::int, 0) AS org_load
         FROM candidates c
         WHERE c.target_rank + COALESCE(($6::jsonb -> c.org ->> c.target)::int, 0) <= $7),
       due AS (
         SELECT d.id FROM webhook_deliveries d JOIN eligible e ON e.id = d.id
         WHERE e.org_load <= $4 AND d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until <= $1)
         ORDER BY e.org_load, e.next_attempt_at, e.seq LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
       UPDATE webhook_deliveries d SET locked_until = $3 FROM due, webhooks w
       WHERE d.id = due.id AND w.id = d.webhook_id
       RETURNING d.id, d.webhook_id, d.organization_id, ${TARGET} AS target, w.url, w.secret, w.headers, w.kind, d.event, d.payload,
         d.attempts`,
      [
        now,
        limit,
        new Date(now.getTime() + leaseMs),
        caps.perOrganization,
        JSON.stringify(caps.inFlight.organizations),
        JSON.stringify(caps.inFlight.targets),
        caps.perTarget,
      ],
    );
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhook_id,
      organizationId: r.organization_id,
      target: r.target,
      url: r.url,
      secret: r.secret ?? '',
      headers: r.headers ?? {},
      kind: r.kind,
      event: r.event,
      payload: r.payload,
      attempts: Number(r.attempts),
    }));
  }

  /**
   * Records one attempt and its outcome in one transaction: delivered, retried at `retryAt`, or failed for good
   * (`retryAt` undefined after an unsuccessful attempt).
   */
  async recordAttempt(
    id: string,
    attempt: AttemptRecord,
    outcome: { delivered: true } | { delivered: false; retryAt?: Date },
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        // NB: the registration (and its deliveries) may have been deleted during the send: then nothing is recorded.
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error)
         SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = $1) ON CONFLICT DO NOTHING`,
        [id, attempt.attempt, attempt.startedAt, attempt.durationMs, attempt.responseStatus, attempt.error],
      );
      const status = outcome.delivered ? 'delivered' : outcome.retryAt ? 'pending' : 'failed';
      const finished = new Date(attempt.startedAt.getTime() + attempt.durationMs);
      await tx.query(
        `UPDATE webhook_deliveries SET attempts = $2, status = $3, locked_until = NULL, last_error = $4, response_status = $5,
           next_attempt_at = COALESCE($6, next_attempt_at), delivered_at = $7 WHERE id = $1`,
        [
          id,
          attempt.attempt,
          status,
          attempt.error,
          attempt.responseStatus,
          outcome.delivered ? null : (outcome.retryAt ?? null),
          outcome.delivered ? finished : null,
        ],
      );
    });
  }

  /**
   * When the next claimable delivery falls due (its retry time or the end of another worker's lease, whichever is
   * later; rows waiting behind an earlier event of their plan or of an inactive registration do not count), or
   * nothing when none is pending. With `after`, only times later than it count: rows due already but held back by
   * the fairness caps are claimed when a send ends, not by polling.
   */
  async nextDueAt(after?: Date): Promise<Date | undefined> {
    const { rows } = await this.db.query<{ at: Date | string | null }>(
      `SELECT min(t.at) AS at FROM (
         SELECT GREATEST(d.next_attempt_at, COALESCE(d.locked_until, d.next_attempt_at)) AS at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND w.active
         WHERE d.status = 'pending' AND ${HEAD_OF_ORDER}) t
       WHERE $1::timestamptz IS NULL OR t.at > $1`,
      [after ?? null],
    );
    return rows[0]?.at ? new Date(rows[0].at) : undefined;
  }

  /** The latest deliveries of one registration in the caller's scope, each with its attempts. */
  async deliveries(scope: WebhookScope, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const { rows } = await this.db.query<Record<string, unknown>>(
      `SELECT d.id, d.event, d.status, d.attempts, d.order_key, d.next_attempt_at, d.created_at, d.delivered_at, d.last_error, d.response_status,
         COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
           'response_status', a.response_status, 'error', a.error) ORDER BY a.attempt)
           FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS attempt_log
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE w.organization_id = $1 AND ${tenantSql('w.tenant_id', '$2', '$3')} AND w.kind = 'registration' AND d.webhook_id = $4
       ORDER BY d.seq DESC LIMIT $5`,
      [...scopeParams(scope), webhookId, limit],
    );
    return rows.map((r) => ({
      id: String(r.id),
      event: String(r.event),
      status: r.status as DeliveryRecord['status'],
      attempts: Number(r.attempts),
      orderKey: String(r.order_key),
      nextAttemptAt: new Date(r.next_attempt_at as string),
      createdAt: new Date(r.created_at as string),
      deliveredAt: r.delivered_at ? new Date(r.delivered_at as string) : null,
      lastError: (r.last_error as string | null) ?? null,
      responseStatus: r.response_status === null ? null : Number(r.response_status),
      attemptLog: (
        r.attempt_log as {
          attempt: number;
          started_at: string;
          duration_ms: number;
          response_status: number | null;
          error: string | null;
        }[]
      ).map((a) => ({
        attempt: Number(a.attempt),
        startedAt: new Date(a.started_at),
        durationMs: Number(a.duration_ms),
        responseStatus: a.response_status,
        error: a.error,
      })),
    }));
  }
}
