/**
 * Policies: every policy in force with how often it matched (`GET /api/v1/governance/policies`), and a place to try
 * an input against all of them (`POST /api/policies/test`, which records nothing).
 */
import { useState } from 'preact/hooks';
import { api } from '../api';
import type { PageProps } from '../app';
import { Badge } from '../components/badge';
import { Field } from '../components/field';
import { Freshness, Page, Time } from '../components/page';
import { Table, type Column } from '../components/table';
import { formatCount, formatMs, NONE } from '../format';
import { useLoad } from '../load';
import { useNotices } from '../notices';
import type { PolicyList, PolicyTestResult, PolicyView } from '../types';

const COLUMNS: Column<PolicyView>[] = [
  { header: 'Name', cell: (p) => p.name },
  { header: 'Origin', cell: (p) => p.origin },
  { header: 'Type', cell: (p) => p.type },
  { header: 'Kind', cell: (p) => p.kind },
  { header: 'Action', cell: (p) => p.action },
  { header: 'Mode', cell: (p) => p.mode },
  { header: 'Surfaces', cell: (p) => (p.surfaces?.length ? p.surfaces.join(', ') : 'all') },
  {
    header: 'State',
    cell: (p) => (
      <>
        <Badge text={p.state} />
        {p.error && <p class="error-text">{p.error}</p>}
      </>
    ),
  },
  { header: 'Evaluated (24 h)', cell: (p) => formatCount(p.evaluations_24h), numeric: true },
  { header: 'Violations (24 h)', cell: (p) => formatCount(p.violations_24h), numeric: true },
];

function TryResult({ result }: { result?: PolicyTestResult }) {
  // NB: the region is on the page before it has content, so that its first result is announced
  return (
    <div role="status" data-field="try-result" class="try-result">
      {result && (
        <>
          <p>
            <Badge text={result.approved ? 'Allowed' : 'Blocked'} tone={result.approved ? 'good' : 'bad'} /> evaluated
            in {formatMs(result.evaluation_time_ms)}
          </p>
          <dl class="facts">
            <div>
              <dt>Policies triggered</dt>
              <dd>{result.triggered_policies?.length ? result.triggered_policies.join(', ') : 'none'}</dd>
            </div>
            <div>
              <dt>Reason</dt>
              <dd>{result.block_reason ?? NONE}</dd>
            </div>
            <div>
              <dt>Warnings</dt>
              <dd>
                {result.warnings?.length ? (
                  <ul class="plain">
                    {result.warnings.map((w, i) => (
                      <li key={i}>{w}</li>
                    ))}
                  </ul>
                ) : (
                  'none'
                )}
              </dd>
            </div>
          </dl>
        </>
      )}
    </div>
  );
}

function TryIt() {
  const notices = useNotices();
  const [query, setQuery] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<PolicyTestResult>();
  const evaluate = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      setResult(await api<PolicyTestResult>('/api/policies/test', { method: 'POST', body: { query } }));
    } catch (err) {
      setResult(undefined);
      notices.alert(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="try-title">
      <h2 id="try-title">Try it</h2>
      <p>Evaluates the input against every enabled policy, as a pre-check would, and records nothing.</p>
      <form onSubmit={evaluate} class="try">
        <Field id="try-input" label="Input to evaluate">
          <textarea id="try-input" rows={4} value={query} onInput={(e) => setQuery(e.currentTarget.value)} required />
        </Field>
        <button type="submit" aria-busy={busy ? 'true' : undefined}>
          Evaluate
        </button>
      </form>
      <TryResult result={result} />
    </section>
  );
}

export function Policies(_props: PageProps) {
  const list = useLoad((signal) => api<PolicyList>('/api/v1/governance/policies', { signal }), []);
  return (
    <Page title="Policies">
      <Freshness at={list.at} loading={list.loading} onRefresh={list.reload} />
      {list.data && (
        <p>
          {formatCount(list.data.count)} policies, as of <Time iso={list.data.generated_at} />.
        </p>
      )}
      <Table
        caption="Policies in force"
        columns={COLUMNS}
        rows={list.data?.policies ?? []}
        rowKey={(p) => `${p.origin}/${p.namespace}/${p.name}`}
        rowAttributes={(p) => ({ 'data-policy': p.name })}
        rowHeader
        empty="No policy is in force."
        busy={list.loading}
      />
      <TryIt />
    </Page>
  );
}
