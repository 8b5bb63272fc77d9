import { z } from 'zod';
import { resourceName } from './common.js';
import { conditionsField, observedGenerationField } from './conditions.js';
import { commonColumns, defineKind } from './kind.js';
import { policySurface } from './policy.js';

/** The longest an exception without `spec.permanent` may run: 90 days after its creation. */
export const MAX_EXCEPTION_DAYS = 90;
export const MAX_EXCEPTION_MS = MAX_EXCEPTION_DAYS * 86_400_000;

/** The most values one `spec.match` list holds. */
const MAX_MATCH_VALUES = 256;

const idList = (what: string) =>
  z
    .array(z.string().min(1).max(253))
    .min(1)
    .max(MAX_MATCH_VALUES)
    .optional()
    .describe(`${what}; the call's must be one of them (absent: any)`);

const nameList = (what: string) =>
  z
    .array(resourceName)
    .min(1)
    .max(MAX_MATCH_VALUES)
    .optional()
    .describe(`${what}; the call's must be one of them (absent: any)`);

/**
 * Which calls are exempt. NB: every list given must contain the call's value (AND across fields, OR within one),
 * and a call without a value for a given field (no tenant, no connector) does not match it. An empty match would
 * exempt every call silently, so at least one field is required: name every surface to mean "all calls".
 */
export const policyExceptionMatch = z
  .object({
    organizations: idList('organizations (License organizationId)'),
    tenants: idList('tenants (client organizations)'),
    clients: idList('API client ids'),
    agents: nameList('AgentConfig names (the agent a plan step or pool call runs as)'),
    surfaces: z
      .array(policySurface)
      .min(1)
      .max(policySurface.options.length)
      .optional()
      .describe("policy surfaces (pre-check, llm, mcp, plan, parallel, llm_output); the call's must be one of them"),
    connectors: nameList('Connector names (MCP and connector calls)'),
  })
  .strict()
  .refine((m) => Object.values(m).some((v) => v !== undefined), {
    message: 'spec.match needs at least one field (organizations, tenants, clients, agents, surfaces, connectors)',
  })
  // NB: the refinement above does not reach the CRD; minProperties says the same to the API server.
  .meta({ minProperties: 1 })
  .describe(
    "the calls exempted: each field given must contain the call's value (AND across fields, OR within one); at least one field",
  );
export type PolicyExceptionMatch = z.infer<typeof policyExceptionMatch>;

export const policyExceptionSpec = z
  .object({
    policies: z
      .array(resourceName)
      .min(1)
      .max(64)
      .describe(
        "names of the Policies exempted, of the exception's namespace; the built-in pack's (builtin-pii, ...) by their names too",
      ),
    match: policyExceptionMatch,
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/\S/, 'must not be blank')
      .describe('why the exception exists (ticket, owner, risk accepted), shown with every exempted decision'),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe(
        `when the exception stops applying (RFC 3339); at most ${MAX_EXCEPTION_DAYS} days after the object's creation. Required unless permanent`,
      ),
    permanent: z
      .boolean()
      .default(false)
      .describe(
        `true lifts the ${MAX_EXCEPTION_DAYS}-day limit: expiresAt may then be omitted (never expires) or lie further ahead`,
      ),
  })
  .strict()
  .meta({
    'x-kubernetes-validations': [
      {
        rule: 'has(self.expiresAt) || (has(self.permanent) && self.permanent)',
        message: 'spec.expiresAt is required unless spec.permanent is true',
        fieldPath: '.expiresAt',
        reason: 'FieldValueRequired',
      },
    ],
  })
  .describe('desired state: which policies stop applying to which calls, why, and until when');
export type PolicyExceptionSpec = z.infer<typeof policyExceptionSpec>;

export const policyExceptionStatus = z
  .object({
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
  })
  .strict()
  .describe('observed state: whether the exception is valid and in force (Ready) and whether it has expired (Expired)');

export const PolicyException = defineKind({
  kind: 'PolicyException',
  // NB: Kyverno's PolicyException owns the plural and `polex`; `kubectl get policyexceptions.steward.dev` is exact.
  plural: 'policyexceptions',
  singular: 'policyexception',
  shortNames: ['stwpolex'],
  description:
    'Exempts matching calls from named Policies, with a reason and an expiry (at most 90 days unless permanent).',
  spec: policyExceptionSpec,
  status: policyExceptionStatus,
  printerColumns: [
    { name: 'Policies', type: 'string', jsonPath: '.spec.policies', description: 'the Policies exempted' },
    // NB: a string, not a date: kubectl prints a date column as an age, and `<invalid>` for a time ahead.
    { name: 'Expires', type: 'string', jsonPath: '.spec.expiresAt', description: 'when the exception stops applying' },
    commonColumns.ready,
    {
      name: 'Expired',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Expired")].status',
      description: 'status of the Expired condition',
    },
    commonColumns.reason,
    commonColumns.age,
    commonColumns.message,
  ],
});

/** A finding of the cross-field checks, naming the field (api/validate.ts's FieldIssue). */
export interface ExpiryIssue {
  field: string;
  message: string;
}

/**
 * What the schema cannot say about an exception's expiry, judged against the object's creation and a clock (pure):
 * expiresAt is required unless permanent; without permanent it lies at most 90 days after the creation (a document
 * not created yet, such as a file or a write: after `now`); and a document not created yet must not have expired.
 * NB: measured from the creation, so editing expiresAt cannot stretch an exception past 90 days.
 */
export function exceptionExpiryIssue(
  spec: Pick<PolicyExceptionSpec, 'expiresAt' | 'permanent'>,
  times: { creationTimestamp?: string; now: Date },
): ExpiryIssue | undefined {
  const field = 'spec.expiresAt';
  if (spec.expiresAt === undefined) {
    return spec.permanent ? undefined : { field, message: 'spec.expiresAt is required unless spec.permanent is true' };
  }
  const expires = Date.parse(spec.expiresAt);
  const created = times.creationTimestamp === undefined ? Number.NaN : Date.parse(times.creationTimestamp);
  const isNew = Number.isNaN(created);
  if (isNew && expires <= times.now.getTime())
    return {
      field,
      message: `spec.expiresAt (${spec.expiresAt}) has passed: a new exception must expire in the future`,
    };
  const from = isNew ? times.now.getTime() : created;
  if (!spec.permanent && expires - from > MAX_EXCEPTION_MS) {
    const since = isNew
      ? `now (${new Date(from).toISOString()})`
      : `the object's creation (${times.creationTimestamp})`;
    return {
      field,
      message: `spec.expiresAt (${spec.expiresAt}) is more than ${MAX_EXCEPTION_DAYS} days after ${since}; set spec.permanent: true for a longer exception`,
    };
  }
  return undefined;
}
