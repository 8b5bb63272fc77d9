/**
 * What an organization spent over a time range, grouped (`GET /api/v1/spend`, docs/budgets.md): counted from the
 * audit rows, which every gateway replica writes durably with each call's cost (`metadata.cost_usd`, absent when
 * the model has no price), so the figures hold across replicas and restarts, unlike the ledgers, which keep only the
 * windows of the Budgets that exist.
 *
 * The rows counted are those of model calls: a row with a model or a token count (a governed LLM call, a plan step,
 * an entry a caller sent with `POST /api/audit/llm-call`); connector calls and events such as `client.revoked` have
 * neither. One statement, the same text on PostgreSQL and PGlite, bounded by a statement timeout: a time range
 * predicate on `created_at` (the BRIN index, or the organization's btree index), grouped with the total as one more
 * grouping set.
 */
import { MAX_SPEND_GROUPS, SPEND_GROUP_BY } from '../../api/http/gateway.js';
import { isoTimestamp } from '../../platform/iso-time.js';
import { withTimeout, type Db } from '../store/index.js';

/** A field spend can be grouped by. */
export type SpendGroup = (typeof SPEND_GROUP_BY)[number];

/** The column of each grouping: fixed text, never the caller's. */
const KEY: Record<SpendGroup, string> = {
  organization: 'a.organization_id',
  tenant: "a.metadata->>'tenant_id'",
  client: 'a.client_id',
  agent: "a.metadata->>'agent'",
  model: 'a.model',
};

export interface SpendQuery {
  organizationId: string;
  /** Only this tenant's rows (`metadata.tenant_id`). */
  tenantId?: string;
  groupBy: SpendGroup;
  /** Rows with `from <= created_at < to`. */
  from: Date;
  to: Date;
}

export interface SpendFigures {
  /** Model calls recorded. */
  requests: number;
  /** Prompt plus completion tokens. */
  tokens: number;
  /** US dollars of the calls that had a price. */
  costUsd: number;
  /** Calls without a price (their tokens count, their cost does not). */
  unpricedRequests: number;
}

export interface SpendGroupFigures extends SpendFigures {
  /** The group's value; null for the rows without one (no tenant, no agent). */
  key: string | null;
}

export interface SpendReport {
  /** By cost, then tokens, descending; at most MAX_SPEND_GROUPS. */
  groups: SpendGroupFigures[];
  total: SpendFigures;
  /** Whether groups were left out past MAX_SPEND_GROUPS. */
  truncated: boolean;
}

/** The spend query did not finish within its deadline. */
export class SpendTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`the spend query did not finish within ${timeoutMs} ms`, options);
    this.name = 'SpendTimeoutError';
  }
}

type Num = number | string | null;
interface Row {
  key: string | null;
  total: Num;
  requests: Num;
  tokens: Num;
  cost_usd: Num;
  unpriced: Num;
}

/** The spend of `q`, grouped, with its total. Throws SpendTimeoutError past `timeoutMs`. */
export async function spendReport(
  db: Pick<Db, 'transaction'>,
  q: SpendQuery,
  options: { timeoutMs?: number } = {},
): Promise<SpendReport> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { text, values } = spendStatement(q);
  const query = db.transaction(async (tx) => {
    await tx.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    return (await tx.query<Row>(text, values)).rows;
  });
  let rows: Row[];
  try {
    rows = await withTimeout(query, timeoutMs + 1000, 'spend query');
  } catch (err) {
    // 57014: query_canceled (the statement timeout); the StoreError: our own deadline (PGlite cannot cancel).
    const code = (err as { code?: unknown }).code;
    if (code === '57014' || (err instanceof Error && err.name === 'StoreError'))
      throw new SpendTimeoutError(timeoutMs, { cause: err });
    throw err;
  } finally {
    query.catch(() => undefined);
  }
  const totalRow = rows.find((r) => Number(r.total) === 1);
  const groups = rows.filter((r) => Number(r.total) !== 1).map((r) => ({ key: r.key, ...figures(r) }));
  return {
    groups: groups.slice(0, MAX_SPEND_GROUPS),
    total: totalRow ? figures(totalRow) : { requests: 0, tokens: 0, costUsd: 0, unpricedRequests: 0 },
    truncated: groups.length > MAX_SPEND_GROUPS,
  };
}

/** The statement: the total first (GROUPING = 1), then the groups in order, one more than listed (truncation). */
export function spendStatement(q: SpendQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [q.organizationId, isoTimestamp(q.from), isoTimestamp(q.to)];
  if (q.tenantId !== undefined) values.push(q.tenantId);
  values.push(MAX_SPEND_GROUPS + 2);
  const limit = `$${values.length}`;
  const text = `
WITH calls AS (
  SELECT ${KEY[q.groupBy]} AS key,
         COALESCE(a.total_tokens, COALESCE(a.prompt_tokens, 0) + COALESCE(a.completion_tokens, 0)) AS tokens,
         CASE WHEN jsonb_typeof(a.metadata->'cost_usd') = 'number' THEN (a.metadata->>'cost_usd')::numeric END AS cost
  FROM audit_entries a
  WHERE a.organization_id = $1
    AND a.created_at >= $2::timestamptz AND a.created_at < $3::timestamptz
    ${q.tenantId === undefined ? '' : `AND a.metadata->>'tenant_id' = $4::text`}
    AND (a.model IS NOT NULL OR a.total_tokens IS NOT NULL)
)
SELECT key, GROUPING(key) AS total, count(*) AS requests, COALESCE(sum(tokens), 0) AS tokens,
       COALESCE(sum(cost), 0) AS cost_usd, count(*) FILTER (WHERE cost IS NULL) AS unpriced
FROM calls
GROUP BY GROUPING SETS ((key), ())
ORDER BY GROUPING(key) DESC, cost_usd DESC, tokens DESC, key COLLATE "C" NULLS LAST
LIMIT ${limit}::int`;
  return { text, values };
}

function figures(r: Row): SpendFigures {
  return {
    requests: Number(r.requests ?? 0),
    tokens: Number(r.tokens ?? 0),
    // NB: to the micro-dollar, as prices are kept: a sum of many numerics is exact, its float need not look so.
    costUsd: Math.round(Number(r.cost_usd ?? 0) * 1e6) / 1e6,
    unpricedRequests: Number(r.unpriced ?? 0),
  };
}
