import { z } from 'zod';
import { timestamp } from './common.js';
import { jsonObject, jsonValue, safeText } from './safe.js';
import { policySurface } from '../policy.js';

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

/** GET /healthz (liveness) and GET /readyz (readiness: 503 with the reasons while not ready). */
export const orchestratorProbe = z.object({
  status: z.enum(['ok', 'not-ready']),
  reason: z.string().optional().describe('why the orchestrator is not ready'),
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

/** Longest plan query, characters (every step's policy input repeats it). */
export const PLAN_MAX_QUERY_CHARS = 32 * 1024;

export const planRequest = z.object({
  query: safeText().min(1).max(PLAN_MAX_QUERY_CHARS),
  domain: safeText()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$/, 'must be a domain word such as travel or healthcare')
    .optional()
    .describe(
      'travel, healthcare, finance, generic, or the domain of any AgentConfig; absent: context.domain, else inferred from the query',
    ),
  execution_mode: z
    .enum(['sequential', 'parallel', 'auto'])
    .default('auto')
    .describe(
      'sequential: one step at a time; parallel: in waves of ready steps; auto: each step as soon as its dependencies end',
    ),
  context: jsonObject().optional(),
  user: jsonObject()
    .optional()
    .describe("descriptive only: tenancy comes from the credential (or the gateway's signed identity)"),
});

export const planStep = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string().describe('llm-call, connector-call or policy-check'),
  description: z.string(),
  depends_on: z.array(z.string()).optional(),
  agent: z.string(),
  connector: z
    .string()
    .optional()
    .describe("connector-call: the Connector, called through the gateway's governed path"),
  tool: z.string().optional().describe('connector-call: the tool (with `arguments`); or `query`'),
  query: z
    .object({ statement: z.string() })
    .optional()
    .describe('connector-call: an SQL statement (`arguments`: its parameters)'),
  arguments: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  policy: z.string().optional().describe("policy-check: the policy whose decision is the step's result"),
  input: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('policy-check: query, user, context, mcp, llm of the policy input'),
});

/** A step of the LLM planner's answer refused for missing fields (it never ran). */
export const plannerRefusal = z.object({
  code: z.string(),
  message: z.string(),
  details: z.object({ step: z.string(), type: z.string(), fields: z.array(z.string()) }),
});

/** The provider a plan step or a parallel query called: its agent's, or the default one on a fallback. */
const providerFields = {
  provider: z.string().optional().describe('the configured provider the agent called'),
  model: z.string().optional().describe('the model it called'),
  fallback: z
    .boolean()
    .optional()
    .describe(
      "true when the agent's AgentConfig names a provider that is not configured, and the default one answered",
    ),
  requested_provider: z.string().optional().describe("the AgentConfig's provider, on a fallback"),
};

