/**
 * Request metrics over a sliding window (counts, latency percentiles, rps, success rate, uptime; the JSON
 * `/metrics`), and the process's Prometheus metrics through prom-client (`StewardTelemetry`).
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
export { POLICY_FAILURES_METRIC } from './policy-failures.js';
export {
  BoundedLabel,
  StewardTelemetry,
  type HttpRequestCell,
  type PolicyDecisionOutcome,
  type TelemetryOptions,
} from './telemetry.js';
export { agentMetricsBody, orchestratorRequestMetrics } from './reference.js';
