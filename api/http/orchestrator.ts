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

/** Most queries one parallel request carries (docs/orchestrator-parallel.md, Limits). */
export const PARALLEL_MAX_QUERIES = 100;
/** Longest query text, characters. */
export const PARALLEL_MAX_QUERY_CHARS = 32 * 1024;
/** Largest policy text of one query, UTF-8 bytes: compiling Rego runs on the orchestrator's event loop (~2 ms per KiB). */
export const PARALLEL_MAX_POLICY_BYTES = 32 * 1024;
/** Largest sum of the distinct policy texts of one request, UTF-8 bytes (the same policy repeated counts once). */
export const PARALLEL_MAX_DISTINCT_POLICY_BYTES = 128 * 1024;
/** Largest `timeout_ms`; the whole request ends this long after it started, too. */
export const PARALLEL_MAX_TIMEOUT_MS = 120_000;
export const PARALLEL_DEFAULT_TIMEOUT_MS = 30_000;

export const parallelQuery = z.object({
  query: safeText().min(1).max(PARALLEL_MAX_QUERY_CHARS),
  policy: safeText().min(1),
  mcp: z
    .object({ connector: safeText().min(1).max(256), operation: safeText().min(1).max(256), parameters: jsonObject().optional() })
    .optional(),
  llm: z
    .object({
      // NB: the reference lists aws-bedrock, openai and anthropic; any provider the agents configure is accepted
      // (ollama, echo), and an agent without it answers that query PROVIDER_NOT_CONFIGURED.
      provider: safeText().min(1).max(64).optional(),
      model: safeText().min(1).max(256).optional(),
      temperature: z.number().min(0).max(1).default(0.7),
      max_tokens: z.number().int().min(1).max(1_000_000).default(500),
    })
    .optional(),
  context: jsonObject().optional(),
});

export const parallelRequest = z.object({
  queries: z.array(parallelQuery).min(1).max(PARALLEL_MAX_QUERIES),
  execution_mode: z.enum(['parallel', 'sequential']).default('parallel'),
  timeout_ms: z.number().int().min(1).max(PARALLEL_MAX_TIMEOUT_MS).default(PARALLEL_DEFAULT_TIMEOUT_MS),
});

export const parallelResult = z.object({
  query_index: z.number().int(),
  status: z.enum(['success', 'error']),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  metadata: z.object({
    latency_ms: z.number(),
    agent_latency_ms: z.number().optional().describe("the agent's own time; latency_ms less the dispatch and the transport"),
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

/** `GET /orchestrator/metrics` (and `GET /metrics` on the orchestrator). */
export const orchestratorMetrics = z.object({
  metrics: z.object({
    requests: z.object({ total: z.number().int(), successful: z.number().int(), failed: z.number().int(), success_rate: z.number() }),
    latency: z.object({ p50_ms: z.number(), p95_ms: z.number(), p99_ms: z.number(), max_ms: z.number() }),
    parallel_execution: z.object({ total_parallel_queries: z.number().int(), average_speedup: z.number(), max_speedup_observed: z.number() }),
    agent_utilization: z.record(z.string(), z.object({ queries_processed: z.number().int(), cpu_percent: z.number(), memory_mb: z.number() })),
    timestamp: timestamp,
    period_seconds: z.number().int(),
  }),
  // NB: the reference lists both inside `metrics`; they are repeated at the top for clients that read them there.
  timestamp: timestamp,
  period_seconds: z.number().int(),
});
