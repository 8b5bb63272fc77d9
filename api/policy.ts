import { z } from 'zod';
import { conditionsField, observedGenerationField } from './conditions.js';
import { commonColumns, defineKind } from './kind.js';

/** Surfaces a policy can apply to. */
export const policySurface = z
  .enum(['pre-check', 'llm', 'mcp', 'plan', 'parallel', 'llm_output'])
  .describe(
    "a surface policies apply to: pre-check, llm, mcp, plan, parallel, or llm_output (the provider's answer text and tool-call arguments; opt-in: only policies that name it)",
  );
export type PolicySurface = z.infer<typeof policySurface>;

/**
 * The output surface. NB: opt-in, unlike the others: a policy with no `scope.surfaces` applies to every input
 * surface but not to this one (a pack written for prompts would otherwise block answers that quote them).
 */
export const LLM_OUTPUT_SURFACE = 'llm_output' satisfies PolicySurface;

/** PII detector kinds of runtime/redact/pii.ts (a test keeps the two lists equal). */
export const PII_REDACTION_KINDS = [
  'us_ssn',
  'payment_card',
  'iban',
  'passport',
  'aadhaar',
  'india_pan',
  'uk_nino',
  'canada_sin',
  'spain_dni',
  'email',
  'phone',
] as const;
/** Secret detector kinds of runtime/redact/secrets.ts (a test keeps the two lists equal). */
export const SECRET_REDACTION_KINDS = [
  'private_key',
  'url_credentials',
  'slack_webhook',
  'aws_secret_key',
  'aws_access_key',
  'google_api_key',
  'google_oauth_token',
  'github_token',
  'gitlab_token',
  'slack_token',
  'stripe_key',
  'npm_token',
  'sendgrid_key',
  'anthropic_api_key',
  'openai_api_key',
  'azure_client_secret',
  'azure_storage_key',
  'azure_sas_token',
  'azure_api_key',
  'jwt',
  'bearer_token',
  'password',
] as const;

/** A detector kind, or `pii` / `secrets`: every PII / secret kind. */
export const redactionKind = z
  .enum(['pii', 'secrets', ...PII_REDACTION_KINDS, ...SECRET_REDACTION_KINDS])
  .describe(
    'a detector kind (us_ssn, payment_card, email, github_token, ...), or pii / secrets for every PII / secret kind',
  );
export type RedactionKind = z.infer<typeof redactionKind>;

/** The detector kinds a `spec.redact.kinds` list stands for, shorthands expanded, in list order without repeats. */
export function expandRedactionKinds(kinds: readonly RedactionKind[]): string[] {
  const out = new Set<string>();
  for (const k of kinds) {
    if (k === 'pii') PII_REDACTION_KINDS.forEach((x) => out.add(x));
    else if (k === 'secrets') SECRET_REDACTION_KINDS.forEach((x) => out.add(x));
    else out.add(k);
  }
  return [...out];
}

/** `spec.enforcementAction`: whether a Policy's action is carried out (`dryrun` is an alias of `audit`). */
export const ENFORCEMENT_ACTIONS = ['enforce', 'warn', 'audit', 'dryrun'] as const;
export type EnforcementAction = (typeof ENFORCEMENT_ACTIONS)[number];
/** The mode a Policy runs in: its enforcementAction with the alias resolved. */
export type PolicyMode = 'enforce' | 'warn' | 'audit';
export function policyMode(action: EnforcementAction | undefined): PolicyMode {
  return action === undefined || action === 'enforce' ? 'enforce' : action === 'dryrun' ? 'audit' : action;
}

/**
 * A Policy's own evaluation limits, each over the runtime's one default. NB: bounded, because an inline evaluation
 * runs on the event loop: 10 s is the most any one policy may hold a request (and the loop).
 */
