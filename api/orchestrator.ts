import { z } from 'zod';
import { conditionSchema } from './conditions.js';
import { labelSelector, secretKeyRef } from './common.js';
import { llmProviderType } from './agentconfig.js';
import { commonColumns, defineKind } from './kind.js';

const component = z
  .object({
    replicas: z.number().int().min(0).max(100).default(2),
    resources: z
      .object({
        requests: z.record(z.string(), z.string()).optional(),
        limits: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const orchestratorSpec = z
  .object({
    image: z
      .object({
        repository: z.string().min(1).default('ghcr.io/steward-dev/steward'),
        tag: z.string().min(1).default('latest'),
        pullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).default('IfNotPresent'),
      })
      .strict()
      .default({ repository: 'ghcr.io/steward-dev/steward', tag: 'latest', pullPolicy: 'IfNotPresent' }),
    gateway: component.default({ replicas: 2 }),
    orchestrator: component.default({ replicas: 2 }),
    licenseRef: z.object({ name: z.string().min(1) }).strict().optional(),
    database: z
      .object({ secretRef: secretKeyRef.describe('Secret key holding a PostgreSQL URL') })
      .strict()
      .optional()
      .describe('absent: embedded PGlite (single replica only)'),
    redis: z
      .object({ secretRef: secretKeyRef.describe('Secret key holding a Redis URL') })
      .strict()
      .optional()
      .describe('absent: in-memory rate limits per replica'),
    llm: z
      .object({
        defaultProvider: z.string().optional(),
        providers: z
          .array(
            z
              .object({
                name: z.string().min(1),
                type: llmProviderType,
                model: z.string().min(1),
                endpoint: z.string().url().optional(),
                region: z.string().optional(),
                secretRef: secretKeyRef.optional().describe('API key'),
              })
              .strict(),
          )
          .default([]),
      })
      .strict()
      .optional(),
    agentPool: z
      .object({
        selector: labelSelector.optional().describe('which AgentConfigs form the pool; absent: all in the namespace'),
      })
      .strict()
      .optional(),
    tls: z
      .object({
        secretName: z.string().min(1).describe('kubernetes.io/tls Secret for the orchestrator'),
      })
      .strict()
      .optional(),
    ingress: z
      .object({
        enabled: z.boolean().default(false),
        className: z.string().optional(),
        host: z.string().optional(),
        tlsSecretName: z.string().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type OrchestratorSpec = z.infer<typeof orchestratorSpec>;

export const orchestratorStatus = z
  .object({
    conditions: z.array(conditionSchema).optional(),
    observedGeneration: z.number().int().optional(),
    pool: z
      .object({
        desired: z.number().int().min(0),
        available: z.number().int().min(0),
        healthy: z.number().int().min(0),
        unhealthy: z.number().int().min(0),
      })
      .strict()
      .optional(),
    endpoints: z
      .object({ gateway: z.string().optional(), orchestrator: z.string().optional() })
      .strict()
      .optional(),
  })
  .strict();

export const Orchestrator = defineKind({
  kind: 'Orchestrator',
  plural: 'orchestrators',
  singular: 'orchestrator',
  shortNames: ['orch'],
  description: 'A Steward installation: gateway and orchestrator Deployments plus the agent pool they use.',
  spec: orchestratorSpec,
  status: orchestratorStatus,
  printerColumns: [
    { name: 'Gateways', type: 'integer', jsonPath: '.spec.gateway.replicas' },
    { name: 'Pool-Healthy', type: 'integer', jsonPath: '.status.pool.healthy' },
    { name: 'Pool-Desired', type: 'integer', jsonPath: '.status.pool.desired' },
    commonColumns.ready,
    { name: 'Gateway', type: 'string', jsonPath: '.status.endpoints.gateway', priority: 1 },
    commonColumns.age,
  ],
});
