/**
 * Approvals of parked MCP tool calls (migration 10, docs/approvals.md). A row is bound to the hash of the exact call
 * (connector, tool, canonical arguments) and to the principal that made it; it is decided once, used once, and
 * expires. Every transition is one conditional UPDATE, so that two replicas (or two retries) cannot both win.
 */
import type { Queryable } from './db.js';
import { newId } from './ids.js';

/** `expired` is not stored: a pending or approved row past its expiry reads as expired. */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'used' | 'expired';

export interface ApprovalRecord {
  id: string;
  organizationId: string;
  tenantId: string | null;
  /** The principal that made the call (runtime/auth/roles.ts `principalOf`). */
  requestedBy: string;
  callHash: string;
  connector: string;
  tool: string;
  /** The call's arguments, as stored for approvers: masked by the detectors. */
  arguments: unknown;
  policies: { policy: string; reasons: readonly string[] }[];
  state: ApprovalState;
  createdAt: Date;
  expiresAt: Date;
  decidedBy: string | null;
  decidedAt: Date | null;
  comment: string | null;
  usedAt: Date | null;
}

interface Row {
  id: string;
  organization_id: string;
  tenant_id: string | null;
  requested_by: string;
  call_hash: string;
  connector: string;
  tool: string;
  arguments: unknown;
  policies: ApprovalRecord['policies'];
  state: Exclude<ApprovalState, 'expired'>;
  created_at: Date | string;
  expires_at: Date | string;
  decided_by: string | null;
  decided_at: Date | string | null;
  comment: string | null;
  used_at: Date | string | null;
}

const date = (v: Date | string | null) => (v === null ? null : new Date(v));

function toRecord(r: Row, now: Date): ApprovalRecord {
  const expiresAt = new Date(r.expires_at);
  const open = r.state === 'pending' || r.state === 'approved';
  return {
    id: r.id,
    organizationId: r.organization_id,
    tenantId: r.tenant_id,
    requestedBy: r.requested_by,
    callHash: r.call_hash,
    connector: r.connector,
    tool: r.tool,
    arguments: r.arguments,
    policies: r.policies,
    state: open && expiresAt.getTime() <= now.getTime() ? 'expired' : r.state,
    createdAt: new Date(r.created_at),
    expiresAt,
    decidedBy: r.decided_by,
    decidedAt: date(r.decided_at),
    comment: r.comment,
    usedAt: date(r.used_at),
  };
}

/** Why a presented approval cannot run the call. */
export type ApprovalRefusal =
  'NOT_FOUND' | 'NOT_APPROVED' | 'DENIED' | 'USED' | 'EXPIRED' | 'OTHER_CALL' | 'OTHER_CALLER';

export class ApprovalRepository {
  constructor(private readonly db: Queryable) {}

  async create(input: {
    organizationId: string;
    tenantId?: string;
    requestedBy: string;
    callHash: string;
    connector: string;
    tool: string;
    arguments: unknown;
    policies: ApprovalRecord['policies'];
    now: Date;
    ttlMs: number;
  }): Promise<ApprovalRecord> {
    const { rows } = await this.db.query<Row>(
      `INSERT INTO approvals (id, organization_id, tenant_id, requested_by, call_hash, connector, tool, arguments,
         policies, state, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $11) RETURNING *`,
      [
        newId('apr'),
        input.organizationId,
        input.tenantId ?? null,
        input.requestedBy,
        input.callHash,
        input.connector,
        input.tool,
        JSON.stringify(input.arguments ?? null),
        JSON.stringify(input.policies),
        input.now,
        new Date(input.now.getTime() + input.ttlMs),
      ],
    );
    return toRecord(rows[0]!, input.now);
  }

  async get(organizationId: string, id: string, now: Date): Promise<ApprovalRecord | undefined> {
    const { rows } = await this.db.query<Row>('SELECT * FROM approvals WHERE organization_id = $1 AND id = $2', [
      organizationId,
      id,
    ]);
    return rows[0] ? toRecord(rows[0], now) : undefined;
  }

  /** The organization's approvals, newest first; `state` filters (expired rows are computed, not stored). */
  async list(
    organizationId: string,
    o: { state?: ApprovalState; tenantId?: string; requestedBy?: string; limit: number; now: Date },
  ): Promise<ApprovalRecord[]> {
    const where = ['organization_id = $1'];
    const args: unknown[] = [organizationId];
    if (o.tenantId !== undefined) where.push(`tenant_id = $${args.push(o.tenantId)}`);
    if (o.requestedBy !== undefined) where.push(`requested_by = $${args.push(o.requestedBy)}`);
    if (o.state === 'pending' || o.state === 'approved')
      where.push(`state = $${args.push(o.state)}`, `expires_at > $${args.push(o.now)}`);
    else if (o.state === 'expired')
      where.push(`state IN ('pending', 'approved')`, `expires_at <= $${args.push(o.now)}`);
    else if (o.state) where.push(`state = $${args.push(o.state)}`);
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM approvals WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${args.push(o.limit)}`,
      args,
    );
    return rows.map((r) => toRecord(r, o.now));
  }

  /** Approves or denies a pending, unexpired approval; undefined when it was not pending (decided, used, expired). */
  async decide(
    organizationId: string,
    id: string,
    d: { approve: boolean; by: string; comment?: string; now: Date },
  ): Promise<ApprovalRecord | undefined> {
    const { rows } = await this.db.query<Row>(
      `UPDATE approvals SET state = $3, decided_by = $4, decided_at = $5, comment = $6
       WHERE organization_id = $1 AND id = $2 AND state = 'pending' AND expires_at > $5 RETURNING *`,
      [organizationId, id, d.approve ? 'approved' : 'denied', d.by, d.now, d.comment ?? null],
    );
    return rows[0] ? toRecord(rows[0], d.now) : undefined;
  }

  /**
   * Uses an approval for the call it was given for: approved, unexpired, the same call hash and caller. Single use:
   * the row turns `used` in the same statement, so that a call retried twice runs once. The refusal says why not.
   */
  async use(
    organizationId: string,
    id: string,
    call: { callHash: string; requestedBy: string; now: Date },
  ): Promise<{ approval: ApprovalRecord } | { refusal: ApprovalRefusal; approval?: ApprovalRecord }> {
    const { rows } = await this.db.query<Row>(
      `UPDATE approvals SET state = 'used', used_at = $5
       WHERE organization_id = $1 AND id = $2 AND state = 'approved' AND expires_at > $5
         AND call_hash = $3 AND requested_by = $4 RETURNING *`,
      [organizationId, id, call.callHash, call.requestedBy, call.now],
    );
    if (rows[0]) return { approval: toRecord(rows[0], call.now) };
    const approval = await this.get(organizationId, id, call.now);
    if (!approval) return { refusal: 'NOT_FOUND' };
    const refusal: ApprovalRefusal =
      approval.state === 'expired'
        ? 'EXPIRED'
        : approval.state === 'used'
          ? 'USED'
          : approval.state === 'denied'
            ? 'DENIED'
            : approval.state === 'pending'
              ? 'NOT_APPROVED'
              : approval.callHash !== call.callHash
                ? 'OTHER_CALL'
                : 'OTHER_CALLER';
    return { refusal, approval };
  }
}
