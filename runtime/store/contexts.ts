import { hash } from 'node:crypto';
import type { Queryable } from './db.js';
import { newId } from './ids.js';
import { isoTimestamp } from '../../platform/iso-time.js';
import { column, GroupInsert, type WriteObserver } from './group-insert.js';
import { PrecheckResultsRepository } from './precheck-results.js';

/** A recorded pre-check decision; an audit must name one that exists, is the caller's and has not expired. */
export interface PrecheckContext {
  id: string;
  organizationId: string;
  clientId: string;
  userToken: string;
  approved: boolean;
  policies: string[];
  blockReason: string | null;
  warnings: string[];
  createdAt: Date;
  expiresAt: Date;
}

interface Row {
  id: string;
  organization_id: string;
  client_id: string;
  user_token: string;
  approved: boolean;
  policies: string[];
  block_reason: string | null;
  warnings: string[];
  created_at: Date | string;
  expires_at: Date | string;
}

const toContext = (r: Row): PrecheckContext => ({
  id: r.id,
  organizationId: r.organization_id,
  clientId: r.client_id,
  userToken: r.user_token,
  approved: r.approved,
  policies: r.policies,
  blockReason: r.block_reason,
  warnings: r.warnings,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
});

const COLUMNS = {
  id: column.text,
  organization_id: column.text,
  client_id: column.text,
  user_token: column.text,
  query_sha256: column.text,
  approved: column.boolean,
  policies: column.textList,
  block_reason: column.textOrNull,
  warnings: column.textList,
  created_at: column.timestamp,
  expires_at: column.timestamp,
  llm_call_recorded_at: column.timestampOrNull,
};

export class ContextRepository {
  private readonly writer: GroupInsert;
  /** What each pre-check's policies did (the policy reports count them): a table of its own, kept past expiry. */
  readonly results: PrecheckResultsRepository;

  /**
   * @param writes where inserts go: `Db.relaxed` in production (a context lost in a database crash only makes
   * its audit answer 404), the same connection in a caller's transaction.
   */
  constructor(
    private readonly db: Queryable,
    writes: Queryable = db,
  ) {
    this.writer = new GroupInsert(writes, { table: 'precheck_contexts', columns: COLUMNS });
    this.results = new PrecheckResultsRepository(db, writes);
  }

  /** Times every committed INSERT of contexts and their results (the `steward_store_write_duration_seconds` histogram). */
  observeWrites(observer: WriteObserver): void {
    this.writer.onWrite = observer;
    this.results.observeWrites(observer);
  }

  /**
   * Stores a decision; resolves once the row is committed (group commit under load).
   * The query itself is not kept, only its SHA-256 (it may hold the PII that was blocked).
   */
  async record(input: {
    /** An id taken in advance with `newId('ctx')` (a governed call names its context before the row commits). */
    id?: string;
    organizationId: string;
    clientId: string;
    userToken: string;
    query: string;
    approved: boolean;
    policies: string[];
    blockReason?: string;
    warnings?: string[];
    createdAt: Date;
    expiresAt: Date;
    /**
     * The gateway writes this context's LLM-call audit entry itself (a governed call): `POST /api/audit/llm-call`
     * cannot add another.
     */
    auditedByGateway?: boolean;
  }): Promise<PrecheckContext> {
    const id = input.id ?? newId('ctx');
    await this.writer.insert({
      id,
      organization_id: input.organizationId,
      client_id: input.clientId,
      user_token: input.userToken,
      query_sha256: hash('sha256', input.query, 'hex'),
      approved: input.approved,
      policies: input.policies,
      block_reason: input.blockReason ?? null,
      warnings: input.warnings ?? [],
      created_at: isoTimestamp(input.createdAt),
      expires_at: isoTimestamp(input.expiresAt),
      llm_call_recorded_at: input.auditedByGateway ? isoTimestamp(input.createdAt) : null,
    });
    return {
      id,
      organizationId: input.organizationId,
      clientId: input.clientId,
      userToken: input.userToken,
      approved: input.approved,
      policies: input.policies,
      blockReason: input.blockReason ?? null,
      warnings: input.warnings ?? [],
      createdAt: input.createdAt,
      expiresAt: input.expiresAt,
    };
  }

  async get(organizationId: string, id: string): Promise<PrecheckContext | undefined> {
    const { rows } = await this.db.query<Row>(
      'SELECT * FROM precheck_contexts WHERE organization_id = $1 AND id = $2',
      [organizationId, id],
    );
    return rows[0] ? toContext(rows[0]) : undefined;
  }

  /**
   * Claims the context's one LLM-call audit entry at `at`: true for the first caller, false when it was claimed
   * before (a replay) or the context is not the organization's. Atomic: two concurrent claims cannot both win.
   */
  async claimLlmCallAudit(organizationId: string, id: string, at: Date): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE precheck_contexts SET llm_call_recorded_at = $3
       WHERE organization_id = $1 AND id = $2 AND llm_call_recorded_at IS NULL RETURNING id`,
      [organizationId, id, at],
    );
    return rows.length === 1;
  }

  /** Gives a claim back (its audit entry could not be written), so that the caller may retry. */
  async releaseLlmCallAudit(organizationId: string, id: string): Promise<void> {
    await this.db.query(
      'UPDATE precheck_contexts SET llm_call_recorded_at = NULL WHERE organization_id = $1 AND id = $2',
      [organizationId, id],
    );
  }

  /** Deletes contexts expired before `before` that no audit entry references; returns how many. */
  async purgeExpired(before: Date): Promise<number> {
    const { rows } = await this.db.query(
      `DELETE FROM precheck_contexts c WHERE c.expires_at < $1
         AND NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.context_id = c.id) RETURNING c.id`,
      [before],
    );
    return rows.length;
  }
}
