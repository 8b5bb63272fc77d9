import { successRateFraction, successRatePercent, type MetricsSnapshot } from './request-metrics.js';

const ms2 = (v: number) => Math.round(v * 100) / 100;

/**
 * The Agent's `agent_metrics` object (service reference, Agent health and metrics). Counts are over the
 * snapshot's window, like the latencies and rps beside them; lifetime counts go to Prometheus.
 */
export function agentMetricsBody(s: MetricsSnapshot) {
  return {
    total_requests: s.total,
    success_requests: s.success,
    failed_requests: s.failed,
    blocked_requests: s.blocked,
    avg_latency_ms: ms2(s.avgLatencyMs),
    p50_ms: ms2(s.p50Ms),
    p95_ms: ms2(s.p95Ms),
    p99_ms: ms2(s.p99Ms),
    rps: ms2(s.rps),
    success_rate: successRatePercent(s),
    uptime_seconds: Math.floor(s.uptimeSeconds),
  };
}

/** The Orchestrator's `requests` and `latency` objects and `period_seconds` (Orchestrator metrics). */
export function orchestratorRequestMetrics(s: MetricsSnapshot) {
  return {
    requests: { total: s.total, successful: s.success, failed: s.failed, success_rate: successRateFraction(s) },
    latency: { p50_ms: ms2(s.p50Ms), p95_ms: ms2(s.p95Ms), p99_ms: ms2(s.p99Ms), max_ms: ms2(s.maxMs) },
    period_seconds: s.windowSec,
  };
}
