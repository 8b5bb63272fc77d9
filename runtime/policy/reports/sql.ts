/**
 * The SQL of the policy reports, the same text on PostgreSQL and PGlite. The rows counted are every call whose
 * policies were evaluated, within a time window:
 * - audit entries of governed calls and connector calls (`metadata.policies_evaluated`, `metadata.policy_results`,
 *   written by the gateway), but not the entries callers send with `POST /api/audit/llm-call`, whose metadata is
 *   the caller's (they carry `context_approved`, which the gateway sets last), nor the gateway's entries of blocked
 *   pre-checks (`via: pre_check`), which are counted from their own row below;
 * - pre-checks (`precheck_policy_results`, runtime/store/precheck-results.ts).
 * Each source is read through its time index (`audit_entries` by organization and time for one organization, by
 * time alone across organizations; `precheck_policy_results` by time), and narrowed at once to the rows that name
 * one of the policies asked about. A value that is not an array (nothing the gateway writes) counts as empty.
 */

/** Numbered parameters, added as the text is built. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

/** The window and whose calls: one organization (and tenant), or every organization. */
export interface SourceScope {
  /** ISO timestamps: rows with `from < created_at <= to`. */
  from: string;
  to: string;
  organizationId?: string;
  tenantId?: string;
  /** The policy names a row must name (evaluated or matched), as a `text[]` expression. */
  names: string;
}

const asArray = (e: string) => `CASE WHEN jsonb_typeof(${e}) = 'array' THEN ${e} ELSE '[]'::jsonb END`;

/** Whether a row names one of `names`: evaluated it, or has a result of it (redact results are not evaluations). */
const namesOne = (evaluated: string, results: string, names: string) =>
  `(${evaluated} ?| ${names} OR EXISTS (SELECT 1 FROM jsonb_array_elements(${results}) r WHERE r->>'policy' = ANY (${names})))`;

/** `id, client_id, tenant_id, created_at, evaluated, results` of every row in scope. */
export function sourceRows(p: Params, s: SourceScope): string {
  const from = p.add(s.from, 'timestamptz');
  const to = p.add(s.to, 'timestamptz');
  const org = s.organizationId === undefined ? undefined : p.add(s.organizationId, 'text');
  const tenant = s.tenantId === undefined ? undefined : p.add(s.tenantId, 'text');
  const aEvaluated = asArray(`a.metadata->'policies_evaluated'`);
  const aResults = asArray(`a.metadata->'policy_results'`);
  return `
  SELECT a.id, a.client_id, a.metadata->>'tenant_id' AS tenant_id, a.created_at,
         ${aEvaluated} AS evaluated, ${aResults} AS results
  FROM audit_entries a
  WHERE a.created_at > ${from} AND a.created_at <= ${to}
    ${org ? `AND a.organization_id = ${org}` : ''}
    ${tenant ? `AND a.metadata->>'tenant_id' = ${tenant}` : ''}
    AND (a.metadata ? 'policies_evaluated' OR a.metadata ? 'policy_results')
    AND NOT (a.metadata ? 'context_approved')
    AND a.metadata->>'via' IS DISTINCT FROM 'pre_check'
    AND ${namesOne(aEvaluated, aResults, s.names)}
  UNION ALL
  SELECT p.context_id, p.client_id, p.tenant_id, p.created_at,
         ${asArray('p.policies_evaluated')}, ${asArray('p.policy_results')}
  FROM precheck_policy_results p
  WHERE p.created_at > ${from} AND p.created_at <= ${to}
    ${org ? `AND p.organization_id = ${org}` : ''}
    ${tenant ? `AND p.tenant_id = ${tenant}` : ''}
    AND ${namesOne(asArray('p.policies_evaluated'), asArray('p.policy_results'), s.names)}`;
}

/** A result of `name` that blocked, or would have (its block under warn or audit): a violation. */
const VIOLATION = `(x->>'would' = 'block' AND x->>'decision' IN ('block', 'warn', 'audit'))`;

/** The top 10 values of `column` among the matched calls that satisfy `where`, most calls first. */
const top = (column: string, where: string) => `(
    SELECT COALESCE(jsonb_agg(jsonb_build_object('key', k, 'count', n) ORDER BY n DESC, k COLLATE "C"), '[]'::jsonb)
    FROM (SELECT ${column} AS k, count(*) AS n FROM facts
          WHERE matched AND ${where} AND ${column} IS NOT NULL
          GROUP BY ${column} ORDER BY n DESC, ${column} COLLATE "C" LIMIT 10) t)`;

export interface ReportQuery {
  from: string;
  recentFrom: string;
  to: string;
  organizationId: string;
  tenantId?: string;
  policy: string;
  shadowOf?: string;
}

/**
 * One policy's report as one JSON value: totals, decisions by mode, top clients and tenants of both windows, and
 * for a shadow policy its comparison with the shadowed one. One statement, one pass over the window's rows.
 */
