import { z } from 'zod';
import { conditionsField, observedGenerationField } from './conditions.js';
import { secretKeyRef } from './common.js';
import { commonColumns, defineKind } from './kind.js';

export const connectorType = z
  .enum(['postgres', 'mysql', 'redis', 'http', 'mcp', 'a2a', 'pglite'])
  .describe(
    'what the connector talks to: postgres, mysql, redis, http, mcp (a remote MCP server), a2a (a remote A2A agent, by its signed Agent Card) or pglite (an embedded, read-only PostgreSQL filled from spec.seed)',
  );
export type ConnectorType = z.infer<typeof connectorType>;

export const connectorSpec = z
  .object({
    type: connectorType,
    description: z.string().max(4096).optional().describe('what the connector gives access to, in words'),
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
      // NB: a default, not optional: the runtimes and the operator read `spec.connection.secretRef` on every kind.
      .default({})
      .describe(
        'where the connection URL comes from; never inline credentials. Required except for pglite, which has none',
      ),
    seed: z
      .string()
      .min(1)
      .max(262_144)
      .optional()
      .describe(
        'pglite only: SQL that creates and fills the embedded database each time it starts, run before the connector turns read-only',
      ),
    options: z.record(z.string(), z.unknown()).optional().describe('kind-specific options (pool size, headers, ...)'),
    allowedOperations: z
      .array(z.string().min(1))
      .default(['query'])
      .describe('operations callers may run (query, execute, or tool names)'),
    organizations: z
      .array(z.string().min(1).max(253))
      .max(1000)
      .optional()
      .describe(
        'organizations this connector serves; absent: the organizations of the Licenses in its namespace (any caller in community mode)',
      ),
    healthCheck: z
      .object({
        intervalSeconds: z.number().int().min(5).max(3600).default(30).describe('seconds between health checks'),
        timeoutMs: z.number().int().min(100).max(60_000).default(2000).describe('a check slower than this fails'),
      })
      .strict()
      .optional()
      .describe('how the gateway checks the connection; absent: every 30s with a 2000ms timeout'),
  })
  .strict()
  .describe('desired state: what to connect to, with which credentials, and what callers may do');
export type ConnectorSpec = z.infer<typeof connectorSpec>;

export const connectorStatus = z
  .object({
    status: z.enum(['healthy', 'unhealthy', 'unknown']).optional().describe('result of the last health check'),
    lastHealthCheck: z.string().optional().describe('when the last health check ran (RFC 3339)'),
    latencyMs: z.number().min(0).optional().describe('round-trip time of the last health check, in milliseconds'),
    message: z.string().optional().describe('error of the last failed health check'),
    tools: z
      .object({
        approved: z
          .string()
          .optional()
          .describe(
            'digest of the approved tool list (sha256 over the sorted tool digests), as steward.dev/approve-tools takes it',
          ),
        current: z
          .string()
          .describe('digest of the tool list the upstream serves now; annotate with it to approve that list'),
        approvedAt: z.string().optional().describe('when the approved list was pinned (RFC 3339)'),
        approvedBy: z
          .enum(['first-use', 'annotation', 'new-tool'])
          .optional()
          .describe('how: on first use, by the annotation, or a new tool pinned on sight (STEWARD_MCP_NEW_TOOLS=pin)'),
        tools: z
          .array(
            z
              .object({
                name: z.string().describe("the tool's name on the upstream"),
                digest: z.string().describe('sha256 over the RFC 8785 canonical name, description and inputSchema'),
                state: z
                  .enum(['approved', 'changed', 'new', 'suspect', 'removed'])
                  .describe(
                    'approved: listed and callable; changed, new, suspect: held; removed: approved but no longer listed',
                  ),
              })
              .strict(),
          )
          .describe('each tool listed now, then each approved tool no longer listed (at most 500)'),
        changes: z.string().optional().describe('the differences from the approved list, one per line'),
        unverified: z
          .string()
          .optional()
          .describe('why the list could not be checked against the pin (every tool is held)'),
      })
      .strict()
      .optional()
      .describe(
        "types mcp and a2a: the pinned tool definitions (an a2a agent's card is its one tool, send_message; docs/connectors.md), written by the gateway",
      ),
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
  })
  .strict()
  .describe('observed state, reported by the gateway');

export const Connector = defineKind({
  kind: 'Connector',
  plural: 'connectors',
  singular: 'connector',
  shortNames: ['stwconn'],
  description: 'An MCP connector to a database, cache, HTTP API or MCP server.',
  spec: connectorSpec,
  status: connectorStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    commonColumns.ready,
    commonColumns.reason,
    commonColumns.age,
    { name: 'Latency-ms', type: 'number', jsonPath: '.status.latencyMs', priority: 1 },
    { name: 'Checked', type: 'date', jsonPath: '.status.lastHealthCheck', priority: 1 },
    commonColumns.message,
  ],
});