export const policyLimits = z
  .object({
    deadlineMs: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(
        "wall-clock budget of this policy's evaluation, in milliseconds (1 to 10000); absent: the runtime's default",
      ),
    maxSteps: z
      .number()
      .int()
      .min(1)
      .max(100_000_000)
      .optional()
      .describe(
        "evaluation steps this policy may take (1 to 100000000; Rego only: a wasm bundle has no step count); absent: the runtime's default",
      ),
  })
  .strict()
  .describe(
    "this policy's own evaluation limits, over the runtime's defaults; a policy that exceeds them blocks the request (fail closed)",
  );
export type PolicyLimits = z.infer<typeof policyLimits>;

export const policySpec = z
  .object({
    type: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z][a-z0-9_-]*$/)
      .describe('category, e.g. pii, sql_injection, dangerous_sql, prompt_injection, secrets, content, custom'),
    description: z.string().max(4096).optional().describe('what the policy guards against, in words'),
    priority: z.number().int().min(0).max(10000).default(100).describe('higher priorities are evaluated first'),
    enabled: z.boolean().default(true).describe('false keeps the policy in place without evaluating it'),
    action: z
      .enum(['block', 'warn', 'log', 'redact'])
      .default('block')
      .describe(
        'what a deny result does: block the request, add a warning to the answer, or only log it; redact (llm_output only, no Rego) masks the spec.redact kinds in the answer',
      ),
    enforcementAction: z
      .enum(ENFORCEMENT_ACTIONS)
      .default('enforce')
      .describe(
        'whether spec.action is carried out: enforce (it is), warn (the call proceeds and the caller sees a warning of what it would have done), audit (the call proceeds; what it would have done is only recorded); dryrun is an alias of audit',
      ),
    shadowOf: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'must be a Policy name')
      .optional()
      .describe(
        'with enforcementAction audit: the Policy (same namespace) this one is a candidate replacement for; both decisions are recorded and the report shows where they disagree',
      ),
    redact: z
      .object({
        kinds: z
          .array(redactionKind)
          .min(1)
          .max(64)
          .describe('detector kinds to mask as [REDACTED:<kind>]; pii and secrets stand for every kind of the family'),
      })
      .strict()
      .optional()
      .describe("with action redact (and only then): what to mask in the provider's answer and tool-call arguments"),
    rego: z
      .string()
      .max(1_048_576)
      .optional()
      .describe('Rego module source with deny (set of messages), warn (set of messages) and/or allow (boolean) rules'),
    regoVersion: z
      .enum(['v0', 'v1'])
      .default('v1')
      .describe('Rego syntax of spec.rego: v1 (OPA 1.x, the default) or v0 (OPA 0.x, without if/contains keywords)'),
    strictBuiltinErrors: z
      .boolean()
      .default(true)
      .describe(
        'a builtin error (e.g. to_number("x"), a division by zero) fails the evaluation, which blocks the request; false keeps OPA\'s non-strict semantics, where the expression is undefined',
      ),
    wasm: z
      .object({
        bundleBase64: z.string().optional().describe('OPA bundle (.tar.gz) or .wasm, base64'),
        configMapRef: z
          .object({
            name: z.string().min(1).describe('ConfigMap name, same namespace'),
            key: z.string().min(1).describe('key inside the ConfigMap (binaryData or data)'),
          })
          .strict()
          .optional()
          .describe('ConfigMap key holding the bundle, as an alternative to bundleBase64'),
        entrypoint: z.string().min(1).describe('rule the bundle was built for, e.g. steward/pii/deny'),
      })
      .strict()
      .optional()
      .describe('precompiled OPA wasm policy, as an alternative to rego'),
    limits: policyLimits.optional(),
    scope: z
      .object({
        surfaces: z
          .array(policySurface)
          .optional()
          .describe(
            'surfaces the policy applies to; empty or absent: every surface but llm_output (redact policies: llm_output only)',
          ),
        tenants: z
          .array(z.string().min(1))
          .optional()
          .describe('tenants (client organizations) the policy applies to; empty or absent: every tenant'),
        organizations: z
          .array(z.string().min(1))
          .optional()
          .describe(
            "organizations (License organizationId) the policy applies to; empty or absent: every organization. The orchestrator's dynamic-policy API sets it to the creator's organization",
          ),
      })
      .strict()
      .optional()
      .describe('where the policy applies; absent: every surface and tenant'),
  })
  .strict()
  .describe('desired state: the policy source and how its result is used');
