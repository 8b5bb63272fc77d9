/**
 * Agents: the agent pool (`GET /api/v1/governance/agents`) — each AgentConfig's replicas, health, load and latency
 * over the last hour, and its members. When the pool's own status cannot be read, the answer says why.
 */
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import type { PageProps } from '../app';
import { Badge } from '../components/badge';
import { Freshness, Page } from '../components/page';
import { Table, type Column } from '../components/table';
import { formatCount, formatMs } from '../format';
import { useLoad } from '../load';
import { useNotices } from '../notices';
import type { AgentList, AgentView } from '../types';

function Members({ agent }: { agent: AgentView }) {
  const members = agent.members ?? [];
  if (members.length === 0) return <>none</>;
  return (
    <details>
      <summary>
        {members.length} member{members.length === 1 ? '' : 's'}
      </summary>
      <ul class="plain members">
        {members.map((m) => (
          <li key={m.id}>
            <code>{m.id}</code> <Badge text={m.health} />
            {m.draining && <Badge text="draining" />} {m.kind}, load {m.in_flight}/{m.max_in_flight},{' '}
            {formatCount(m.queries_processed)} queries
            {m.last_error && <span class="error-text"> — last error: {m.last_error}</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}

const COLUMNS: Column<AgentView>[] = [
  { header: 'Name', cell: (a) => a.name },
  { header: 'Domain', cell: (a) => a.domain },
  { header: 'Type', cell: (a) => a.type },
  {
    header: 'Healthy',
    cell: (a) => (
      <Badge
        text={`${a.healthy}/${a.replicas}`}
        tone={a.healthy === a.replicas ? 'good' : a.healthy === 0 ? 'bad' : 'warn'}
      />
    ),
    numeric: true,
  },
  { header: 'Load', cell: (a) => `${a.in_flight}/${a.max_in_flight}`, numeric: true },
  { header: 'Queries', cell: (a) => formatCount(a.queries_processed), numeric: true },
  {
    header: 'Latency p50 / p99 (last hour)',
    cell: (a) => `${formatMs(a.latency?.p50_ms)} / ${formatMs(a.latency?.p99_ms)}`,
    numeric: true,
  },
  { header: 'Members', cell: (a) => <Members agent={a} /> },
];

export function Agents(_props: PageProps) {
  const notices = useNotices();
  const list = useLoad((signal) => api<AgentList>('/api/v1/governance/agents', { signal }), []);
  const poolError = list.data?.pool_error;
  useEffect(() => {
    if (poolError) notices.alert({ message: `The pool's status is unavailable: ${poolError}` });
  }, [poolError, notices]);
  const pool = list.data?.pool;
  return (
    <Page title="Agents">
      <Freshness at={list.at} loading={list.loading} onRefresh={list.reload} />
      {pool && (
        <dl class="metrics">
          {(['desired', 'available', 'healthy', 'unhealthy'] as const).map((k) => (
            <div key={k}>
              <dt>Pool {k}</dt>
              <dd data-metric={`pool_${k}`}>{formatCount(pool[k])}</dd>
            </div>
          ))}
        </dl>
      )}
      <Table
        caption="Agent pool"
        columns={COLUMNS}
        rows={list.data?.agents ?? []}
        rowKey={(a) => a.name}
        rowAttributes={(a) => ({ 'data-agent': a.name })}
        rowHeader
        empty="No agent is registered."
        busy={list.loading}
      />
    </Page>
  );
}
