/**
 * Dynamic policies (`/api/v1/policies`) are Policy documents of the declarative source, owned by one
 * organization. Pure: the mapping between the API's view and the document.
 *
 * - The document's name is `org-<organization key>.<name>`, so that two organizations may use the same name; the
 *   key is the organization id when it is a DNS label, else `h` and 16 hex digits of its SHA-256.
 * - The organization is recorded twice, for two readers: `spec.scope.organizations: [<id>]`, which the gateway's
 *   policy engine enforces (the policy applies to that organization's requests only), and the annotation
 *   `steward.dev/organization`, which the API lists by (with `steward.dev/policy-name`, the name the caller chose).
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { API_VERSION, GROUP, LABELS, type PolicyResource } from '../../../api/index.js';
import type { dynamicPolicy } from '../../../api/http/orchestrator.js';
import { API_MANAGED as MANAGED_BY_API, CREATED_ANNOTATION } from '../../policy/packages.js';

export const ORGANIZATION_ANNOTATION = `${GROUP}/organization`;
export const NAME_ANNOTATION = `${GROUP}/policy-name`;
export { MANAGED_BY_API, CREATED_ANNOTATION };

export type DynamicPolicyInput = z.infer<typeof dynamicPolicy>;

export function organizationKey(organizationId: string): string {
  if (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(organizationId) && organizationId.length <= 63) return organizationId;
  return `h${createHash('sha256').update(organizationId).digest('hex').slice(0, 16)}`;
}

export function resourceNameOf(organizationId: string, name: string): string {
  return `org-${organizationKey(organizationId)}.${name}`;
}

/**
 * The Policy document of a dynamic policy of `organizationId`, for the tenants `input.scope.tenants` names (the
 * routes decide them with runtime/auth/scope.ts; none: organization-wide).
 */
export function policyDocument(organizationId: string, input: DynamicPolicyInput): PolicyResource {
  const tenants = input.scope?.tenants;
  return {
    apiVersion: API_VERSION,
    kind: 'Policy',
    metadata: {
      name: resourceNameOf(organizationId, input.name),
      labels: { [LABELS.managedBy]: MANAGED_BY_API, [ORGANIZATION_ANNOTATION]: organizationKey(organizationId) },
      annotations: { [ORGANIZATION_ANNOTATION]: organizationId, [NAME_ANNOTATION]: input.name },
    },
    spec: {
      type: input.type,
      ...(input.description !== undefined ? { description: input.description } : {}),
      priority: input.priority,
      enabled: input.enabled,
      action: input.action,
      rego: input.rego,
      regoVersion: input.regoVersion ?? 'v1',
      strictBuiltinErrors: true,
      scope: {
        ...(input.scope?.surfaces?.length ? { surfaces: input.scope.surfaces } : {}),
        ...(tenants?.length ? { tenants } : {}),
        organizations: [organizationId],
      },
    },
  };
}

/** The organization and tenants of a dynamic policy (what runtime/auth/scope.ts judges), or undefined for any other Policy. */
export function policyScope(doc: PolicyResource): { organizationId: string; tenants?: readonly string[] } | undefined {
  const organizationId = doc.metadata.annotations?.[ORGANIZATION_ANNOTATION];
  if (organizationId === undefined || doc.metadata.annotations?.[NAME_ANNOTATION] === undefined) return undefined;
  return { organizationId, tenants: doc.spec.scope?.tenants };
}

/** The API's view of a dynamic policy. */
export function policyView(doc: PolicyResource) {
  const s = doc.spec;
  return {
    name: doc.metadata.annotations?.[NAME_ANNOTATION] ?? doc.metadata.name,
    type: s.type,
    priority: s.priority,
    enabled: s.enabled,
    action: s.action,
    rego: s.rego ?? '',
    ...(s.description !== undefined ? { description: s.description } : {}),
    scope: { ...(s.scope?.surfaces ? { surfaces: s.scope.surfaces } : {}), ...(s.scope?.tenants ? { tenants: s.scope.tenants } : {}) },
    resource_name: doc.metadata.name,
    ...(doc.metadata.annotations?.[CREATED_ANNOTATION] ? { created_at: doc.metadata.annotations[CREATED_ANNOTATION] } : {}),
    ...(doc.metadata.annotations?.[UPDATED_ANNOTATION] ? { updated_at: doc.metadata.annotations[UPDATED_ANNOTATION] } : {}),
  };
}

export const UPDATED_ANNOTATION = `${GROUP}/updated-at`;
