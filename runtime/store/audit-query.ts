/**
 * Reads of the audit log for people (the `/api/v1/audit` routes, docs/audit-api.md): one organization's rows, in its
 * tenant scope, found by what the governed rows record in `metadata` (runtime/governed/audit-record.ts and the
 * connector rows of runtime/gateway/connectors/call.ts), newest first; and per-bucket counts and Steward-added
 * latency over a recent window. Both are bounded by the `(organization_id, created_at)` index.
 */
import type { Queryable } from './db.js';
import { tenantSql } from '../auth/scope.js';
import { decodePageToken, encodePageToken, type KeysetPosition } from './page-token.js';

/**
 * Whose rows: the organization, and the tenant filter of runtime/auth/scope.ts (`tenantFilter`) over the rows'
 * `metadata.tenant_id` — a bound credential sees its tenant's rows only, a narrowed one its tenant's and the
 * organization-wide ones (written without a tenant).
 */
export interface AuditScope {
  organizationId: string;
  bound: string | null;
  narrowed: string | null;
}

export interface AuditFilter {
  /** `metadata.decision`, or a connector row's own (`metadata.connector_call.decision`: `blocked`, `failed`...). */
  decision?: string;
  /** A policy that matched: named in `metadata.policies` (what blocked) or `metadata.policy_results[].policy`. */
  policy?: string;
  surface?: string;
  via?: string;
  client?: string;
  /** `metadata.agent`: the AgentConfig of a plan step or an A2A call. */
  agent?: string;
  /** Rows at or after this instant. */
  from?: Date;
  /** Rows before this instant. */
  to?: Date;
}

export interface AuditPage {
  /** 1..200, validated by the caller. */
  limit: number;
  /** `nextPageToken` of the previous page. */
  pageToken?: string;
}

/** The windows of `summary`, with their bucket sizes (seconds): 60, 96 and 84 buckets. */
export const AUDIT_WINDOWS = {
  '1h': { seconds: 3600, bucket: 60 },
  '24h': { seconds: 86_400, bucket: 900 },
  '7d': { seconds: 604_800, bucket: 7200 },
} as const;
export type AuditWindow = keyof typeof AUDIT_WINDOWS;

