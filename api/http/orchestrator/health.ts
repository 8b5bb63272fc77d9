/** The orchestrator's health, probes and metrics (`/health`, `/healthz`, `/readyz`, `/orchestrator/metrics`). */
import { z } from 'zod';
import { timestamp } from '../common.js';

export const orchestratorHealth = z.object({
  status: z.enum(['healthy', 'unhealthy']),
  version: z.string(),
  uptime_seconds: z.number(),
  components: z.object({
    database: z.object({ status: z.string(), latency_ms: z.number() }),
    agents: z.object({
      status: z.enum(['healthy', 'degraded']),
      available: z.number().int(),
      desired: z.number().int(),
      healthy_agents: z.number().int(),
      unhealthy_agents: z.number().int().optional(),
    }),
    load_balancer: z.object({ status: z.string() }),
  }),
  timestamp,
});

/** GET /healthz (liveness) and GET /readyz (readiness: 503 with the reasons while not ready). */
export const orchestratorProbe = z.object({
  status: z.enum(['ok', 'not-ready']),
  reason: z.string().optional().describe('why the orchestrator is not ready'),
});

/** `GET /orchestrator/metrics` (and `GET /metrics` on the orchestrator). */
export const orchestratorMetrics = z.object({
  metrics: z.object({
    requests: z.object({
      total: z.number().int(),
      successful: z.number().int(),
      failed: z.number().int(),
      success_rate: z.number(),
    }),
    latency: z.object({ p50_ms: z.number(), p95_ms: z.number(), p99_ms: z.number(), max_ms: z.number() }),
    parallel_execution: z.object({
      total_parallel_queries: z.number().int(),
      average_speedup: z.number(),
      max_speedup_observed: z.number(),
    }),
    agent_utilization: z.record(
      z.string(),
      z.object({ queries_processed: z.number().int(), cpu_percent: z.number(), memory_mb: z.number() }),
    ),
    timestamp: timestamp,
    period_seconds: z.number().int(),
  }),
  // NB: the reference lists both inside `metrics`; they are repeated at the top for clients that read them there.
  timestamp: timestamp,
  period_seconds: z.number().int(),
});