export const planTask = z.object({
  name: z.string(),
  status: z.string().describe('completed, failed or cancelled'),
  time_ms: z.number(),
  id: z.string().optional(),
  agent: z.string().optional(),
  started_ms: z.number().optional().describe("ms from the plan's start"),
  ended_ms: z.number().optional().describe("ms from the plan's start"),
  agent_id: z.string().optional(),
  ...providerFields,
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export const planResponse = z.object({
  success: z.boolean(),
  plan_id: z.string(),
  workflow_execution_id: z.string().optional(),
  result: z.string(),
  steps: z.array(planStep),
  metadata: z.object({
    tasks_executed: z.number().int(),
    execution_mode: z.string(),
    execution_time_ms: z.number().int(),
    tasks: z.array(planTask),
    planner: z.enum(['llm', 'llm-repaired', 'deterministic']).optional(),
    domain: z.string().optional(),
    planner_note: z.string().optional(),
    planner_refusals: z.array(plannerRefusal).optional(),
    warnings: z.array(z.string()).optional(),
  }),
});

/** `GET /api/v1/plan/{id}`: the plan's answer as it was sent (once it ended) with its record. */
export const planRecord = planResponse.partial().extend({
  plan_id: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  query: z.string(),
  created_at: timestamp,
  completed_at: timestamp.optional(),
});

export const planCancelResponse = z.object({
  success: z.boolean(),
  plan_id: z.string(),
  cancelled: z.boolean().describe('true when this call stopped the plan'),
  status: z.string(),
  message: z.string().optional(),
});

/** Policy names of the API: the resource name's rules (RFC 1123 label), short enough to take the organization's prefix. */
export const DYNAMIC_POLICY_NAME_MAX = 100;
/** Largest Rego source of a dynamic policy, UTF-8 bytes (compiled on the orchestrator's event loop). */
export const DYNAMIC_POLICY_MAX_REGO_BYTES = 64 * 1024;

/**
 * The operators of a condition (the AxonFlow SDK's policy shape, docs/adr/0012-axonflow-shaped-policies.md). The
 * schema takes any word: the compile (runtime/orchestrator/policies/conditions.ts) names an unknown one with this list.
 */
export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'regex',
  'in',
  'not_in',
  'greater_than',
  'less_than',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
/** The action types of a policy of conditions. */
export const CONDITION_ACTIONS = ['block', 'warn', 'log'] as const;
export type ConditionActionType = (typeof CONDITION_ACTIONS)[number];
/** Largest display name of a policy of conditions (its id, the slug, is at most DYNAMIC_POLICY_NAME_MAX). */
export const CONDITION_POLICY_NAME_MAX = 255;
export const MAX_CONDITIONS = 32;
export const MAX_CONDITION_ACTIONS = 8;

const policyScope = z
  .object({
    surfaces: z.array(policySurface).max(policySurface.options.length).optional(),
    tenants: z.array(safeText().min(1).max(253)).max(100).optional(),
  })
  .optional();

/** The Rego form of a dynamic policy. */
export const dynamicPolicy = z.object({
  name: z
    .string()
    .min(1)
    .max(DYNAMIC_POLICY_NAME_MAX)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a lowercase name (a-z, 0-9, "-")'),
  type: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z][a-z0-9_-]*$/, 'must be a lowercase word such as pii or custom'),
  priority: z.number().int().min(0).max(10000).default(100),
  enabled: z.boolean().default(true),
  description: safeText().max(4096).optional(),
  rego: safeText().min(1).max(DYNAMIC_POLICY_MAX_REGO_BYTES),
  regoVersion: z.enum(['v0', 'v1']).optional(),
  action: z.enum(['block', 'warn', 'log']).default('block'),
  scope: policyScope,
});

/** One condition: the input field, the operator, and the value it compares with. */
export const policyCondition = z.object({
  field: safeText()
    .min(1)
    .max(256)
    .describe(
      'query, request_type, user.<key>, client.id, client.organization_id, client.tenant_id or context.<key> (more dots go deeper)',
    ),
  operator: safeText()
    .min(1)
    .max(64)
    .describe(`one of ${CONDITION_OPERATORS.join(', ')}`),
  value: jsonValue.describe(
    'a string, number, boolean or null; a list of them for in and not_in; a number for greater_than and less_than',
  ),
});
export type PolicyCondition = z.infer<typeof policyCondition>;

export const conditionAction = z.object({
  type: safeText()
    .min(1)
    .max(64)
    .describe(`one of ${CONDITION_ACTIONS.join(', ')}`),
  config: jsonObject()
    .optional()
    .describe('reason (block) or message (warn, log): the text of the message; absent: one naming the policy'),
});
export type ConditionAction = z.infer<typeof conditionAction>;

const conditions = z.array(policyCondition).min(1).max(MAX_CONDITIONS).describe('all must hold (AND)');
const actions = z.array(conditionAction).min(1).max(MAX_CONDITION_ACTIONS);

/** The AxonFlow SDK's form of a dynamic policy: conditions and actions, compiled to Rego by the orchestrator. */
export const conditionPolicy = dynamicPolicy.omit({ name: true, rego: true, regoVersion: true, action: true }).extend({
  name: safeText().min(1).max(CONDITION_POLICY_NAME_MAX).describe('free text, kept for display; the id is its slug'),
  conditions,
  actions,
});

/** `POST /api/v1/policies`: `rego`, or `conditions` and `actions` (both, or neither, is a 400). */
export const dynamicPolicyCreate = z.union([dynamicPolicy, conditionPolicy]);

