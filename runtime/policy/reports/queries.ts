/**
 * The policy reports (docs/policy-reports.md): counts of a policy's evaluations and decisions over the last hour and
 * the last 24 hours, counted in the database so that every gateway replica's calls are in them. `report` answers
 * `GET /api/v1/policies/{id}/report` (one organization); `summaries` feeds `Policy.status.report` (every
 * organization). Each query is one statement with a deadline.
 */
import { POLICY_DECISIONS, type PolicyDecision, type PolicyMode, type PolicyReportStatus } from '../../../api/index.js';
import type { PolicyReportWindow } from '../../../api/http/orchestrator.js';
import type { Db } from '../../store/index.js';
import { withTimeout } from '../../store/index.js';
import { reportStatement, summaryStatement } from './sql.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MODES: readonly PolicyMode[] = ['enforce', 'warn', 'audit'];

/** A report query ran past its deadline (the database is busy, or the window holds too many rows). */
export class PolicyReportTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`the policy report did not finish within ${timeoutMs} ms`, options);
    this.name = 'PolicyReportTimeoutError';
  }
}

export interface PolicyReportOptions {
  /** Deadline of one report query. @default 10s */
  timeoutMs?: number;
}

export interface ReportRequest {
  /** The policy's name as the engine records it (the Policy document's name). */
  policy: string;
  /** `spec.shadowOf`: compare with that policy. */
  shadowOf?: string;
  organizationId: string;
  /** Count this tenant's calls only (a tenant-bound or narrowed caller). */
  tenantId?: string;
  now: Date;
}

/** `status.report` without its time. */
export type PolicySummary = Omit<PolicyReportStatus, 'updatedAt'>;

type Counts = Record<PolicyDecision, number>;
const zeros = (): Counts => Object.fromEntries(POLICY_DECISIONS.map((d) => [d, 0])) as Counts;
const isDecision = (d: unknown): d is PolicyDecision => POLICY_DECISIONS.includes(d as PolicyDecision);
const isMode = (m: unknown): m is PolicyMode => MODES.includes(m as PolicyMode);

interface ReportJson {
  totals: Record<`${'evaluations' | 'matched' | 'violations'}_${'1h' | '24h'}`, number>;
  /** By decision and mode, and by decision whatever the mode (`any_mode`): calls, each once. */
  decisions: { decision: unknown; mode: unknown; any_mode: boolean; n_1h: number; n_24h: number }[];
  clients_1h: { key: string; count: number }[];
  clients_24h: { key: string; count: number }[];
  tenants_1h: { key: string; count: number }[];
  tenants_24h: { key: string; count: number }[];
  shadow?: Record<`${'compared' | 'only_this' | 'only_other'}_${'1h' | '24h'}`, number>;
}

interface SummaryJson {
  evaluations: { name: string; n_1h: number; n_24h: number }[];
  violations: { name: string; n_1h: number; n_24h: number }[];
  decisions: { name: string; decision: unknown; n_24h: number }[];
}

export class PolicyReports {
  private readonly timeoutMs: number;

