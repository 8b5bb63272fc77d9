/**
 * Decisions: the audit log, newest first (`GET /api/v1/audit/entries`), filtered by the query string and paged by
 * the server's tokens. Filter values go to the API as they are; one it does not take is its 400 in the alert region.
 */
import { api, withQuery } from '../api';
import type { PageProps } from '../app';
import { Badge } from '../components/badge';
import { Field } from '../components/field';
import { Page, Time } from '../components/page';
import { Pager, usePageTokens } from '../components/pager';
import { Table, type Column } from '../components/table';
import { formatMs, formatUsd, fromLocalInput, NONE, toLocalInput } from '../format';
import { useLoad } from '../load';
import { BASE, navigate } from '../router';
import type { AuditEntry, AuditEntryList } from '../types';

export const DECISIONS_PATH = `${BASE}/decisions`;
const PAGE_SIZE = '50';

interface Filter {
  key: string;
  label: string;
  /** A `datetime-local` input; the URL and the API hold the instant (RFC 3339). */
  instant?: boolean;
  /** Suggestions; any other value may be typed. */
  suggest?: string[];
}

const FILTERS: Filter[] = [
  { key: 'policy', label: 'Policy' },
  {
    key: 'decision',
    label: 'Decision',
    suggest: [
      'allowed',
      'redacted',
      'blocked_input',
      'blocked_output',
      'warn',
      'audit',
      'exempted',
      'refused',
      'provider_error',
      'approval_required',
    ],
  },
  { key: 'surface', label: 'Surface', suggest: ['llm', 'pre-check', 'plan', 'mcp'] },
  { key: 'client', label: 'Client' },
  { key: 'agent', label: 'Agent' },
  { key: 'from', label: 'From', instant: true },
  { key: 'to', label: 'To', instant: true },
];

type Filters = Record<string, string | undefined>;

const filtersOf = (query: URLSearchParams): Filters =>
  Object.fromEntries(FILTERS.map((f) => [f.key, query.get(f.key) || undefined]));

/** The detail page of an entry. */
export const entryHref = (id: string) => `${DECISIONS_PATH}/${encodeURIComponent(id)}`;

function FilterForm({ filters }: { filters: Filters }) {
  const apply = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const next: Filters = {};
    for (const f of FILTERS) {
      const value = String(data.get(f.key) ?? '').trim();
      next[f.key] = value && f.instant ? fromLocalInput(value) : value;
    }
    navigate(withQuery(DECISIONS_PATH, next));
  };
  return (
    <form class="filters" onSubmit={apply} aria-label="Filters">
      {FILTERS.map((f) => (
        <Field id={`filter-${f.key}`} label={f.label} key={f.key}>
          <input
            id={`filter-${f.key}`}
            name={f.key}
            type={f.instant ? 'datetime-local' : 'text'}
            defaultValue={f.instant ? toLocalInput(filters[f.key] ?? null) : (filters[f.key] ?? '')}
            list={f.suggest ? `suggest-${f.key}` : undefined}
            autoComplete="off"
          />
          {f.suggest && (
            <datalist id={`suggest-${f.key}`}>
              {f.suggest.map((s) => (
                <option value={s} key={s} />
              ))}
            </datalist>
          )}
        </Field>
      ))}
      <div class="actions">
        <button type="submit">Apply filters</button> <a href={DECISIONS_PATH}>Clear filters</a>
      </div>
    </form>
  );
}

const COLUMNS: Column<AuditEntry>[] = [
  { header: 'Time', cell: (e) => <Time iso={e.created_at} /> },
  { header: 'Decision', cell: (e) => <Badge text={e.decision} /> },
  { header: 'Surface', cell: (e) => (e.via ? `${e.surface ?? NONE} via ${e.via}` : (e.surface ?? NONE)) },
  { header: 'Client', cell: (e) => e.client_id || NONE },
  { header: 'Agent', cell: (e) => e.agent ?? NONE },
  { header: 'Policies', cell: (e) => (e.policies?.length ? e.policies.join(', ') : NONE) },
  { header: 'Added', cell: (e) => formatMs(e.steward_ms), numeric: true },
  { header: 'Cost', cell: (e) => formatUsd(e.cost_usd), numeric: true },
  {
    header: 'Entry',
    cell: (e) => (
      <a href={entryHref(e.id)} aria-label={`Details of ${e.id}`}>
        Details
      </a>
    ),
  },
];

function EntryList({ filters }: { filters: Filters }) {
  const pages = usePageTokens();
  const list = useLoad(
    (signal) =>
      api<AuditEntryList>(
        withQuery('/api/v1/audit/entries', { ...filters, limit: PAGE_SIZE, page_token: pages.token }),
        { signal },
      ),
    [filters, pages.token],
  );
  return (
    <>
      <Table
        caption="Audit entries"
        columns={COLUMNS}
        rows={list.data?.entries ?? []}
        rowKey={(e) => e.id}
        rowAttributes={(e) => ({ 'data-entry-id': e.id })}
        rowHeader
        empty="No audit entries match these filters."
        busy={list.loading}
      />
      <Pager pages={pages} nextToken={list.data?.next_page_token} busy={list.loading} />
    </>
  );
}

export function Decisions({ route }: PageProps) {
  const filters = filtersOf(route.query);
  // NB: keyed by the query string, so that Back/Forward to other filters resets the form and the pages
  return (
    <Page title="Decisions">
      <FilterForm filters={filters} key={route.search} />
      <EntryList filters={filters} key={route.search} />
    </Page>
  );
}
