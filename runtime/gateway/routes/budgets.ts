/**
 * `GET /api/v1/budgets` and `GET /api/v1/spend` (docs/budgets.md, "Visibility"): what the caller's organization's
 * Budgets spent in their current windows (from the ledgers), and what it spent over a time range, grouped (from the
 * audit rows). Any credential of the organization reads them; a caller bound or narrowed to a tenant sees the
 * budgets of its tenant and of the whole organization, and only its tenant's calls.
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { MAX_SPEND_RANGE_DAYS, SPEND_GROUP_BY } from '../../../api/http/gateway.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import { identityOf } from '../../auth/plugin.js';
import { BudgetCatalogue } from '../../budgets/catalogue.js';
import { budgetStates, type BudgetState, type SpendAmount } from '../../budgets/report.js';
import { spendReport, SpendTimeoutError, type SpendFigures, type SpendGroup } from '../../budgets/spend.js';
import { ApiError, echo } from '../../http/errors.js';
import type { DeclarativeSource } from '../../source/index.js';
import type { Store } from '../../store/index.js';

/** `GET /api/v1/budgets` and `GET /api/v1/spend` (routes/budgets.ts). */
export interface BudgetRouteOptions {
  /** The ledgers (budgets) and the audit rows (db). */
  store: Pick<Store, 'budgets' | 'db'>;
  /** The Budgets, followed as they change. */
  source: DeclarativeSource;
  now: () => Date;
}

const AUTH = { config: { auth: { require: 'any' } as const } };
const DAY_MS = 86_400_000;
/** The range of a spend query that names neither end. */
const DEFAULT_RANGE_MS = DAY_MS;

const instant = z.iso.datetime({ offset: true });

export const budgetRoutes: FastifyPluginAsync<BudgetRouteOptions> = async (app, deps) => {
  const catalogue = new BudgetCatalogue(deps.source);
  app.addHook('onClose', async () => catalogue.close());

  app.get('/api/v1/budgets', AUTH, async (req) => {
    const identity = identityOf(req);
    const now = deps.now();
    const states = await budgetStates(catalogue, deps.store.budgets, now, {
      organization: identity.organizationId,
      tenant: identity.tenantId,
    });
    return { budgets: states.map(budgetView), count: states.length, generated_at: isoTimestamp(now) };
  });

  app.get('/api/v1/spend', AUTH, async (req) => {
    const identity = identityOf(req);
    const q = spendQueryOf(req.query as Record<string, unknown>, deps.now());
    try {
      const report = await spendReport(deps.store.db, {
        organizationId: identity.organizationId,
        tenantId: identity.tenantId,
        ...q,
      });
      return {
        group_by: q.groupBy,
        from: isoTimestamp(q.from),
        to: isoTimestamp(q.to),
        groups: report.groups.map((g) => ({ key: g.key, ...figuresView(g) })),
        total: figuresView(report.total),
        truncated: report.truncated,
      };
    } catch (err) {
      if (err instanceof SpendTimeoutError)
        throw new ApiError('gateway', 'SERVICE_UNAVAILABLE', `${err.message}; ask for a shorter range`, {
          timeout_ms: err.timeoutMs,
        });
      throw err;
    }
  });
};

/** `group_by`, `from` and `to` of the query string: 400 INVALID_REQUEST naming the field when one is wrong. */
export function spendQueryOf(query: Record<string, unknown>, now: Date): { groupBy: SpendGroup; from: Date; to: Date } {
  const text = (key: string): string | undefined => {
    const v = query[key];
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string') throw invalid(key, 'must be given once');
    return v;
  };
  const group = text('group_by') ?? 'organization';
  if (!(SPEND_GROUP_BY as readonly string[]).includes(group))
    throw invalid('group_by', `must be one of ${SPEND_GROUP_BY.join(', ')}, got ${JSON.stringify(echo(group))}`);
  const time = (key: 'from' | 'to'): Date | undefined => {
    const raw = text(key);
    if (raw === undefined) return undefined;
    if (!instant.safeParse(raw).success)
      throw invalid(
        key,
        `must be an RFC 3339 timestamp such as 2026-07-01T00:00:00Z, got ${JSON.stringify(echo(raw))}`,
      );
    return new Date(raw);
  };
  const givenTo = time('to');
  const givenFrom = time('from');
  const to = givenTo ?? now;
  const from = givenFrom ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from.getTime() >= to.getTime()) throw invalid('from', 'must be before to');
  if (to.getTime() - from.getTime() > MAX_SPEND_RANGE_DAYS * DAY_MS)
    throw invalid('to', `the range from..to spans at most ${MAX_SPEND_RANGE_DAYS} days`);
  return { groupBy: group as SpendGroup, from, to };
}

function invalid(field: string, message: string): ApiError<'gateway'> {
  return new ApiError('gateway', 'INVALID_REQUEST', `${field} ${message}`, { fields: [{ field, message }] });
}

const amountView = (a: SpendAmount) => ({ usd: a.usd, tokens: a.tokens });

function budgetView(s: BudgetState) {
  const w = s.window;
  return {
    name: s.name,
    namespace: s.namespace,
    scope: s.scope,
    ...(s.each === undefined ? {} : { each: s.each }),
    action: s.action,
    limit: s.limit,
    window: w.hours !== undefined ? { hours: w.hours } : { period: w.period, time_zone: w.timeZone },
    window_start: isoTimestamp(s.windowStart),
    window_ends: isoTimestamp(s.windowEnds),
    spent: amountView(s.spent),
    reserved: amountView(s.reserved),
    remaining: s.remaining,
    ...(s.ledgers === undefined ? {} : { ledgers: s.ledgers }),
    ...(s.top === undefined
      ? {}
      : { top: s.top.map((t) => ({ value: t.value, spent: amountView(t.spent), reserved: amountView(t.reserved) })) }),
  };
}

const figuresView = (f: SpendFigures) => ({
  requests: f.requests,
  tokens: f.tokens,
  cost_usd: f.costUsd,
  unpriced_requests: f.unpricedRequests,
});
