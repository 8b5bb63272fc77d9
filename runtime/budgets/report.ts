/**
 * What each Budget has spent in its current window (docs/budgets.md, "Visibility"): the budgets API and
 * `Budget.status` read it from here. One round trip for every budget: the window totals of their ledgers
 * (runtime/store/budget-ledger.ts), a Budget's own, or with `spec.each` every value's, found by the key prefix.
 *
 * With `spec.each` a Budget has one ledger per value (each client, each tenant...), all with the same limit: its
 * state is the ledger that spent the largest share of the limit (the one nearest to refusing calls), `ledgers` counts
 * the values charged in the window, and `top` lists the ten that spent most.
 */
import type { BudgetResource, BudgetScope, BudgetSpec, BudgetWindowSpec } from '../../api/index.js';
import { DEFAULT_NAMESPACE } from '../source/index.js';
import type { BudgetLedgerRepository, LedgerTotals } from '../store/index.js';
import { budgetLedger } from './catalogue.js';
import { budgetWindowOf } from './window-of.js';
import { windowSpan, type WindowSpan } from './windows.js';

/** The most per-value ledgers a state lists. */
export const MAX_TOP_LEDGERS = 10;
const MICROS = 1_000_000;

/** An amount in both units: dollars (to the micro-dollar) and tokens. */
export interface SpendAmount {
  usd: number;
  tokens: number;
}

/** The part of an amount that the limit names (remaining). */
export interface LimitAmount {
  usd?: number;
  tokens?: number;
}

/** One per-value ledger of a Budget with `spec.each`. */
export interface LedgerState {
  /** The value of the `spec.each` field (a client id, a tenant...). */
  value: string;
  spent: SpendAmount;
  reserved: SpendAmount;
}

export interface BudgetState {
  name: string;
  namespace: string;
  scope: BudgetScope;
  each?: BudgetSpec['each'];
  action: BudgetSpec['action'];
  limit: LimitAmount;
  window: BudgetWindowSpec;
  /** The earliest instant the window counts (its first bucket). */
  windowStart: Date;
  /** When the window resets (rolling: when its oldest hour falls out). */
  windowEnds: Date;
  /** Settled spend of the window (with `spec.each`: the fullest ledger's). */
  spent: SpendAmount;
  /** Held by calls in flight. */
  reserved: SpendAmount;
  /** The limit less spent and reserved, never below 0, in the units the limit names. */
  remaining: LimitAmount;
  /** With `spec.each`: how many values were charged in the window. */
  ledgers?: number;
  /**
   * With `spec.each`: the ledgers that spent most, at most ten; left out where they could name another
   * organization's or tenant's clients or tenants (see BudgetFilter).
   */
  top?: LedgerState[];
}

/** Whose budgets: an organization's (and a tenant's), as a caller bound to them may see them. */
export interface BudgetFilter {
  /** Only budgets whose scope.organization is absent or this; a per-organization budget shows this one's ledger. */
  organization?: string;
  /** Only budgets whose scope.tenant is absent or this; a per-tenant budget shows this one's ledger. */
  tenant?: string;
}

interface Plan {
  doc: BudgetResource;
  span: WindowSpan;
  /** The ledger key asked for (the prefix of the per-value ledgers with `prefix`). */
  key: string;
  prefix: boolean;
  /** Whether the per-value ledgers may be listed. */
  listed: boolean;
}

/**
 * The state of every Budget the filter lets through, in the catalogue's order (namespace, name), at `now`. A
 * Budget whose window cannot be computed (a time zone the runtime does not know, which validation refuses) is left
 * out: it charges nothing either, and the operator's Ready condition says why.
 */
export async function budgetStates(
  catalogue: { list(): readonly BudgetResource[] },
  ledger: Pick<BudgetLedgerRepository, 'totals'>,
  now: Date,
  filter: BudgetFilter = {},
): Promise<BudgetState[]> {
  const plans: Plan[] = [];
  for (const doc of catalogue.list()) {
    const plan = planOf(doc, now, filter);
    if (plan) plans.push(plan);
  }
  const totals = await ledger.totals(
    plans.map((p) => ({ ledger: p.key, from: p.span.from, to: p.span.bucket, prefix: p.prefix })),
  );
  return plans.map((p) => stateOf(p, totals.get(p.key) ?? []));
}