/** `PUT /api/v1/policies/{id}`: the fields to change (the name and id stay). */
export const dynamicPolicyUpdate = dynamicPolicy
  .omit({ name: true })
  .partial()
  .extend({
    priority: z.number().int().min(0).max(10000).optional(),
    enabled: z.boolean().optional(),
    action: z.enum(['block', 'warn', 'log']).optional(),
    conditions: conditions.optional(),
    actions: actions.optional(),
  });

export const storedPolicy = z.object({
  id: z
    .string()
    .describe(
      'the path of GET, PUT and DELETE: the name of a Rego policy, the slug of the name of a policy of conditions',
    ),
  name: z.string(),
  type: z.string(),
  priority: z.number().int(),
  enabled: z.boolean(),
  action: z.string(),
  rego: z.string().describe('a policy of conditions: the Rego compiled from them'),
  conditions: z.array(policyCondition).optional(),
  actions: z.array(conditionAction).optional(),
  description: z.string().optional(),
  scope: z.object({ surfaces: z.array(z.string()).optional(), tenants: z.array(z.string()).optional() }).optional(),
  resource_name: z.string().describe('the Policy document the gateway evaluates; block reasons name it'),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
});

export const policyList = z.object({
  policies: z.array(storedPolicy),
  pagination: z.object({ page: z.number().int(), page_size: z.number().int(), total: z.number().int() }),
});

export const WEBHOOK_URL_MAX_CHARS = 2048;

export const webhookRegistration = z.object({
  url: z.string().min(1).max(WEBHOOK_URL_MAX_CHARS),
  events: z
    .array(z.enum(['plan.completed', 'plan.failed', 'step.completed']))
    .min(1)
    .max(3),
  secret: safeText().min(1).max(256).optional(),
  active: z.boolean().optional(),
});

export const webhookUpdate = webhookRegistration.partial();

export const webhook = z.object({
  id: z.string(),
  url: z.string(),
  tenant_id: z.string().optional().describe('the tenant whose plans it hears of; absent: organization-wide'),
  events: z.array(z.string()),
  active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  secret: z.string().optional().describe('the generated signing secret, returned once when the registration sent none'),
});

export const webhookList = z.object({ webhooks: z.array(webhook), total: z.number().int() });

export const webhookDeliveries = z.object({
  deliveries: z.array(
    z.object({
      id: z.string(),
      event: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      plan_id: z.string(),
      created_at: timestamp,
      next_attempt_at: timestamp,
      delivered_at: timestamp.optional(),
      last_error: z.string().optional(),
      response_status: z.number().int().optional(),
      attempt_log: z.array(
        z.object({
          attempt: z.number().int(),
          started_at: timestamp,
          duration_ms: z.number(),
          response_status: z.number().int().optional(),
          error: z.string().optional(),
        }),
      ),
    }),
  ),
  total: z.number().int(),
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
    .object({
      connector: safeText().min(1).max(256),
      operation: safeText().min(1).max(256),
      parameters: jsonObject().optional(),
    })
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
    agent_latency_ms: z
      .number()
      .optional()
      .describe("the agent's own time; latency_ms less the dispatch and the transport"),
    policy_decision: z.enum(['allow', 'deny']),
    agent_id: z.string(),
    request_id: z.string(),
    timestamp: timestamp.optional(),
    ...providerFields,
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
    requests: z.object({
      total: z.number().int(),
      successful: z.number().int(),
      failed: z.number().int(),
      success_rate: z.number(),
    }),
    latency: z.object({ p50_ms: z.number(), p95_ms: z.number(), p99_ms: z.number(), max_ms: z.number() }),
    parallel_execution: z.object({
      total_parallel_queries: z.number().int(),
      average_speedup: z.number(),
      max_speedup_observed: z.number(),
    }),
    agent_utilization: z.record(
      z.string(),
      z.object({ queries_processed: z.number().int(), cpu_percent: z.number(), memory_mb: z.number() }),
    ),
    timestamp: timestamp,
    period_seconds: z.number().int(),
  }),
  // NB: the reference lists both inside `metrics`; they are repeated at the top for clients that read them there.
  timestamp: timestamp,
  period_seconds: z.number().int(),
});
