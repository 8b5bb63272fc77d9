import { z } from 'zod';
import { conditionSchema } from './conditions.js';
import { secretKeyRef } from './common.js';
import { commonColumns, defineKind } from './kind.js';

export const connectorType = z.enum(['postgres', 'mysql', 'redis', 'http', 'mcp']);
export type ConnectorType = z.infer<typeof connectorType>;

export const connectorSpec = z
  .object({
    type: connectorType,
    description: z.string().max(4096).optional(),
    connection: z
      .object({
        secretRef: secretKeyRef.optional().describe('Secret key holding the connection URL (cluster)'),
        fromEnv: z
          .string()
          .regex(/^[A-Z_][A-Z0-9_]*$/)
          .optional()
          .describe('environment variable holding the connection URL (standalone)'),
      })
      .strict()
      .describe('where the connection URL comes from; never inline credentials'),
    options: z.record(z.string(), z.unknown()).optional().describe('kind-specific options (pool size, headers, ...)'),
    allowedOperations: z
      .array(z.string().min(1))
      .default(['query'])
      .describe('operations callers may run (query, execute, or tool names)'),
    healthCheck: z
      .object({
        intervalSeconds: z.number().int().min(5).max(3600).default(30),
        timeoutMs: z.number().int().min(100).max(60_000).default(2000),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ConnectorSpec = z.infer<typeof connectorSpec>;

export const connectorStatus = z
  .object({
    status: z.enum(['healthy', 'unhealthy', 'unknown']).optional(),
    lastHealthCheck: z.string().optional(),
    latencyMs: z.number().min(0).optional(),
    message: z.string().optional(),
    conditions: z.array(conditionSchema).optional(),
    observedGeneration: z.number().int().optional(),
  })
  .strict();

export const Connector = defineKind({
  kind: 'Connector',
  plural: 'connectors',
  singular: 'connector',
  shortNames: ['conn'],
  description: 'An MCP connector to a database, cache, HTTP API or MCP server.',
  spec: connectorSpec,
  status: connectorStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    { name: 'Latency-ms', type: 'number', jsonPath: '.status.latencyMs', priority: 1 },
    { name: 'Checked', type: 'date', jsonPath: '.status.lastHealthCheck', priority: 1 },
    commonColumns.age,
  ],
});
