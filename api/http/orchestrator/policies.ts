/**
 * The organization's dynamic policies (`/api/v1/policies`): Rego, or the AxonFlow SDK's conditions and actions
 * (docs/adr/0012-axonflow-shaped-policies.md), and the limits both forms share.
 */
import { z } from 'zod';
import { timestamp } from '../common.js';
import { jsonObject, jsonValue, safeText } from '../safe.js';
import { POLICY_DECISIONS, policySurface, type PolicyDecision, type PolicyMode } from '../../policy.js';

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

const count = z.number().int().min(0);

/** Calls by what the policy led to, every decision present (0 when none). */
export const decisionCounts = z
  .object(Object.fromEntries(POLICY_DECISIONS.map((d) => [d, count])) as Record<PolicyDecision, typeof count>)
  .describe('calls by what the policy led to: block, warn, log, audit, exempted (a PolicyException), redact');

const TOP = 'at most 10, most calls first';

/** One window of a policy report (`GET /api/v1/policies/{id}/report`, docs/policy-reports.md). */
export const policyReportWindow = z.object({
  from: timestamp,
  to: timestamp,
  evaluations: count.describe('calls that evaluated the policy'),
  matched: count.describe('calls in which the policy denied, warned or failed'),
  violations: count.describe('calls it blocked, or would have blocked (its block under warn or audit)'),
  decisions: z.object({
    by_decision: decisionCounts,
    by_mode: z
      .object({ enforce: decisionCounts, warn: decisionCounts, audit: decisionCounts } satisfies Record<
        PolicyMode,
        unknown
      >)
      .describe('the same by the mode the policy ran in at the time (a mode change shows as two modes)'),
  }),
  clients: z
    .array(z.object({ client_id: z.string(), count }))
    .max(10)
    .describe(`the clients whose calls the policy matched most, ${TOP}`),
  tenants: z
    .array(z.object({ tenant_id: z.string(), count }))
    .max(10)
    .describe(`the tenants (of tenant-scoped credentials) whose calls the policy matched most, ${TOP}`),
  shadow: z
    .object({
      shadow_of: z.string().describe('the policy this one shadows (spec.shadowOf)'),
      compared: count.describe('calls that evaluated both'),
      disagreements: count.describe('of those, calls where one matched and the other did not'),
      matched_only_by_this: count,
      matched_only_by_shadowed: count,
    })
    .optional()
    .describe('a shadow policy (spec.shadowOf) only: where it and the policy it shadows disagree'),
});

/** `GET /api/v1/policies/{id}/report`: counts over the last hour and the last 24 hours. */
export const policyReport = z.object({
  policy: z.string().describe('the id, as in GET /api/v1/policies/{id}'),
  resource_name: z.string().describe('the Policy document the gateway evaluates'),
  mode: z.enum(['enforce', 'warn', 'audit']).describe("the policy's mode now (spec.enforcementAction)"),
  shadow_of: z.string().optional(),
  generated_at: timestamp,
  windows: z.object({ '1h': policyReportWindow, '24h': policyReportWindow }),
});
export type PolicyReport = z.infer<typeof policyReport>;
export type PolicyReportWindow = z.infer<typeof policyReportWindow>;