export type PolicySpec = z.infer<typeof policySpec>;

/** One gateway pod's view of a Policy: which generation it evaluates, or why it could not load it. */
export const policyPodStatus = z
  .object({
    pod: z.string().min(1).describe('gateway pod name'),
    observedGeneration: z.number().int().min(0).describe('metadata.generation the pod has in force'),
    loaded: z.boolean().describe('whether that generation compiled and is evaluated by the pod'),
    error: z.string().max(4096).optional().describe('why the pod could not load it, with file:line:column for Rego'),
  })
  .strict();
export type PolicyPodStatus = z.infer<typeof policyPodStatus>;

/**
 * What a policy that matched led to (runtime/policy/types.ts `PolicyResult.decision`): block, warn or log as its
 * action says when enforced, warn for a block under enforcementAction warn, audit for what an audited policy would
 * have done, exempted by a PolicyException, redact for an output redaction.
 */
export const POLICY_DECISIONS = ['block', 'warn', 'log', 'audit', 'exempted', 'redact'] as const;
export type PolicyDecision = (typeof POLICY_DECISIONS)[number];

const reportCount = z.number().int().min(0);
const evaluations = reportCount.describe('calls that evaluated the policy');
const violations = reportCount.describe('calls it blocked, or would have blocked (warn, audit)');
const decisionCount = (d: string) => reportCount.describe(`calls in which the policy's decision was ${d}`);

/** `status.report`: the policy's counts over the last hour and day (docs/policy-reports.md). */
export const policyReportStatus = z
  .object({
    updatedAt: z.string().describe('when the counts were taken (RFC 3339)'),
    last1h: z.object({ evaluations, violations }).strict().describe('the last hour'),
    last24h: z
      .object({
        evaluations,
        violations,
        byDecision: z
          .object({
            block: decisionCount('block'),
            warn: decisionCount('warn'),
            log: decisionCount('log'),
            audit: decisionCount('audit'),
            exempted: decisionCount('exempted (a PolicyException)'),
            redact: decisionCount('redact'),
          })
          .strict()
          .describe('calls by what the policy led to'),
      })
      .strict()
      .describe('the last 24 hours'),
  })
  .strict()
  .describe(
    "counts of every gateway replica's calls (from the database), written by one gateway replica at most once a minute",
  );
export type PolicyReportStatus = z.infer<typeof policyReportStatus>;

export const policyStatus = z
  .object({
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
    byPod: z
      .array(policyPodStatus)
      .max(1000)
      .optional()
      .describe(
        'per gateway pod: the generation it has loaded; Ready holds when every gateway pod has the current one',
      ),
    report: policyReportStatus.optional(),
  })
  .strict()
  .describe('observed state: whether the source compiled (Compiled condition, with the error and its position)');

export const Policy = defineKind({
  kind: 'Policy',
  plural: 'policies',
  singular: 'policy',
  // NB: not `pol`: Kyverno's Policy owns it (and the plural `policies`; `kubectl get policies.steward.dev` is exact).
  shortNames: ['stwpol'],
  description: 'A Rego (or precompiled OPA wasm) policy evaluated by the runtimes, or a redact policy over LLM output.',
  spec: policySpec,
  status: policyStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Action', type: 'string', jsonPath: '.spec.action' },
    { name: 'Mode', type: 'string', jsonPath: '.spec.enforcementAction' },
    {
      name: 'Violations(24h)',
      type: 'integer',
      jsonPath: '.status.report.last24h.violations',
      description: 'calls blocked, or that would have been (warn, audit), in the last 24 hours',
    },
    { name: 'Priority', type: 'integer', jsonPath: '.spec.priority' },
    { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
    { name: 'Compiled', type: 'string', jsonPath: '.status.conditions[?(@.type=="Compiled")].status' },
    commonColumns.ready,
    commonColumns.reason,
    commonColumns.age,
    commonColumns.message,
  ],
});
