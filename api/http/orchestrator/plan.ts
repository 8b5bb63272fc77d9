/** Plans (`/api/v1/plan`): the request, the steps the planner made, the answer and the stored record. */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { jsonObject, safeText } from '../safe.js';
import { providerFields } from './provider-fields.js';

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
  type: z.string().describe('llm-call, connector-call, a2a-call or policy-check'),
  description: z.string(),
  depends_on: z.array(z.string()).optional(),
  agent: z.string(),
  connector: z
    .string()
    .optional()
    .describe(
      "connector-call: the Connector, called through the gateway's governed path; a2a-call: the a2a Connector (a remote agent)",
    ),
  tool: z.string().optional().describe('connector-call: the tool (with `arguments`); or `query`'),
  query: z
    .object({ statement: z.string() })
    .optional()
    .describe('connector-call: an SQL statement (`arguments`: its parameters)'),
  arguments: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  message: z
    .string()
    .optional()
    .describe(
      "a2a-call: the message's text; absent: the step's description, the plan's request and the outputs it depends on",
    ),
  data: z.record(z.string(), z.unknown()).optional().describe('a2a-call: structured input, sent as a data part'),
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

export const planTask = z.object({
  name: z.string(),
  status: z
    .string()
    .describe('completed, failed, cancelled, or awaiting_approval (a parked connector call, docs/approvals.md)'),
  time_ms: z.number(),
  id: z.string().optional(),
  agent: z.string().optional(),
  started_ms: z.number().optional().describe("ms from the plan's start"),
  ended_ms: z.number().optional().describe("ms from the plan's start"),
  agent_id: z.string().optional(),
  ...providerFields,
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  warnings: z.array(z.string()).optional().describe("the step's governed call's warnings (policies in warn mode)"),
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
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        "every warning of the plan, once each (also the `Warning` header): the pre-flight's, the planner's, the steps'",
      ),
  }),
});

/** `GET /api/v1/plan/{id}`: the plan's answer as it was sent (once it ended) with its record. */
export const planRecord = planResponse.partial().extend({
  plan_id: z.string(),
  status: z
    .enum(['running', 'awaiting_approval', 'completed', 'failed', 'cancelled'])
    .describe('awaiting_approval: running, with a connector step waiting for a tool call approval (docs/approvals.md)'),
  awaiting_approval: z
    .array(z.object({ step: z.string(), approval_id: z.string(), since: timestamp }))
    .optional()
    .describe('the steps waiting for an approval now'),
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
