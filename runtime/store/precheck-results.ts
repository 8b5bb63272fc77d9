/**
 * What each pre-check's policies did, for the policy reports (runtime/policy/reports): the policies it evaluated and
 * the results of those that matched, with who asked. Governed calls and connector calls carry the same facts in
 * their audit row's metadata; an approved pre-check has no audit row of its own (the caller's
 * `POST /api/audit/llm-call` comes later, or never), so every pre-check's facts go here (a blocked one's audit row,
 * written by its route, is not counted by the reports).
 *
 * NB: a table of its own, not columns of `precheck_contexts`: a context may be deleted once it expires
 * (`ContextRepository.purgeExpired` removes expired contexts no audit entry names), and the reports count the last
 * 24 hours. Written like contexts (group commit, relaxed commit), with
 * a block-range index on the time only, so that a pre-check pays one more row in a batch and no B-tree upkeep.
 */
import type { PolicyResult } from '../policy/types.js';
import type { Queryable } from './db.js';
import { column, GroupInsert, type WriteObserver } from './group-insert.js';
import { isoTimestamp } from '../../platform/iso-time.js';

export interface PrecheckResultsInput {
  /** The pre-check's context id. */
  contextId: string;
  organizationId: string;
  /** The tenant of the caller's credential (bound or narrowed); absent: organization-wide. */
  tenantId?: string;
  clientId: string;
  /** Every policy evaluated, by name. */
  evaluated: readonly string[];
  /** Each policy that matched, with its mode and decision. */
  results: readonly PolicyResult[];
  createdAt: Date;
}

const COLUMNS = {
  context_id: column.text,
  organization_id: column.text,
  tenant_id: column.textOrNull,
  client_id: column.text,
  policies_evaluated: column.json,
  policy_results: column.json,
  created_at: column.timestamp,
};

/** One pre-check's facts, as `POST /api/audit/llm-call` copies them into the caller's audit row. */
export interface PrecheckResults {
  evaluated: string[];
  results: PolicyResult[];
}

export class PrecheckResultsRepository {
  private readonly writer: GroupInsert;

  /**
   * @param db where reads go.
   * @param writes where inserts go: `Db.relaxed` in production, as for contexts (a lost row is a missed count).
   */
  constructor(
    private readonly db: Queryable,
    writes: Queryable = db,
  ) {
    this.writer = new GroupInsert(writes, { table: 'precheck_policy_results', columns: COLUMNS });
  }

  /** Times every committed INSERT (the `steward_store_write_duration_seconds` histogram). */
  observeWrites(observer: WriteObserver): void {
    this.writer.onWrite = observer;
  }

  /** Stores one pre-check's facts; resolves once the row is committed (group commit under load). */
  async record(input: PrecheckResultsInput): Promise<void> {
    await this.writer.insert({
      context_id: input.contextId,
      organization_id: input.organizationId,
      tenant_id: input.tenantId ?? null,
      client_id: input.clientId,
      policies_evaluated: input.evaluated,
      policy_results: input.results,
      created_at: isoTimestamp(input.createdAt),
    });
  }

  /**
   * The facts of one pre-check (its context's id and time), or undefined when none were written (no policy was
   * evaluated) or the row was lost. NB: the time narrows the block-range index to the row's block.
   */
  async find(organizationId: string, contextId: string, createdAt: Date): Promise<PrecheckResults | undefined> {
    const { rows } = await this.db.query<{ policies_evaluated: string[]; policy_results: PolicyResult[] }>(
      `SELECT policies_evaluated, policy_results FROM precheck_policy_results
       WHERE created_at = $1 AND context_id = $2 AND organization_id = $3 LIMIT 1`,
      [isoTimestamp(createdAt), contextId, organizationId],
    );
    const row = rows[0];
    return row ? { evaluated: row.policies_evaluated, results: row.policy_results } : undefined;
  }
}