export interface AuditBucket {
  start: Date;
  requests: number;
  blocks: number;
  redactions: number;
  warnings: number;
  /** null: no row of the bucket records Steward's added time. */
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface AuditSummary {
  window: AuditWindow;
  bucketSeconds: number;
  buckets: AuditBucket[];
}

// $1..$3 are the scope, in the order of scopeParams.
const IN_SCOPE = `organization_id = $1 AND ${tenantSql(`(metadata->>'tenant_id')`, '$2', '$3')}`;
const scopeParams = (s: AuditScope) => [s.organizationId, s.bound, s.narrowed];

// $4..$11 are the filter; an absent one (NULL) matches every row. NB: `@>` on a JSON array is false, not an error,
// when the key holds something else (a caller's metadata may), so no row fails the query.
const FILTERED = `${IN_SCOPE}
  AND ($4::text IS NULL OR metadata->>'decision' = $4 OR metadata->'connector_call'->>'decision' = $4)
  AND ($5::text IS NULL OR metadata->'policies' @> jsonb_build_array($5::text)
       OR metadata->'policy_results' @> jsonb_build_array(jsonb_build_object('policy', $5::text)))
  AND ($6::text IS NULL OR metadata->>'surface' = $6) AND ($7::text IS NULL OR metadata->>'via' = $7)
  AND ($8::text IS NULL OR client_id = $8) AND ($9::text IS NULL OR metadata->>'agent' = $9)
  AND ($10::timestamptz IS NULL OR created_at >= $10) AND ($11::timestamptz IS NULL OR created_at < $11)`;

const filterParams = (f: AuditFilter) => [
  f.decision ?? null,
  f.policy ?? null,
  f.surface ?? null,
  f.via ?? null,
  f.client ?? null,
  f.agent ?? null,
  f.from ?? null,
  f.to ?? null,
];

/** A row's `created_at` to the microsecond, in UTC: the cursor's instant, exact whoever wrote the row. */
const CURSOR_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const CURSOR_AT_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The cursor of a page token; a RangeError when it is not one this module made (microsecond instants). */
export const decodeAuditCursor = (token: string): KeysetPosition =>
  decodePageToken(token, (at) => CURSOR_AT_FORMAT.test(at));

/**
 * One page of the scope's rows matching the filter, newest first (keyset on `(created_at, id)`). `R` is the
 * caller's row shape (every column of audit_entries).
 */
export async function searchAudit<R extends { id: string }>(
  db: Queryable,
  scope: AuditScope,
  filter: AuditFilter,
  page: AuditPage,
): Promise<{ rows: R[]; nextPageToken?: string }> {
  const after = page.pageToken ? decodeAuditCursor(page.pageToken) : undefined;
  const { rows } = await db.query<R & { cursor_at: string }>(
    `SELECT *, ${CURSOR_AT} AS cursor_at FROM audit_entries
     WHERE ${FILTERED} AND ($12::timestamptz IS NULL OR (created_at, id) < ($12::timestamptz, $13::text))
     ORDER BY created_at DESC, id DESC LIMIT $14`,
    // One row more than the page tells whether another page follows.
    [...scopeParams(scope), ...filterParams(filter), after?.at ?? null, after?.id ?? null, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  const last = kept.at(-1);
  return {
    rows: kept.map(({ cursor_at: _, ...row }) => row as unknown as R),
    ...(more && last ? { nextPageToken: encodePageToken({ at: last.cursor_at, id: last.id }) } : {}),
  };
}

/** The scope's row of this id; undefined for a row of another organization or outside the tenant scope. */
export async function findAudit<R>(db: Queryable, scope: AuditScope, id: string): Promise<R | undefined> {
  const { rows } = await db.query<R>(`SELECT * FROM audit_entries WHERE ${IN_SCOPE} AND id = $4`, [
    ...scopeParams(scope),
    id,
  ]);
  return rows[0];
}

/** A percentile as the API gives it: to 0.1 ms; null stays null. */
const roundMs = (v: number | null) => (v === null ? null : Math.round(Number(v) * 10) / 10);

/** What a bucket counts, over one row's metadata `m`. */
// NB: a caller's row of a blocked pre-check (POST /api/audit/llm-call, `context_approved`) records a call it made
// all the same: the block itself is the gateway's row of the pre-check, counted once.
const BLOCKED = `((m->>'decision' IN ('blocked_input', 'blocked_output') AND NOT (m ? 'context_approved'))
  OR m->'connector_call'->>'decision' = 'blocked')`;
const REDACTED = `(m->>'decision' = 'redacted' OR (jsonb_typeof(m->'redactions') = 'object' AND m->'redactions' <> '{}'::jsonb))`;
// NB: a caller's metadata may put anything under steward_ms (POST /api/audit/llm-call): only numbers count.
const STEWARD_MS = `CASE WHEN jsonb_typeof(m->'steward_ms') = 'number' THEN (m->'steward_ms')::float8 END`;

interface BucketRow {
  i: number;
  requests: number;
  blocks: number;
  redactions: number;
  warnings: number;
  p50: number | null;
  p99: number | null;
}

/**
 * Per-bucket counts and Steward-added latency (percentile_cont over `metadata.steward_ms`) of the scope's rows in
 * the window that ends with the bucket holding `now`. Buckets are aligned to the epoch, so a refresh keeps them,
 * and every bucket of the window is present (zeros where no row fell).
 */
export async function summarizeAudit(
  db: Queryable,
  scope: AuditScope,
  window: AuditWindow,
  now: Date,
): Promise<AuditSummary> {
  const { seconds, bucket } = AUDIT_WINDOWS[window];
  const bucketMs = bucket * 1000;
  const end = (Math.floor(now.getTime() / bucketMs) + 1) * bucketMs;
  const start = end - seconds * 1000;
  const n = seconds / bucket;
  const { rows } = await db.query<BucketRow>(
    `WITH r AS (
       SELECT floor(extract(epoch FROM created_at - $4::timestamptz) / $6)::int AS i, metadata AS m
       FROM audit_entries WHERE ${IN_SCOPE} AND created_at >= $4 AND created_at < $5
     ), agg AS (
       SELECT i, count(*)::int AS requests,
         (count(*) FILTER (WHERE ${BLOCKED}))::int AS blocks,
         (count(*) FILTER (WHERE ${REDACTED}))::int AS redactions,
         (count(*) FILTER (WHERE m->>'decision' = 'warn'))::int AS warnings,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY ${STEWARD_MS}) AS p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY ${STEWARD_MS}) AS p99
       FROM r GROUP BY i
     )
     SELECT b.i, COALESCE(agg.requests, 0) AS requests, COALESCE(agg.blocks, 0) AS blocks,
       COALESCE(agg.redactions, 0) AS redactions, COALESCE(agg.warnings, 0) AS warnings, agg.p50, agg.p99
     FROM generate_series(0, $7::int - 1) AS b(i) LEFT JOIN agg ON agg.i = b.i ORDER BY b.i`,
    [...scopeParams(scope), new Date(start), new Date(end), bucket, n],
  );
  return {
    window,
    bucketSeconds: bucket,
    buckets: rows.map((r) => ({
      start: new Date(start + Number(r.i) * bucketMs),
      requests: Number(r.requests),
      blocks: Number(r.blocks),
      redactions: Number(r.redactions),
      warnings: Number(r.warnings),
      p50Ms: roundMs(r.p50),
      p99Ms: roundMs(r.p99),
    })),
  };
}

/** Calls and upstream latency (the `latency_ms` column) of one AgentConfig's rows in a window. */
export interface AgentLatency {
  agent: string;
  calls: number;
  /** null: no row of the agent records an upstream time. */
  p50Ms: number | null;
  p99Ms: number | null;
}

/** Each AgentConfig's calls (rows with `metadata.agent`: plan steps, A2A calls) in the scope from `from` to `to`. */
export async function agentLatencies(db: Queryable, scope: AuditScope, from: Date, to: Date): Promise<AgentLatency[]> {
  const { rows } = await db.query<{ agent: string; calls: number; p50: number | null; p99: number | null }>(
    `SELECT metadata->>'agent' AS agent, count(*)::int AS calls,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms) AS p99
     FROM audit_entries WHERE ${IN_SCOPE} AND created_at >= $4 AND created_at < $5 AND metadata ? 'agent'
     GROUP BY 1 ORDER BY 1`,
    [...scopeParams(scope), from, to],
  );
  return rows.map((r) => ({ agent: r.agent, calls: Number(r.calls), p50Ms: roundMs(r.p50), p99Ms: roundMs(r.p99) }));
}
