import { z } from 'zod';
import { timestamp } from './common.js';

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

export const preCheckRequest = z
  .object({
    client_id: z.string().min(1),
    user_token: z.string().min(1),
    query: z.string(),
    context: z.record(z.string(), z.unknown()).optional(),
    data_sources: z.array(z.unknown()).optional(),
  })
  .passthrough();

export const policyDecision = z.object({
  context_id: z.string(),
  approved: z.boolean(),
  policies: z.array(z.string()),
  block_reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  expires_at: timestamp,
});

/** The reference's and the SDKs' audit fields; both spellings are accepted. */
export const auditRequest = z
  .object({
    client_id: z.string().optional(),
    user_token: z.string().optional(),
    context_id: z.string().min(1),
    prompt: z.string().optional(),
    response: z.string().optional(),
    response_summary: z.string().optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
    latency_ms: z.number().min(0).optional(),
    tokens: z.object({ prompt: z.number().int().min(0), completion: z.number().int().min(0) }).partial().optional(),
    token_usage: z
      .object({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0), total_tokens: z.number().int().min(0) })
      .partial()
      .optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();

export const auditResponse = z.object({
  success: z.literal(true),
  audit_id: z.string(),
  recorded: z.boolean(),
  timestamp,
});

export const policyTestRequest = z.object({ query: z.string(), context: z.record(z.string(), z.unknown()).optional() });
export const policyTestResponse = z.object({
  approved: z.boolean(),
  triggered_policies: z.array(z.string()),
  block_reason: z.string().optional(),
  warnings: z.array(z.string()).optional(),
  evaluation_time_ms: z.number(),
});

export const client = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  created_at: timestamp,
});
export const createClientRequest = z.object({ name: z.string().min(1).max(128), description: z.string().max(1024).optional() });
export const createClientResponse = client.extend({ api_key: z.string() });

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

export const executeRequest = z.object({ prompt: z.string().min(1), mode: z.string().default('chat') }).passthrough();

export const gatewayRequest = z
  .object({
    query: z.string(),
    request_type: z.string().default('chat'),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough();
