import { z } from 'zod';
import { conditionsField, observedGenerationField } from './conditions.js';
import { labelSelector, secretKeyRef } from './common.js';
import { llmProviderType } from './agentconfig.js';
import { commonColumns, defineKind } from './kind.js';
import { modelPrice } from './budget.js';

const component = z
  .object({
    replicas: z.number().int().min(0).max(100).default(2).describe('pods of this component'),
    resources: z
      .object({
        requests: z
          .record(z.string(), z.string())
          .optional()
          .describe('resources each container is guaranteed, e.g. {cpu: 250m, memory: 256Mi}'),
        limits: z
          .record(z.string(), z.string())
          .optional()
          .describe('most resources each container may use, e.g. {memory: 512Mi}'),
      })
      .strict()
      .optional()
      .describe("compute resources of the component's containers"),
  })
  .strict();

export const orchestratorSpec = z
  .object({
    image: z
      .object({
        repository: z.string().min(1).default('ghcr.io/steward-dev/steward').describe('image repository'),
        tag: z.string().min(1).default('latest').describe('image tag; pin a version in production'),
        pullPolicy: z
          .enum(['Always', 'IfNotPresent', 'Never'])
          .default('IfNotPresent')
          .describe('Kubernetes imagePullPolicy'),
      })
      .strict()
      .default({ repository: 'ghcr.io/steward-dev/steward', tag: 'latest', pullPolicy: 'IfNotPresent' })
      .describe('the Steward image every component runs'),
    gateway: component
      .default({ replicas: 2 })
      .describe('the agent gateway (policy pre-check, audit, governed LLM calls)'),
    orchestrator: component
      .default({ replicas: 2 })
      .describe('the orchestrator (multi-agent plans, agent registry, webhooks)'),
    communityMode: z
      .boolean()
      .default(false)
      .describe(
        'serve without credentials (development only); a cluster install is never in community mode unless this says so',
      ),
    licenseRef: z
      .object({ name: z.string().min(1).describe('License name, same namespace') })
      .strict()
      .optional()
      .describe('the License this installation runs under; absent: community mode'),
    database: z
      .object({ secretRef: secretKeyRef.describe('Secret key holding a PostgreSQL URL') })
      .strict()
      .optional()
      .describe('PostgreSQL for audit and operational data; absent: embedded PGlite (single replica only)'),
    redis: z
      .object({ secretRef: secretKeyRef.describe('Secret key holding a Redis URL') })
      .strict()
      .optional()
      .describe('Redis for rate limits shared by all gateway replicas; absent: in-memory rate limits per replica'),
    llm: z
      .object({
        defaultProvider: z.string().optional().describe('name of the provider used when a request names none'),
        providers: z
          .array(
            z
              .object({
                name: z.string().min(1).describe('name requests and defaultProvider use'),
                type: llmProviderType,
                model: z.string().min(1).describe('default model, e.g. gpt-4o-mini'),
                endpoint: z.string().url().optional().describe("API base URL; absent: the provider's public endpoint"),
                region: z.string().optional().describe('AWS region (aws-bedrock)'),
                secretRef: secretKeyRef.optional().describe('Secret key holding the API key'),
              })
              .strict(),
          )
          .default([])
          .describe('LLM providers the gateway and the planner may call'),
        prices: z
          .record(z.string().min(1).max(256), modelPrice)
          .optional()
          .describe(
            'model prices that override or add to the built-in table (docs/budgets.md), keys provider/model, model or provider/*',
          ),
        defaultPrice: modelPrice
          .optional()
          .describe('the price of a model found nowhere; absent: such a model is charged in tokens only'),
      })
      .strict()
      .optional()
      .describe('LLM providers; absent: no governed LLM calls and a deterministic planner'),
    agentPool: z
      .object({
        selector: labelSelector.optional().describe('which AgentConfigs form the pool; absent: all in the namespace'),
      })
      .strict()
      .optional()
      .describe('the AgentConfigs this orchestrator plans with'),
    tls: z
      .object({
        secretName: z.string().min(1).describe('kubernetes.io/tls Secret for the orchestrator'),
      })
      .strict()
      .optional()
      .describe('TLS for the orchestrator; absent: plain HTTP inside the cluster'),
    ingress: z
      .object({
        enabled: z.boolean().default(false).describe('create an Ingress for the gateway'),
        className: z.string().optional().describe('IngressClass name, e.g. nginx'),
        host: z.string().optional().describe('host name the Ingress serves'),
        tlsSecretName: z.string().optional().describe('kubernetes.io/tls Secret for the Ingress host'),
      })
      .strict()
      .optional()
      .describe('an optional Ingress in front of the gateway'),
    console: z
      .object({
        enabled: z.boolean().default(true).describe('serve the governance console at /console (docs/console.md)'),
      })
      .strict()
      .optional()
      .describe("the gateway's governance console; absent: served"),
  })
  .strict()
  .describe('desired state: the components, their dependencies and the agent pool');
export type OrchestratorSpec = z.infer<typeof orchestratorSpec>;

export const orchestratorStatus = z
  .object({
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
    pool: z
      .object({
        desired: z.number().int().min(0).describe('agent pods the pool should have'),
        available: z.number().int().min(0).describe('agent pods that are running'),
        healthy: z.number().int().min(0).describe('agent pods that pass health checks'),
        unhealthy: z.number().int().min(0).describe('agent pods that fail health checks'),
      })
      .strict()
      .optional()
      .describe('the agent pool as the orchestrator runtime sees it'),
    endpoints: z
      .object({
        gateway: z.string().optional().describe('URL of the gateway Service'),
        orchestrator: z.string().optional().describe('URL of the orchestrator Service'),
      })
      .strict()
      .optional()
      .describe('where clients reach the installation'),
  })
  .strict()
  .describe('observed state, written by the operator and the orchestrator runtime');

export const Orchestrator = defineKind({
  kind: 'Orchestrator',
  plural: 'orchestrators',
  singular: 'orchestrator',
  shortNames: ['stworch'],
  description: 'A Steward installation: gateway and orchestrator Deployments plus the agent pool they use.',
  spec: orchestratorSpec,
  status: orchestratorStatus,
  printerColumns: [
    { name: 'Gateways', type: 'integer', jsonPath: '.spec.gateway.replicas' },
    { name: 'Pool-Healthy', type: 'integer', jsonPath: '.status.pool.healthy' },
    { name: 'Pool-Desired', type: 'integer', jsonPath: '.status.pool.desired' },
    commonColumns.ready,
    commonColumns.reason,
    commonColumns.age,
    { name: 'Gateway', type: 'string', jsonPath: '.status.endpoints.gateway', priority: 1 },
    commonColumns.message,
  ],
});
