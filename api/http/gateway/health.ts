/** The gateway's health, probes and request metrics (`/health`, `/healthz`, `/readyz`, `/metrics`). */
import { z } from 'zod';
import { timestamp } from '../common.js';

export const licenseStatusBody = z.object({
  valid: z.boolean(),
  tier: z.string(),
  maxNodes: z.number().int(),
  expiresAt: timestamp,
  organization_id: z.string().optional(),
  reason: z.string().optional(),
});

export const gatewayHealth = z.object({
  service: z.string(),
  status: z.enum(['healthy', 'degraded', 'starting']),
  timestamp,
  version: z.string(),
  mode: z.enum(['community', 'licensed']).optional(),
  warnings: z.array(z.string()).optional(),
  license: licenseStatusBody.optional(),
});

/** GET /healthz (liveness) and GET /readyz (readiness: 503 with the reasons while not ready). */
export const gatewayProbe = z.object({
  status: z.enum(['ok', 'not-ready']),
  reason: z.string().optional().describe('why the gateway is not ready'),
});

export const gatewayMetrics = z.object({
  agent_metrics: z.object({
    total_requests: z.number().int(),
    success_requests: z.number().int(),
    failed_requests: z.number().int(),
    blocked_requests: z.number().int(),
    avg_latency_ms: z.number(),
    p50_ms: z.number(),
    p95_ms: z.number(),
    p99_ms: z.number(),
    rps: z.number(),
    success_rate: z.number(),
    uptime_seconds: z.number(),
  }),
  health: z.object({ status: z.string(), healthy: z.boolean() }),
  timestamp,
});
