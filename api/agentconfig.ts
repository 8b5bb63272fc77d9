import { z } from 'zod';
import { DEFAULT_AGENT_TIMEOUT } from './constants.js';
import { conditionSchema } from './conditions.js';
import { duration } from './common.js';
import { commonColumns, defineKind } from './kind.js';

export const llmProviderType = z.enum(['openai', 'anthropic', 'aws-bedrock', 'ollama']);
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
    description: z.string().max(4096).default(''),
    capabilities: z.array(z.string().min(1).max(128)).max(64).default([]),
    llm: z
      .object({
        provider: llmProviderType,
        model: z.string().min(1).max(256),
      })
      .strict()
      .optional()
      .describe('required for specialist agents'),
    timeout: duration.default(DEFAULT_AGENT_TIMEOUT).describe('per-step timeout; default 60s'),
    replicas: z.number().int().min(0).max(100).default(1).describe('pool-agent pods for this agent'),
  })
  .strict();
export type AgentConfigSpec = z.infer<typeof agentConfigSpec>;

export const agentConfigStatus = z
  .object({
    conditions: z.array(conditionSchema).optional(),
    observedGeneration: z.number().int().optional(),
    readyReplicas: z.number().int().min(0).optional(),
    healthyAgents: z.number().int().min(0).optional(),
  })
  .strict();

export const AgentConfig = defineKind({
  kind: 'AgentConfig',
  plural: 'agentconfigs',
  singular: 'agentconfig',
  shortNames: ['agent', 'agents', 'ac'],
  description: 'An agent of the pool: its domain, capabilities and model, run as a pool-agent Deployment.',
  spec: agentConfigSpec,
  status: agentConfigStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Domain', type: 'string', jsonPath: '.spec.domain' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Healthy', type: 'integer', jsonPath: '.status.healthyAgents' },
    commonColumns.ready,
    { name: 'Model', type: 'string', jsonPath: '.spec.llm.model', priority: 1 },
    commonColumns.age,
  ],
});