export function reportStatement(q: ReportQuery): { text: string; values: unknown[] } {
  const p = new Params();
  const names = `ARRAY(SELECT jsonb_array_elements_text(${p.add(JSON.stringify([q.policy, ...(q.shadowOf ? [q.shadowOf] : [])]), 'jsonb')}))`;
  const src = sourceRows(p, { ...q, names });
  const recent = p.add(q.recentFrom, 'timestamptz');
  const policy = p.add(q.policy, 'text');
  const contains = (name: string) => `jsonb_build_array(jsonb_build_object('policy', ${name}))`;
  const shadowed = q.shadowOf === undefined ? undefined : p.add(q.shadowOf, 'text');
  const shadow = shadowed
    ? `, 'shadow', (
    SELECT jsonb_build_object(
      'compared_1h', count(*) FILTER (WHERE recent), 'compared_24h', count(*),
      'only_this_1h', count(*) FILTER (WHERE recent AND mine AND NOT theirs),
      'only_this_24h', count(*) FILTER (WHERE mine AND NOT theirs),
      'only_other_1h', count(*) FILTER (WHERE recent AND theirs AND NOT mine),
      'only_other_24h', count(*) FILTER (WHERE theirs AND NOT mine))
    FROM (SELECT s.created_at > ${recent} AS recent,
                 s.results @> ${contains(policy)} AS mine, s.results @> ${contains(shadowed)} AS theirs
          FROM src s
          WHERE (s.evaluated ? ${policy} OR s.results @> ${contains(policy)})
            AND (s.evaluated ? ${shadowed} OR s.results @> ${contains(shadowed)})) z)`
    : '';
  const text = `
WITH src AS MATERIALIZED (${src}),
hit AS (
  SELECT s.id, s.client_id, s.tenant_id, s.created_at > ${recent} AS recent,
         COALESCE((SELECT jsonb_agg(x) FROM jsonb_array_elements(s.results) x WHERE x->>'policy' = ${policy}),
                  '[]'::jsonb) AS mine
  FROM src s
  WHERE s.evaluated ? ${policy} OR s.results @> ${contains(policy)}
),
facts AS MATERIALIZED (
  SELECT h.*, jsonb_array_length(h.mine) > 0 AS matched,
         EXISTS (SELECT 1 FROM jsonb_array_elements(h.mine) x WHERE ${VIOLATION}) AS violation
  FROM hit h
)
SELECT jsonb_build_object(
  'totals', (SELECT jsonb_build_object(
      'evaluations_1h', count(*) FILTER (WHERE recent), 'evaluations_24h', count(*),
      'matched_1h', count(*) FILTER (WHERE recent AND matched), 'matched_24h', count(*) FILTER (WHERE matched),
      'violations_1h', count(*) FILTER (WHERE recent AND violation),
      'violations_24h', count(*) FILTER (WHERE violation))
    FROM facts),
  'decisions', (SELECT COALESCE(jsonb_agg(jsonb_build_object(
        'decision', d, 'mode', m, 'any_mode', g = 1, 'n_1h', n1, 'n_24h', n24)), '[]'::jsonb)
    FROM (SELECT x->>'decision' AS d, x->>'mode' AS m, GROUPING(x->>'mode') AS g,
                 count(DISTINCT f.id) FILTER (WHERE f.recent) AS n1, count(DISTINCT f.id) AS n24
          FROM facts f CROSS JOIN LATERAL jsonb_array_elements(f.mine) x
          GROUP BY GROUPING SETS ((x->>'decision', x->>'mode'), (x->>'decision'))) g),
  'clients_1h', ${top('client_id', 'recent')},
  'clients_24h', ${top('client_id', 'true')},
  'tenants_1h', ${top('tenant_id', 'recent')},
  'tenants_24h', ${top('tenant_id', 'true')}${shadow}
) AS report`;
  return { text, values: p.values };
}

export interface SummaryQuery {
  from: string;
  recentFrom: string;
  to: string;
  policies: readonly string[];
  /** One organization's calls (and one tenant's); absent: every organization's. */
  organizationId?: string;
  tenantId?: string;
}

/**
 * Every named policy's evaluations and violations over both windows and its decisions over the longer one, across
 * organizations (the Policy.status writer) or in one (the gateway's policy list). One statement.
 */
export function summaryStatement(q: SummaryQuery): { text: string; values: unknown[] } {
  const p = new Params();
  const names = `ARRAY(SELECT jsonb_array_elements_text(${p.add(JSON.stringify(q.policies), 'jsonb')}))`;
  const src = sourceRows(p, { ...q, names });
  const recent = p.add(q.recentFrom, 'timestamptz');
  const text = `
WITH src AS MATERIALIZED (${src}),
evaluated AS (
  SELECT n.name, count(*) FILTER (WHERE s.created_at > ${recent}) AS n1, count(*) AS n24
  FROM src s JOIN unnest(${names}) n(name) ON s.evaluated ? n.name
  GROUP BY n.name
),
decided AS MATERIALIZED (
  SELECT s.id, s.created_at > ${recent} AS recent, x->>'policy' AS name, x->>'decision' AS decision,
         ${VIOLATION} AS violation, s.evaluated ? (x->>'policy') AS listed
  FROM src s CROSS JOIN LATERAL jsonb_array_elements(s.results) x
  WHERE x->>'policy' = ANY (${names})
)
SELECT jsonb_build_object(
  'evaluations', (SELECT COALESCE(jsonb_agg(jsonb_build_object('name', name, 'n_1h', n1, 'n_24h', n24)), '[]'::jsonb)
    FROM (SELECT * FROM evaluated
          UNION ALL
          -- NB: a result of a policy the row does not list as evaluated (an output redaction) is an evaluation too
          SELECT name, count(DISTINCT id) FILTER (WHERE recent), count(DISTINCT id)
          FROM decided WHERE NOT listed GROUP BY name) t),
  'violations', (SELECT COALESCE(jsonb_agg(jsonb_build_object('name', name, 'n_1h', n1, 'n_24h', n24)), '[]'::jsonb)
    FROM (SELECT name, count(DISTINCT id) FILTER (WHERE recent AND violation) AS n1,
                 count(DISTINCT id) FILTER (WHERE violation) AS n24
          FROM decided GROUP BY name) t),
  'decisions', (SELECT COALESCE(jsonb_agg(jsonb_build_object('name', name, 'decision', decision, 'n_24h', n24)),
                                '[]'::jsonb)
    FROM (SELECT name, decision, count(DISTINCT id) AS n24 FROM decided GROUP BY name, decision) t)
) AS summary`;
  return { text, values: p.values };
}
