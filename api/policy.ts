import { z } from 'zod';
import { conditionSchema } from './conditions.js';
import { commonColumns, defineKind } from './kind.js';

/** Surfaces a policy can apply to. */
export const policySurface = z.enum(['pre-check', 'llm', 'mcp', 'plan', 'parallel']);
export type PolicySurface = z.infer<typeof policySurface>;

export const policySpec = z
  .object({
    type: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z][a-z0-9_-]*$/)
      .describe('category, e.g. pii, sql_injection, dangerous_sql, prompt_injection, secrets, content, custom'),
    description: z.string().max(4096).optional(),
    priority: z.number().int().min(0).max(10000).default(100).describe('higher priorities are evaluated first'),
    enabled: z.boolean().default(true),
    action: z.enum(['block', 'warn', 'log']).default('block').describe('what a deny result does'),
    rego: z.string().max(1_048_576).optional().describe('Rego module source'),
    regoVersion: z.enum(['v0', 'v1']).default('v1'),
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
          .object({ name: z.string().min(1), key: z.string().min(1) })
          .strict()
          .optional(),
        entrypoint: z.string().min(1).describe('e.g. steward/pii/deny'),
      })
      .strict()
      .optional()
      .describe('precompiled OPA wasm policy, as an alternative to rego'),
    scope: z
      .object({
        surfaces: z.array(policySurface).optional().describe('empty or absent: every surface'),
        tenants: z.array(z.string().min(1)).optional().describe('empty or absent: every tenant'),
      })
      .strict()
      .optional(),
  })
  .strict();
export type PolicySpec = z.infer<typeof policySpec>;

export const policyStatus = z
  .object({
    conditions: z.array(conditionSchema).optional(),
    observedGeneration: z.number().int().optional(),
  })
  .strict();

export const Policy = defineKind({
  kind: 'Policy',
  plural: 'policies',
  singular: 'policy',
  shortNames: ['pol', 'spol'],
  description: 'A Rego (or precompiled OPA wasm) policy evaluated by the runtimes.',
  spec: policySpec,
  status: policyStatus,
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Action', type: 'string', jsonPath: '.spec.action' },
    { name: 'Priority', type: 'integer', jsonPath: '.spec.priority' },
    { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled' },
    { name: 'Compiled', type: 'string', jsonPath: '.status.conditions[?(@.type=="Compiled")].status' },
    commonColumns.age,
  ],
});