function planOf(doc: BudgetResource, now: Date, filter: BudgetFilter): Plan | undefined {
  const { scope, each } = doc.spec;
  if (
    filter.organization !== undefined &&
    scope.organization !== undefined &&
    scope.organization !== filter.organization
  )
    return undefined;
  if (filter.tenant !== undefined && scope.tenant !== undefined && scope.tenant !== filter.tenant) return undefined;
  let span: WindowSpan;
  try {
    span = windowSpan(budgetWindowOf(doc.spec.window), now);
  } catch {
    return undefined;
  }
  const base = budgetLedger(doc);
  if (each === undefined) return { doc, span, key: base, prefix: false, listed: false };
  // NB: a caller sees its own ledger of a budget kept per organization or tenant, never another's.
  const own = each === 'organization' ? filter.organization : each === 'tenant' ? filter.tenant : undefined;
  if (own !== undefined) return { doc, span, key: `${base}#${own}`, prefix: false, listed: true };
  return { doc, span, key: `${base}#`, prefix: true, listed: listable(doc.spec, filter) };
}

/**
 * Whether a filtered caller may see the values of a budget's ledgers: clients and tenants belong to an organization
 * (and clients to a tenant), so a budget that spans more than the caller's lists none of them. Models, providers
 * and agents belong to no one.
 */
function listable(spec: BudgetSpec, filter: BudgetFilter): boolean {
  if (spec.each !== 'client' && spec.each !== 'tenant') return true;
  if (filter.organization !== undefined && spec.scope.organization === undefined) return false;
  return filter.tenant === undefined || spec.scope.tenant !== undefined;
}

function stateOf(p: Plan, totals: readonly LedgerTotals[]): BudgetState {
  const { doc, span } = p;
  const { spec } = doc;
  const limit: LimitAmount = {
    ...(spec.limit.usd === undefined ? {} : { usd: spec.limit.usd }),
    ...(spec.limit.tokens === undefined ? {} : { tokens: spec.limit.tokens }),
  };
  const charged = totals.filter(
    (t) => t.spentMicros > 0 || t.spentTokens > 0 || t.reservedMicros > 0 || t.reservedTokens > 0,
  );
  const ranked = [...charged].sort((a, b) => share(b, limit) - share(a, limit) || compare(a.ledger, b.ledger));
  // Without spec.each there is one ledger; with it, the fullest one decides.
  const decisive = ranked[0];
  const state: BudgetState = {
    name: doc.metadata.name,
    namespace: doc.metadata.namespace ?? DEFAULT_NAMESPACE,
    scope: spec.scope,
    ...(spec.each === undefined ? {} : { each: spec.each }),
    action: spec.action,
    limit,
    window: spec.window,
    windowStart: span.from,
    windowEnds: span.resetsAt,
    spent: amount(decisive?.spentMicros, decisive?.spentTokens),
    reserved: amount(decisive?.reservedMicros, decisive?.reservedTokens),
    remaining: remainingOf(limit, decisive),
  };
  if (spec.each === undefined) return state;
  state.ledgers = charged.length;
  if (p.listed) {
    const prefix = `${budgetLedger(doc)}#`;
    state.top = ranked.slice(0, MAX_TOP_LEDGERS).map((t) => ({
      value: t.ledger.slice(prefix.length),
      spent: amount(t.spentMicros, t.spentTokens),
      reserved: amount(t.reservedMicros, t.reservedTokens),
    }));
  }
  return state;
}

/** The largest share of a limit the ledger spent (then holds), so that the ledger nearest to refusing ranks first. */
function share(t: LedgerTotals, limit: LimitAmount): number {
  const spent = Math.max(
    limit.usd === undefined ? 0 : t.spentMicros / (limit.usd * MICROS),
    limit.tokens === undefined ? 0 : t.spentTokens / limit.tokens,
  );
  const held = Math.max(
    limit.usd === undefined ? 0 : t.reservedMicros / (limit.usd * MICROS),
    limit.tokens === undefined ? 0 : t.reservedTokens / limit.tokens,
  );
  // NB: spend first; what is held only breaks ties (it is gone once the calls in flight settle).
  return spent + held / 1e6;
}

function remainingOf(limit: LimitAmount, t: LedgerTotals | undefined): LimitAmount {
  const out: LimitAmount = {};
  if (limit.usd !== undefined) {
    const left = Math.round(limit.usd * MICROS) - (t?.spentMicros ?? 0) - (t?.reservedMicros ?? 0);
    out.usd = Math.max(0, left) / MICROS;
  }
  if (limit.tokens !== undefined)
    out.tokens = Math.max(0, limit.tokens - (t?.spentTokens ?? 0) - (t?.reservedTokens ?? 0));
  return out;
}

const amount = (micros = 0, tokens = 0): SpendAmount => ({ usd: micros / MICROS, tokens });

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
