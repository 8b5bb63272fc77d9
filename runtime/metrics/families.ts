import type { MetricFamily } from './prometheus.js';
import type { RequestMetrics } from './request-metrics.js';

export interface RequestFamiliesOptions {
  /** Metric name prefix, e.g. `steward_gateway`. */
  prefix: string;
  /** Labels put on every sample (for example `{surface: "agent"}`). */
  labels?: Readonly<Record<string, string>>;
}

/**
 * The Prometheus view of a RequestMetrics: lifetime counters and latency histogram (what rate() and
 * histogram_quantile() want), plus gauges of the sliding window for dashboards without PromQL.
 */
export function requestMetricFamilies(m: RequestMetrics, options: RequestFamiliesOptions): MetricFamily[] {
  const { prefix } = options;
  const labels = options.labels ?? {};
  const s = m.snapshot();
  const h = m.histogram;
  const cumulative = h.cumulative();
  return [
    {
      type: 'counter',
      name: `${prefix}_requests_total`,
      help: 'Requests handled, by outcome (success, failed, blocked by policy).',
      samples: (['success', 'failed', 'blocked'] as const).map((outcome) => ({ labels: { ...labels, outcome }, value: s.lifetime[outcome] })),
    },
    {
      type: 'histogram',
      name: `${prefix}_request_duration_seconds`,
      help: 'Request latency in seconds.',
      series: [
        {
          labels,
          buckets: h.boundsMs.map((ms, i) => ({ le: ms / 1000, count: cumulative[i]! })),
          sum: h.sumMs / 1000,
          count: h.count,
        },
      ],
    },
    { type: 'gauge', name: `${prefix}_uptime_seconds`, help: 'Seconds since the process started.', samples: [{ labels, value: s.uptimeSeconds }] },
    {
      type: 'gauge',
      name: `${prefix}_window_requests_per_second`,
      help: `Requests per second over the last ${s.windowSec} seconds.`,
      samples: [{ labels, value: s.rps }],
    },
    {
      type: 'gauge',
      name: `${prefix}_window_latency_seconds`,
      help: `Latency quantiles over the last ${s.windowSec} seconds (0 when idle).`,
      samples: [
        { labels: { ...labels, quantile: '0.5' }, value: s.p50Ms / 1000 },
        { labels: { ...labels, quantile: '0.95' }, value: s.p95Ms / 1000 },
        { labels: { ...labels, quantile: '0.99' }, value: s.p99Ms / 1000 },
      ],
    },
  ];
}
