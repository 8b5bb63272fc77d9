import { z } from 'zod';
import { timestamp } from './common.js';
import { jsonObject, safeText } from './safe.js';

export const orchestratorHealth = z.object({
  status: z.enum(['healthy', 'unhealthy']),
  version: z.string(),
  uptime_seconds: z.number(),
  components: z.object({
    database: z.object({ status: z.string(), latency_ms: z.number() }),
    agents: z.object({
      status: z.enum(['healthy', 'degraded']),
      available: z.number().int(),
      desired: z.number().int(),
      healthy_agents: z.number().int(),
      unhealthy_agents: z.number().int().optional(),
    }),
    load_balancer: z.object({ status: z.string() }),
  }),
  timestamp,
});

export const registryAgent = z.object({
  name: z.string(),
  domain: z.string(),
  type: z.enum(['specialist', 'coordinator']),
  description: z.string(),
  capabilities: z.array(z.string()),
  source: z.string(),
  llm: z.object({ provider: z.string(), model: z.string() }).optional(),
  metadata: z.object({ createdAt: timestamp, updatedAt: timestamp }).optional(),
});

export const agentList = z.object({ agents: z.array(registryAgent), total: z.number().int() });

export const planRequest = z.object({
  query: safeText().min(1),
  domain: safeText().optional(),
  execution_mode: z.enum(['sequential', 'parallel', 'auto']).optional(),
  context: jsonObject().optional(),
  user: jsonObject().optional(),
});

export const planStep = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  description: z.string(),
  depends_on: z.array(z.string()).optional(),
  agent: z.string(),
});

export const planResponse = z.object({
  success: z.boolean(),
  plan_id: z.string(),
  result: z.string(),
  steps: z.array(planStep),
  metadata: z.object({
    tasks_executed: z.number().int(),
    execution_mode: z.string(),
    execution_time_ms: z.number().int(),
    tasks: z.array(z.object({ name: z.string(), status: z.string(), time_ms: z.number() })),
  }),
});

export const dynamicPolicy = z.object({
  name: safeText().min(1),
  type: safeText().min(1),
  priority: z.number().int(),
  enabled: z.boolean(),
});

export const webhookRegistration = z.object({
  url: z.string().url(),
  events: z.array(z.enum(['plan.completed', 'plan.failed', 'step.completed'])).min(1),
  secret: safeText().optional(),
  active: z.boolean().optional(),
});

export const webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const parallelQuery = z.object({
  query: safeText().min(1),
  policy: safeText().min(1),
  mcp: z
    .object({ connector: safeText(), operation: safeText(), parameters: jsonObject().optional() })
    .optional(),
  llm: z
    .object({
      provider: z.enum(['aws-bedrock', 'openai', 'anthropic']),
      model: safeText(),
      temperature: z.number().min(0).max(1).default(0.7),
      max_tokens: z.number().int().min(1).default(500),
    })
    .optional(),
  context: jsonObject().optional(),
});

export const parallelRequest = z.object({
  queries: z.array(parallelQuery).min(1),
  execution_mode: z.enum(['parallel', 'sequential']).default('parallel'),
  timeout_ms: z.number().int().min(1).default(30000),
});

export const parallelResult = z.object({
  query_index: z.number().int(),
  status: z.enum(['success', 'error']),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  metadata: z.object({
    latency_ms: z.number(),
    policy_decision: z.enum(['allow', 'deny']),
    agent_id: z.string(),
    request_id: z.string(),
    timestamp: timestamp.optional(),
  }),
});

export const parallelResponse = z.object({
  results: z.array(parallelResult),
  execution_summary: z.object({
    total_queries: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int(),
    total_time_ms: z.number(),
    parallel_speedup: z.string(),
    agent_utilization: z.record(z.string(), z.number().int()),
  }),
  request_id: z.string(),
});
