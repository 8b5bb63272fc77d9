/**
 * Budgets: each Budget's spend in its current window against its limit (`GET /api/v1/budgets`), in US dollars
 * and/or tokens, whichever the limit names.
 */
import { api } from '../api';
import type { PageProps } from '../app';
import { Badge } from '../components/badge';
import { Freshness, Page, Time } from '../components/page';
import { Table, type Column } from '../components/table';
import { formatCount, formatUsd, NONE } from '../format';
import { useLoad } from '../load';
import type { Amount, BudgetList, BudgetView } from '../types';

type Unit = keyof Amount;

const UNITS: { unit: Unit; name: string; show: (n: number | undefined) => string }[] = [
  { unit: 'usd', name: 'US dollars', show: formatUsd },
  { unit: 'tokens', name: 'tokens', show: (n) => (n === undefined ? NONE : `${formatCount(n)} tokens`) },
];

/** `client=a, model=b`, `every call` when the scope is empty; `each client` when it keeps a ledger per value. */
function scopeText(b: BudgetView): string {
  const parts = Object.entries(b.scope ?? {})
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  const each = b.each ? [`each ${b.each}${b.ledgers === undefined ? '' : ` (${formatCount(b.ledgers)} ledgers)`}`] : [];
  return [...(parts.length ? parts : ['every call']), ...each].join(', ');
}

function windowText(w: BudgetView['window']): string {
  if (w?.hours) return `rolling ${w.hours} h`;
  if (w?.period) return w.time_zone ? `${w.period} (${w.time_zone})` : w.period;
  return NONE;
}

/** Spent (and reserved) against the limit of each unit the budget limits or has spent. */
function Spend({ b }: { b: BudgetView }) {
  const lines = UNITS.filter(({ unit }) => b.limit?.[unit] !== undefined || (b.spent?.[unit] ?? 0) > 0);
  if (lines.length === 0) return <>{NONE}</>;
  return (
    <ul class="plain spend">
      {lines.map(({ unit, name, show }) => {
        const limit = b.limit?.[unit];
        const spent = b.spent?.[unit] ?? 0;
        const reserved = b.reserved?.[unit] ?? 0;
        return (
          <li key={unit}>
            {limit !== undefined && (
              <meter
                min={0}
                max={limit}
                value={Math.min(spent + reserved, limit)}
                low={limit * 0.8}
                high={limit * 0.95}
                optimum={0}
                aria-label={`${b.name}: ${name} spent of the limit`}
              />
            )}{' '}
            {show(spent)}
            {limit === undefined ? ' (no limit)' : ` of ${show(limit)}`}
            {reserved > 0 && `, ${show(reserved)} reserved`}
          </li>
        );
      })}
    </ul>
  );
}

function Remaining({ b }: { b: BudgetView }) {
  const lines = UNITS.filter(({ unit }) => b.remaining?.[unit] !== undefined);
  if (lines.length === 0) return <>{NONE}</>;
  return (
    <ul class="plain">
      {lines.map(({ unit, show }) => (
        <li key={unit}>{show(b.remaining[unit])}</li>
      ))}
    </ul>
  );
}

function TopLedgers({ b }: { b: BudgetView }) {
  if (!b.top?.length) return null;
  return (
    <details>
      <summary>Top {b.top.length}</summary>
      <ul class="plain">
        {b.top.map((t) => (
          <li key={t.value}>
            {t.value}: {formatUsd(t.spent?.usd)}, {formatCount(t.spent?.tokens)} tokens
          </li>
        ))}
      </ul>
    </details>
  );
}

const COLUMNS: Column<BudgetView>[] = [
  { header: 'Name', cell: (b) => (b.namespace ? `${b.namespace}/${b.name}` : b.name) },
  {
    header: 'Scope',
    cell: (b) => (
      <>
        {scopeText(b)}
        <TopLedgers b={b} />
      </>
    ),
  },
  { header: 'Action', cell: (b) => <Badge text={b.action} tone={b.action === 'block' ? 'bad' : 'warn'} /> },
  { header: 'Spent of limit', cell: (b) => <Spend b={b} /> },
  { header: 'Remaining', cell: (b) => <Remaining b={b} /> },
  { header: 'Window', cell: (b) => windowText(b.window) },
  { header: 'Window ends', cell: (b) => <Time iso={b.window_ends} /> },
];

export function Budgets(_props: PageProps) {
  const list = useLoad((signal) => api<BudgetList>('/api/v1/budgets', { signal }), []);
  return (
    <Page title="Budgets">
      <Freshness at={list.at} loading={list.loading} onRefresh={list.reload} />
      <Table
        caption="Budgets"
        columns={COLUMNS}
        rows={list.data?.budgets ?? []}
        rowKey={(b) => `${b.namespace}/${b.name}`}
        rowAttributes={(b) => ({ 'data-budget': b.name })}
        rowHeader
        empty="No budget applies to this organization. A Budget resource limits spend per window."
        busy={list.loading}
      />
    </Page>
  );
}
