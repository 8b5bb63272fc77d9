import type { Queryable } from './db.js';
import { newId } from './ids.js';
import { rowDigest, type ChainedRow } from './audit-digest.js';
import { activeTraceId } from '../tracing/spans.js';
import { column, GroupInsert, type WriteObserver } from './group-insert.js';
import {
  agentLatencies,
  findAudit,
  searchAudit,
  summarizeAudit,
  type AgentLatency,
  type AuditFilter,
  type AuditPage,
  type AuditScope,
  type AuditSummary,
  type AuditWindow,
} from './audit-query.js';

export interface AuditInput {
  /** An id taken in advance with `newId('aud')` (a stream names its answer before the entry is written). */
  id?: string;
  organizationId: string;
  clientId: string;
  contextId: string | null;
  userToken?: string;
  provider?: string;
  model?: string;
  prompt?: string;
  response?: string;
  latencyMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
  metadata?: Record<string, unknown>;
}

export interface AuditEntry extends AuditInput {
  id: string;
  createdAt: Date;
}

/** A stored row: the chained columns, `created_at` as the driver gives it. */
interface Row extends Omit<ChainedRow, 'created_at'> {
  created_at: Date | string;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

const COLUMNS = {
  id: column.text,
  organization_id: column.text,
  client_id: column.text,
  context_id: column.textOrNull,
  user_token: column.textOrNull,
  provider: column.textOrNull,
  model: column.textOrNull,
  prompt: column.textOrNull,
  response: column.textOrNull,
  latency_ms: column.numberOrNull,
  prompt_tokens: column.numberOrNull,
  completion_tokens: column.numberOrNull,
  total_tokens: column.numberOrNull,
  metadata: column.json,
  created_at: column.timestamp,
  row_digest: column.text,
};

export class AuditRepository {
  private readonly writer: GroupInsert;

  constructor(private readonly db: Queryable) {
    this.writer = new GroupInsert(db, { table: 'audit_entries', columns: COLUMNS });
  }

  /** Times every committed INSERT (the `steward_store_write_duration_seconds` histogram). */
  observeWrites(observer: WriteObserver): void {
    this.writer.onWrite = observer;
  }

  /** Inserts one entry; when the promise resolves the row is committed (group commit under load). */
  async record(input: AuditInput): Promise<AuditEntry> {
    const id = input.id ?? newId('aud');
    const createdAt = new Date();
    const row: ChainedRow = {
      id,
      organization_id: input.organizationId,
      client_id: input.clientId,
      context_id: input.contextId,
      user_token: input.userToken ?? null,
      provider: input.provider ?? null,
      model: input.model ?? null,
      prompt: input.prompt ?? null,
      response: input.response ?? null,
      latency_ms: input.latencyMs ?? null,
      prompt_tokens: input.promptTokens ?? null,
      completion_tokens: input.completionTokens ?? null,
      total_tokens: input.totalTokens ?? null,
      metadata: traced(input.metadata ?? {}),
      created_at: createdAt.toISOString(),
    };
    // NB: the insert trigger links the digest into the organization's chain (migration 9).
    await this.writer.insert({ ...row, row_digest: `\\x${rowDigest(row).toString('hex')}` });
    return { ...input, id, createdAt };
  }

  async get(organizationId: string, id: string): Promise<AuditEntry | undefined> {
    const { rows } = await this.db.query<Row>('SELECT * FROM audit_entries WHERE organization_id = $1 AND id = $2', [
      organizationId,
      id,
    ]);
    return rows[0] ? this.toEntry(rows[0]) : undefined;
  }

  /**
   * One page of the scope's entries matching the filter, newest first (docs/audit-api.md); a RangeError when the page
   * token is not one a page gave.
   */
  async search(
    scope: AuditScope,
    filter: AuditFilter,
    page: AuditPage,
  ): Promise<{ entries: AuditEntry[]; nextPageToken?: string }> {
    const { rows, nextPageToken } = await searchAudit<Row>(this.db, scope, filter, page);
    return { entries: rows.map((r) => this.toEntry(r)), ...(nextPageToken ? { nextPageToken } : {}) };
  }

  /** The scope's entry of this id (undefined outside the scope, as if it did not exist). */
  async find(scope: AuditScope, id: string): Promise<AuditEntry | undefined> {
    const row = await findAudit<Row>(this.db, scope, id);
    return row ? this.toEntry(row) : undefined;
  }

  /** Requests, blocks, redactions, warnings and Steward's added latency per bucket of the window ending at `now`. */
  summary(scope: AuditScope, window: AuditWindow, now: Date): Promise<AuditSummary> {
    return summarizeAudit(this.db, scope, window, now);
  }

  /** Each AgentConfig's calls and upstream latency in the scope, from `from` to `to`. */
  agentLatencies(scope: AuditScope, from: Date, to: Date): Promise<AgentLatency[]> {
    return agentLatencies(this.db, scope, from, to);
  }

  async count(organizationId: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM audit_entries WHERE organization_id = $1',
      [organizationId],
    );
    return Number(rows[0]!.n);
  }

  private toEntry(r: Row): AuditEntry {
    return {
      id: r.id,
      organizationId: r.organization_id,
      clientId: r.client_id,
      contextId: r.context_id,
      userToken: opt(r.user_token),
      provider: opt(r.provider),
      model: opt(r.model),
      prompt: opt(r.prompt),
      response: opt(r.response),
      latencyMs: opt(r.latency_ms),
      promptTokens: opt(r.prompt_tokens),
      completionTokens: opt(r.completion_tokens),
      totalTokens: opt(r.total_tokens),
      metadata: r.metadata,
      createdAt: new Date(r.created_at),
    };
  }
}

/**
 * The row's metadata with the trace it was written in (`trace_id`, runtime/tracing), Steward's over whatever a caller
 * put there; as it was outside a trace.
 */
function traced(metadata: Record<string, unknown>): Record<string, unknown> {
  const traceId = activeTraceId();
  return traceId === undefined ? metadata : { ...metadata, trace_id: traceId };
}