  constructor(
    private readonly db: Pick<Db, 'transaction'>,
    options: PolicyReportOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** One policy's counts in the caller's organization: both windows, ending at `now`. */
  async report(r: ReportRequest): Promise<{ '1h': PolicyReportWindow; '24h': PolicyReportWindow }> {
    const to = r.now.toISOString();
    const from24 = new Date(r.now.getTime() - DAY_MS).toISOString();
    const from1 = new Date(r.now.getTime() - HOUR_MS).toISOString();
    const json = await this.run<ReportJson>(
      reportStatement({
        from: from24,
        recentFrom: from1,
        to,
        organizationId: r.organizationId,
        tenantId: r.tenantId,
        policy: r.policy,
        shadowOf: r.shadowOf,
      }),
      'report',
    );
    return {
      '1h': windowOf(json, '1h', from1, to, r.shadowOf),
      '24h': windowOf(json, '24h', from24, to, r.shadowOf),
    };
  }

  /**
   * Each named policy's counts over every organization (or the one of `scope`), ending at `now`; a policy without
   * calls has zeros.
   */
  async summaries(
    policies: readonly string[],
    now: Date,
    scope: { organizationId?: string; tenantId?: string } = {},
  ): Promise<Map<string, PolicySummary>> {
    const out = new Map<string, PolicySummary>();
    for (const name of policies)
      out.set(name, {
        last1h: { evaluations: 0, violations: 0 },
        last24h: { evaluations: 0, violations: 0, byDecision: zeros() },
      });
    if (policies.length === 0) return out;
    const json = await this.run<SummaryJson>(
      summaryStatement({
        from: new Date(now.getTime() - DAY_MS).toISOString(),
        recentFrom: new Date(now.getTime() - HOUR_MS).toISOString(),
        to: now.toISOString(),
        policies: [...out.keys()],
        ...scope,
      }),
      'summary',
    );
    // NB: a policy may come twice: the rows that list it as evaluated, and those with only a result of it.
    for (const e of json.evaluations) {
      const s = out.get(e.name);
      if (!s) continue;
      s.last1h.evaluations += e.n_1h;
      s.last24h.evaluations += e.n_24h;
    }
    for (const v of json.violations) {
      const s = out.get(v.name);
      if (!s) continue;
      s.last1h.violations = v.n_1h;
      s.last24h.violations = v.n_24h;
    }
    for (const d of json.decisions) {
      const s = out.get(d.name);
      if (s && isDecision(d.decision)) s.last24h.byDecision[d.decision] = d.n_24h;
    }
    return out;
  }

  /**
   * One statement in a transaction that bounds it (`statement_timeout`), and a deadline on the wait as well (the
   * embedded database cannot interrupt a statement).
   */
  private async run<T>(statement: { text: string; values: unknown[] }, column: 'report' | 'summary'): Promise<T> {
    const query = this.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(this.timeoutMs))}`);
      const { rows } = await tx.query<Record<string, T>>(statement.text, statement.values);
      return rows[0]![column]!;
    });
    try {
      return await withTimeout(query, this.timeoutMs + 1000, `policy ${column} query`);
    } catch (err) {
      // 57014: query_canceled (the statement timeout); the StoreError: our own deadline.
      const code = (err as { code?: unknown }).code;
      if (code === '57014' || (err instanceof Error && err.name === 'StoreError'))
        throw new PolicyReportTimeoutError(this.timeoutMs, { cause: err });
      throw err;
    } finally {
      query.catch(() => undefined);
    }
  }
}

function windowOf(
  json: ReportJson,
  w: '1h' | '24h',
  from: string,
  to: string,
  shadowOf: string | undefined,
): PolicyReportWindow {
  const byDecision = zeros();
  const byMode = { enforce: zeros(), warn: zeros(), audit: zeros() } satisfies Record<PolicyMode, Counts>;
  for (const d of json.decisions) {
    if (!isDecision(d.decision)) continue;
    const n = w === '1h' ? d.n_1h : d.n_24h;
    if (d.any_mode) byDecision[d.decision] = n;
    else if (isMode(d.mode)) byMode[d.mode][d.decision] = n;
  }
  return {
    from,
    to,
    evaluations: json.totals[`evaluations_${w}`],
    matched: json.totals[`matched_${w}`],
    violations: json.totals[`violations_${w}`],
    decisions: { by_decision: byDecision, by_mode: byMode },
    clients: json[`clients_${w}`].map((e) => ({ client_id: e.key, count: e.count })),
    tenants: json[`tenants_${w}`].map((e) => ({ tenant_id: e.key, count: e.count })),
    ...(shadowOf && json.shadow
      ? {
          shadow: {
            shadow_of: shadowOf,
            compared: json.shadow[`compared_${w}`],
            disagreements: json.shadow[`only_this_${w}`] + json.shadow[`only_other_${w}`],
            matched_only_by_this: json.shadow[`only_this_${w}`],
            matched_only_by_shadowed: json.shadow[`only_other_${w}`],
          },
        }
      : {}),
  };
}
