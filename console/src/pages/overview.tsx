/**
 * Overview: what Steward did over a window (`GET /api/v1/audit/summary`) — totals, then counts and Steward's
 * added latency per bucket. Reloads every 30 seconds.
 */
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { api } from '../api';
import type { PageProps } from '../app';
import { Chart } from '../components/chart';
import { Field } from '../components/field';
import { Freshness, Page } from '../components/page';
import { formatCount, formatMs, formatSeconds, NONE } from '../format';
import { useInterval, useLoad } from '../load';
import { BASE, navigate } from '../router';
import type { AuditSummary, SummaryBucket, SummaryWindow } from '../types';

const WINDOWS: Record<SummaryWindow, string> = { '1h': 'Last hour', '24h': 'Last day', '7d': 'Last week' };
const REFRESH_MS = 30_000;

const COUNT_SERIES: uPlot.Series[] = [
  { label: 'Requests', stroke: '#1f5fa8', width: 2 },
  { label: 'Blocks', stroke: '#b3261e', width: 2 },
  { label: 'Redactions', stroke: '#7a4fb0', width: 2 },
  { label: 'Warnings', stroke: '#b06000', width: 2, dash: [6, 3] },
];
// NB: latency has gaps (null: no call in the bucket recorded it); points show a bucket that has no neighbour
const LATENCY_SERIES: uPlot.Series[] = [
  { label: 'p50', stroke: '#1f5fa8', width: 2, points: { show: true, size: 5 } },
  { label: 'p99', stroke: '#b3261e', width: 2, dash: [6, 3], points: { show: true, size: 5 } },
];

interface Totals {
  requests: number;
  blocks: number;
  redactions: number;
  warnings: number;
  /** The median of the buckets' medians. */
  p50_ms: number | null;
  /** The highest of the buckets' p99s. */
  p99_ms: number | null;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = values.toSorted((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function totalsOf(buckets: SummaryBucket[]): Totals {
  const sum = (f: (b: SummaryBucket) => number) => buckets.reduce((n, b) => n + f(b), 0);
  const p50s = buckets.flatMap((b) => (b.p50_ms === null ? [] : [b.p50_ms]));
  const p99s = buckets.flatMap((b) => (b.p99_ms === null ? [] : [b.p99_ms]));
  return {
    requests: sum((b) => b.requests),
    blocks: sum((b) => b.blocks),
    redactions: sum((b) => b.redactions),
    warnings: sum((b) => b.warnings),
    p50_ms: median(p50s),
    p99_ms: p99s.length ? Math.max(...p99s) : null,
  };
}

const METRICS: { key: keyof Totals; term: string; show: (t: Totals) => string }[] = [
  { key: 'requests', term: 'Requests', show: (t) => formatCount(t.requests) },
  { key: 'blocks', term: 'Blocks', show: (t) => formatCount(t.blocks) },
  { key: 'redactions', term: 'Redactions', show: (t) => formatCount(t.redactions) },
  { key: 'warnings', term: 'Warnings', show: (t) => formatCount(t.warnings) },
  { key: 'p50_ms', term: 'p50 added latency', show: (t) => formatMs(t.p50_ms) },
  { key: 'p99_ms', term: 'p99 added latency', show: (t) => formatMs(t.p99_ms) },
];

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

export function Overview({ route }: PageProps) {
  const asked = route.query.get('window');
  const span: SummaryWindow = asked && Object.hasOwn(WINDOWS, asked) ? (asked as SummaryWindow) : '1h';
  const summary = useLoad((signal) => api<AuditSummary>(`/api/v1/audit/summary?window=${span}`, { signal }), [span]);
  useInterval(summary.reload, REFRESH_MS);

  const buckets = summary.data?.buckets;
  const totals = useMemo(() => totalsOf(buckets ?? []), [buckets]);
  const counts = useMemo<uPlot.AlignedData>(() => {
    const b = buckets ?? [];
    const xs = b.map((x) => Date.parse(x.start) / 1000);
    return [xs, b.map((x) => x.requests), b.map((x) => x.blocks), b.map((x) => x.redactions), b.map((x) => x.warnings)];
  }, [buckets]);
  const latency = useMemo<uPlot.AlignedData>(() => {
    const b = buckets ?? [];
    return [b.map((x) => Date.parse(x.start) / 1000), b.map((x) => x.p50_ms), b.map((x) => x.p99_ms)];
  }, [buckets]);

  const over = WINDOWS[span].toLowerCase();
  const per = summary.data ? `per ${formatSeconds(summary.data.bucket_seconds)}` : 'per bucket';
  const countsLabel = !summary.data
    ? `Requests, blocks, redactions and warnings over the ${over}: loading.`
    : `Requests, blocks, redactions and warnings ${per} over the ${over}. Totals: ` +
      `${plural(totals.requests, 'request', 'requests')}, ${plural(totals.blocks, 'block', 'blocks')}, ` +
      `${plural(totals.redactions, 'redaction', 'redactions')}, ${plural(totals.warnings, 'warning', 'warnings')}.`;
  // NB: no label says "window": it would also answer to the Window select's name
  const latencyLabel = !summary.data
    ? `Latency Steward added over the ${over}: loading.`
    : `Latency Steward added, p50 and p99 in milliseconds ${per} over the ${over}. ` +
      (totals.p50_ms === null
        ? 'No call recorded it.'
        : `Median p50 ${formatMs(totals.p50_ms)}, highest p99 ${formatMs(totals.p99_ms)}.`);

  return (
    <Page title="Overview">
      <div class="toolbar">
        <Field id="window" label="Window">
          <select id="window" value={span} onChange={(e) => navigate(`${BASE}?window=${e.currentTarget.value}`)}>
            {Object.entries(WINDOWS).map(([value, text]) => (
              <option value={value} key={value}>
                {text}
              </option>
            ))}
          </select>
        </Field>
        <Freshness at={summary.at} loading={summary.loading} onRefresh={summary.reload} />
      </div>
      <h2>Totals over the {over}</h2>
      <dl class="metrics" aria-busy={summary.data ? undefined : 'true'}>
        {METRICS.map((m) => (
          <div key={m.key}>
            <dt>{m.term}</dt>
            <dd data-metric={m.key}>{summary.data ? m.show(totals) : NONE}</dd>
          </div>
        ))}
      </dl>
      <div class="charts">
        <section aria-labelledby="counts-title">
          <h2 id="counts-title">Decisions {per}</h2>
          <Chart label={countsLabel} series={COUNT_SERIES} data={counts} />
        </section>
        <section aria-labelledby="latency-title">
          <h2 id="latency-title">Added latency {per}</h2>
          <Chart label={latencyLabel} series={LATENCY_SERIES} unit="ms" data={latency} />
        </section>
      </div>
    </Page>
  );
}
