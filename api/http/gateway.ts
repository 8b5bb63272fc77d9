import { z } from 'zod';
import { timestamp } from './common.js';
import { int32, jsonObject, jsonValue, safeText } from './safe.js';

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
    client_id: safeText().min(1),
    user_token: safeText().min(1),
    query: safeText(),
    context: jsonObject().optional(),
    data_sources: z.array(jsonValue).optional(),
  })
  .catchall(jsonValue);

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
    client_id: safeText().optional(),
    user_token: safeText().optional(),
    context_id: safeText().min(1),
    prompt: safeText().optional(),
    response: safeText().optional(),
    response_summary: safeText().optional(),
    provider: safeText().optional(),
    model: safeText().optional(),
    latency_ms: z.number().min(0).max(86_400_000).optional(),
    tokens: z.object({ prompt: int32(), completion: int32() }).partial().optional(),
    token_usage: z.object({ prompt_tokens: int32(), completion_tokens: int32(), total_tokens: int32() }).partial().optional(),
    metadata: jsonObject().optional(),
  })
  .catchall(jsonValue);

export const auditResponse = z.object({
  success: z.literal(true),
  audit_id: z.string(),
  recorded: z.boolean(),
  timestamp,
});

export const policyTestRequest = z.object({ query: safeText(), context: jsonObject().optional() });
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
export const createClientRequest = z.object({ name: safeText().min(1).max(128), description: safeText().max(1024).optional() });
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

export const executeRequest = z.object({ prompt: safeText().min(1), mode: safeText().default('chat') }).catchall(jsonValue);

export const gatewayRequest = z
  .object({
    query: safeText(),
    request_type: safeText().default('chat'),
    context: jsonObject().optional(),
  })
  .catchall(jsonValue);

// MCP connectors (`/mcp/*`, `/api/v1/connectors/refresh`): the reference's shapes plus what the SDKs send.

const connectorName = safeText().min(1).max(253);
const healthStatus = z.enum(['healthy', 'unhealthy', 'unknown']);

export const connectorInfo = z.object({
  name: z.string(),
  type: z.string(),
  status: healthStatus,
  last_health_check: timestamp.nullable(),
  latency_ms: z.number().nullable().optional(),
  allowed_operations: z.array(z.string()).optional(),
});
export const connectorList = z.object({ connectors: z.array(connectorInfo), count: z.number().int() });

export const connectorHealth = z.object({
  name: z.string(),
  type: z.string(),
  healthy: z.boolean(),
  status: healthStatus,
  latency_ms: z.number(),
  last_check: timestamp,
  error: z.string().optional(),
});
export const connectorsHealth = z.object({
  healthy: z.boolean(),
  total_connectors: z.number().int(),
  healthy_count: z.number().int(),
  unhealthy_count: z.number().int(),
  timestamp,
  connectors: z.array(connectorHealth),
});

/** Per-call limits; they can only tighten the connector's (`timeoutMs`, `maxRows`, `redact`, snake_case too). */
export const connectorCallOptions = jsonObject();

/** The reference sends `query` and `params`, the SDKs `statement` and `options`: one of query or statement. */
export const mcpQueryRequest = z
  .object({
    connector: connectorName,
    query: safeText().optional(),
    statement: safeText().optional(),
    params: z.union([z.array(jsonValue), jsonObject()]).optional(),
    options: connectorCallOptions.optional(),
    user_token: safeText().optional(),
    client_id: safeText().optional(),
  })
  .catchall(jsonValue);

export const mcpToolRequest = z
  .object({
    connector: connectorName,
    tool: safeText().min(1).max(256),
    params: jsonObject().optional(),
    options: connectorCallOptions.optional(),
    user_token: safeText().optional(),
    client_id: safeText().optional(),
  })
  .catchall(jsonValue);

/** What every governed connector answer carries besides the data. */
export const connectorCallMetadata = z.object({
  audit_id: z.string(),
  connector: z.string(),
  type: z.string(),
  operation: z.string(),
  statement_hash: z.string().optional(),
  policies_evaluated: z.array(z.string()),
  warnings: z.array(z.string()).optional(),
  redactions: z.record(z.string(), z.number()).optional(),
  truncated: z.boolean(),
});

export const mcpQueryResponse = z.object({
  success: z.literal(true),
  data: z.array(z.record(z.string(), z.unknown())),
  row_count: z.number().int(),
  execution_time_ms: z.number(),
  columns: z.array(z.string()).optional(),
  affected_rows: z.number().int().optional(),
  metadata: connectorCallMetadata,
});

export const mcpToolResponse = z.object({
  success: z.literal(true),
  result: z.unknown(),
  execution_time_ms: z.number(),
  metadata: connectorCallMetadata,
});

export const connectorRefreshResponse = z.object({ success: z.boolean(), refreshed_count: z.number().int(), message: z.string() });

/** A JSON-RPC 2.0 message (or batch) of the MCP Streamable HTTP transport. */
export const mcpJsonRpc = z.union([jsonObject(), z.array(jsonObject())]);
