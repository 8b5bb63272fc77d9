/** MCP connectors (`/mcp/*`, `/api/v1/connectors/refresh`): the reference's shapes plus what the SDKs send. */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { jsonObject, jsonValue, safeText } from '../safe.js';

const connectorName = safeText().min(1).max(253);
const healthStatus = z.enum(['healthy', 'unhealthy', 'unknown']);

export const connectorInfo = z.object({
  name: z.string(),
  type: z.string(),
  status: healthStatus,
  last_health_check: timestamp.nullable(),
  latency_ms: z.number().nullable().optional(),
  allowed_operations: z.array(z.string()).optional(),
  /** The tools the caller may see: as `/mcp` lists them, without those a policy denies at `list` time. */
  tools: z.array(z.string()).optional(),
  tool_definitions: z
    .object({
      approved: z.string().nullable().describe('the pinned list digest; null: nothing pinned yet'),
      current: z.string().describe('the digest of the list the upstream serves now'),
      held: z.number().int().describe('tools held (changed, new or suspect)'),
    })
    .optional()
    .describe("an mcp or a2a connector's pinned tool definitions (docs/connectors.md)"),
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
    approval_id: safeText()
      .max(64)
      .optional()
      .describe('the approval to run this call with, once a policy that required it was approved (docs/approvals.md)'),
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
    approval_id: safeText()
      .max(64)
      .optional()
      .describe('the approval to run this call with, once a policy that required it was approved (docs/approvals.md)'),
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

export const connectorRefreshResponse = z.object({
  success: z.boolean(),
  refreshed_count: z.number().int(),
  message: z.string(),
});

/** A JSON-RPC 2.0 message (or batch) of the MCP Streamable HTTP transport. */
export const mcpJsonRpc = z.union([jsonObject(), z.array(jsonObject())]);
