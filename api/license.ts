import { z } from 'zod';
import { conditionsField, observedGenerationField } from './conditions.js';
import { secretKeyRef } from './common.js';
import { commonColumns, defineKind } from './kind.js';

export const licenseTier = z.enum(['PRO', 'ENT', 'PLUS']).describe('license tier: PRO, ENT or PLUS');
export type LicenseTier = z.infer<typeof licenseTier>;

export const licenseSpec = z
  .object({
    organizationId: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/)
      .describe('organization the key belongs to; scopes audit, clients and limits'),
    keySecretRef: secretKeyRef.optional().describe('Secret key holding the license key (cluster)'),
    keyFromEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional()
      .describe('environment variable holding the license key (standalone)'),
  })
  .strict()
  .describe(
    'desired state: whose license it is and where its key is kept (set exactly one of keySecretRef and keyFromEnv)',
  );
export type LicenseSpec = z.infer<typeof licenseSpec>;

export const licenseStatus = z
  .object({
    valid: z.boolean().optional().describe('whether the key is well-formed, correctly signed and not expired'),
    tier: z.string().optional().describe('tier encoded in the key: PRO, ENT or PLUS'),
    maxNodes: z.number().int().min(0).optional().describe('most Steward pods the tier allows in total'),
    expiresAt: z.string().optional().describe('when the key expires (RFC 3339)'),
    reason: z.string().optional().describe('why the key is not valid, when it is not'),
    conditions: conditionsField,
    observedGeneration: observedGenerationField,
  })
  .strict()
  .describe('observed state: what the key says, checked by the operator');

export const License = defineKind({
  kind: 'License',
  plural: 'licenses',
  singular: 'license',
  shortNames: ['stwlic'],
  description: 'The organization license key: tier, node limit and expiry.',
  spec: licenseSpec,
  status: licenseStatus,
  printerColumns: [
    { name: 'Organization', type: 'string', jsonPath: '.spec.organizationId' },
    { name: 'Valid', type: 'boolean', jsonPath: '.status.valid' },
    { name: 'Tier', type: 'string', jsonPath: '.status.tier' },
    { name: 'Max-Nodes', type: 'integer', jsonPath: '.status.maxNodes' },
    { name: 'Expires', type: 'string', jsonPath: '.status.expiresAt' },
    commonColumns.ready,
    commonColumns.reason,
    commonColumns.age,
    commonColumns.message,
  ],
});
