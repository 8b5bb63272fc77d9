/**
 * Connectors: each connector's health, tools and whether its tool definitions still match the approved ones
 * (`GET /mcp/connectors`), and below, the tool calls waiting for a person (approvals.tsx).
 */
import { api } from '../api';
import type { PageProps } from '../app';
import { Badge } from '../components/badge';
import { Freshness, Page, Time } from '../components/page';
import { Table, type Column } from '../components/table';
import { formatMs, NONE } from '../format';
import { useLoad } from '../load';
import type { ConnectorList, ConnectorView } from '../types';
import { ApprovalQueue } from './approvals';

const DIGEST_CHARS = 12;

/**
 * `pinned`, or `drifted` when the upstream's definitions differ from the approved ones, with `N held` when calls
 * are held for it; `not pinned` when no definition was approved yet.
 */
export function driftOf(defs: ConnectorView['tool_definitions']): string | undefined {
  if (!defs) return undefined;
  const held = defs.held > 0 ? [`${defs.held} held`] : [];
  if (!defs.approved) return ['not pinned', ...held].join(', ');
  const drifted = defs.current !== undefined && defs.current !== defs.approved ? ['drifted'] : [];
  const parts = [...drifted, ...held];
  return parts.length ? parts.join(', ') : 'pinned';
}

function Health({ c }: { c: ConnectorView }) {
  return (
    <>
      <Badge text={c.status} />
      {c.error && <p class="error-text">{c.error}</p>}
      {c.last_health_check && (
        <p class="note">
          checked <Time iso={c.last_health_check} />
        </p>
      )}
    </>
  );
}

function Tools({ tools }: { tools?: string[] }) {
  if (!tools) return <>{NONE}</>;
  if (tools.length === 0) return <>0</>;
  return (
    <details>
      <summary>{tools.length}</summary>
      <ul class="plain">
        {tools.map((t) => (
          <li key={t}>
            <code>{t}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}

const COLUMNS: Column<ConnectorView>[] = [
  { header: 'Name', cell: (c) => c.name },
  { header: 'Type', cell: (c) => c.type },
  { header: 'Health', cell: (c) => <Health c={c} /> },
  { header: 'Latency', cell: (c) => formatMs(c.latency_ms), numeric: true },
  { header: 'Tools', cell: (c) => <Tools tools={c.tools} /> },
  {
    header: 'Pinned digest',
    cell: (c) => {
      const approved = c.tool_definitions?.approved;
      return approved ? <code title={approved}>{approved.slice(0, DIGEST_CHARS)}</code> : NONE;
    },
  },
  {
    header: 'Drift',
    cell: (c) => {
      const drift = driftOf(c.tool_definitions);
      if (!drift) return NONE;
      return <Badge text={drift} tone={drift === 'pinned' ? 'good' : drift.startsWith('drifted') ? 'bad' : 'warn'} />;
    },
  },
];

export function Connectors(_props: PageProps) {
  const list = useLoad((signal) => api<ConnectorList>('/mcp/connectors', { signal }), []);
  return (
    <Page title="Connectors">
      <Freshness at={list.at} loading={list.loading} onRefresh={list.reload} />
      <Table
        caption="Connectors"
        columns={COLUMNS}
        rows={list.data?.connectors ?? []}
        rowKey={(c) => c.name}
        rowAttributes={(c) => ({ 'data-connector': c.name })}
        rowHeader
        empty="No connector is configured."
        busy={list.loading}
      />
      <ApprovalQueue />
    </Page>
  );
}
