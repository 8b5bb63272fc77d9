import { z } from 'zod';
import { conditionSchema } from './conditions.js';
import { secretKeyRef } from './common.js';
import { commonColumns, defineKind } from './kind.js';

export const licenseTier = z.enum(['PRO', 'ENT', 'PLUS']);
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
  .strict();
export type LicenseSpec = z.infer<typeof licenseSpec>;

export const licenseStatus = z
  .object({
    valid: z.boolean().optional(),
    tier: z.string().optional(),
    maxNodes: z.number().int().min(0).optional(),
    expiresAt: z.string().optional(),
    reason: z.string().optional(),
    conditions: z.array(conditionSchema).optional(),
    observedGeneration: z.number().int().optional(),
  })
  .strict();

export const License = defineKind({
  kind: 'License',
  plural: 'licenses',
  singular: 'license',
  shortNames: ['lic'],
  description: 'The organization license key: tier, node limit and expiry.',
  spec: licenseSpec,
  status: licenseStatus,
  printerColumns: [
    { name: 'Organization', type: 'string', jsonPath: '.spec.organizationId' },
    { name: 'Valid', type: 'boolean', jsonPath: '.status.valid' },
    { name: 'Tier', type: 'string', jsonPath: '.status.tier' },
    { name: 'Max-Nodes', type: 'integer', jsonPath: '.status.maxNodes' },
    { name: 'Expires', type: 'string', jsonPath: '.status.expiresAt' },
    commonColumns.age,
  ],
});
