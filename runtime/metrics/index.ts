/**
 * Request metrics over a sliding window (counts, latency percentiles, rps, success rate, uptime) and a
 * Prometheus text renderer. Time comes from an injected clock.
 */
export {
  MetricsInputError,
  RequestMetrics,
  successRateFraction,
  successRatePercent,
  type Clock,
  type MetricsSnapshot,
  type Outcome,
  type OutcomeCounts,
  type RequestMetricsOptions,
} from './request-metrics.js';
export { DEFAULT_LATENCY_BOUNDS_MS, LatencyHistogram } from './histogram.js';
export {
  PROMETHEUS_CONTENT_TYPE,
  PrometheusFormatError,
  escapeLabelValue,
  formatValue,
  renderPrometheus,
  type CounterFamily,
  type GaugeFamily,
  type HistogramFamily,
  type Labels,
  type MetricFamily,
} from './prometheus.js';
export { requestMetricFamilies, type RequestFamiliesOptions } from './families.js';
export { POLICY_FAILURES_METRIC, policyFailureFamily } from './policy-failures.js';
export { agentMetricsBody, orchestratorRequestMetrics } from './reference.js';
