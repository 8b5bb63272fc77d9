import { z } from 'zod';
import { DEFAULT_AGENT_TIMEOUT } from './constants.js';
import { conditionsField, observedGenerationField } from './conditions.js';
import { duration } from './common.js';
import { commonColumns, defineKind } from './kind.js';

export const llmProviderType = z
  .enum(['openai', 'anthropic', 'aws-bedrock', 'ollama'])
  .describe('LLM provider: openai, anthropic, aws-bedrock or ollama');
export type LlmProviderType = z.infer<typeof llmProviderType>;

/** Domains named by the service reference; others are allowed, these are the planner's hints. */
export const KNOWN_DOMAINS = ['travel', 'healthcare', 'finance', 'generic'] as const;

export const agentConfigSpec = z
  .object({
    type: z.enum(['specialist', 'coordinator']).describe('specialist agents do work; coordinators plan and delegate'),
    domain: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a lowercase word such as travel or healthcare')
      .describe('domain the agent serves (travel, healthcare, finance, generic, ...)'),
    description: z
      .string()
      .max(4096)
      .default('')
      .describe('what the agent does, in words; the planner reads it when choosing agents for a step'),
    capabilities: z
      .array(z.string().min(1).max(128))
      .max(64)
      .default([])
      .describe(
        'what the agent can do, e.g. flight-search or currency-conversion; the planner matches steps against these',
      ),
    llm: z
      .object({
        provider: llmProviderType,
        model: z.string().min(1).max(256).describe("the provider's model name, e.g. gpt-4o-mini or claude-sonnet-4-5"),
        fallback: z
          .boolean()
          .optional()
          .describe(
            'when the provider is not configured, run on the default provider (true, the default) or fail with PROVIDER_NOT_CONFIGURED (false)',
          ),
      })
      .strict()
      .optional()
      .describe('the model the agent calls; required for specialist agents'),
    timeout: duration.default(DEFAULT_AGENT_TIMEOUT).describe('per-step timeout; default 60s'),
    replicas: z.number().int().min(0).max(100).default(1).describe('pool-agent pods for this agent'),
  })
  .strict()
  .describe('desired state: what the agent serves, can do and runs on');
export type AgentConfigSpec = z.infer<typeof agentConfigSpec>;

export const agentConfigStatus = z
  .object({
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
    readyReplicas: z.number().int().min(0).optional().describe("ready pods of the agent's Deployment"),
    healthyAgents: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("the agent's pods that pass the orchestrator's health checks"),
    llm: z
      .object({
        provider: z.string().describe('the configured provider the agent calls'),
        model: z.string().optional().describe("the model it calls; absent: the provider's default model"),
        fallback: z
          .boolean()
          .describe('true when spec.llm.provider is not configured and the default provider answers instead'),
        requestedProvider: z.string().optional().describe('spec.llm.provider, on a fallback'),
      })
      .strict()
      .optional()
      .describe("the provider the agent's pods report they call (written by the orchestrator)"),
    cardUrl: z
      .string()
      .optional()
      .describe("the agent's A2A Agent Card on its Orchestrator's gateway (docs/a2a.md), written by the operator"),
  })
  .strict()
  .describe('observed state, written by the operator and the orchestrator');

export const AgentConfig = defineKind({
  kind: 'AgentConfig',
  plural: 'agentconfigs',
  singular: 'agentconfig',
  // NB: not `agents` or `agent`: kagent's Agent CRD owns those names in many clusters.
  shortNames: ['stwagent'],
  description: 'An agent of the pool: its domain, capabilities and model, run as a pool-agent Deployment.',
  spec: agentConfigSpec,
  status: agentConfigStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Domain', type: 'string', jsonPath: '.spec.domain' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Healthy', type: 'integer', jsonPath: '.status.healthyAgents' },
    commonColumns.ready,
    commonColumns.reason,
    commonColumns.age,
    { name: 'Model', type: 'string', jsonPath: '.spec.llm.model', priority: 1 },
    { name: 'Card', type: 'string', jsonPath: '.status.cardUrl', priority: 1 },
    commonColumns.message,
  ],
});
