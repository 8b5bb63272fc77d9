import { orchestratorRequestMetrics, RequestMetrics, type Clock } from '../../metrics/index.js';
import type { AgentPool } from '../pool/index.js';

export interface ParallelMetricsOptions {
  /** The sliding window of the request and latency figures, seconds. @default 300 */
  windowSec?: number;
  now?: Clock;
}

/**
 * The figures of `GET /orchestrator/metrics`: parallel requests and their latency over a sliding window (the
 * window is `period_seconds`), parallel execution since start, and each pool member's own figures.
 */
export class ParallelMetrics {
  private readonly requests: RequestMetrics;
  private readonly now: Clock;
  private queries = 0;
  private speedups = 0;
  private speedupSum = 0;
  private maxSpeedup = 0;

  constructor(options: ParallelMetricsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.requests = new RequestMetrics({ windowSec: options.windowSec ?? 300, now: this.now });
  }

  /** One parallel request answered: 2xx counts as successful, anything else as failed. */
  recordRequest(latencyMs: number, ok: boolean): void {
    this.requests.record(latencyMs, ok ? 'success' : 'failed');
  }

  /** One executed request's queries and speedup. */
  recordExecution(queries: number, speedup: number): void {
    this.queries += queries;
    if (!Number.isFinite(speedup)) return;
    this.speedups++;
    this.speedupSum += speedup;
    if (speedup > this.maxSpeedup) this.maxSpeedup = speedup;
  }

  snapshot(pool: AgentPool) {
    const { requests, latency, period_seconds } = orchestratorRequestMetrics(this.requests.snapshot());
    const round = (n: number) => Math.round(n * 100) / 100;
    const agents: Record<string, { queries_processed: number; cpu_percent: number; memory_mb: number }> = {};
    for (const m of pool.members()) {
      if (m.draining) continue;
      agents[m.stats.agentId || m.id] = {
        queries_processed: m.stats.queriesProcessed,
        cpu_percent: round(m.stats.cpuPercent),
        memory_mb: round(m.stats.memoryMb),
      };
    }
    const timestamp = new Date(this.now()).toISOString();
    return {
      metrics: {
        requests,
        latency,
        parallel_execution: {
          total_parallel_queries: this.queries,
          average_speedup: this.speedups ? round(this.speedupSum / this.speedups) : 0,
          max_speedup_observed: round(this.maxSpeedup),
        },
        agent_utilization: agents,
        timestamp,
        period_seconds,
      },
      timestamp,
      period_seconds,
    };
  }
}
