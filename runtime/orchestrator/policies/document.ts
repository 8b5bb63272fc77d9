/**
 * Dynamic policies (`/api/v1/policies`) are Policy documents of the declarative source, owned by one
 * organization. Pure: the mapping between the API's view and the document.
 *
 * - The document's name is `org-<organization key>.<id>`, so that two organizations may use the same id; the
 *   key is the organization id when it is a DNS label, else `h` and 16 hex digits of its SHA-256. A Rego policy's id
 *   is its name; a policy of conditions (the AxonFlow SDK's shape) has a free-text name and the id is its slug.
 * - The organization is recorded twice, for two readers: `spec.scope.organizations: [<id>]`, which the gateway's
 *   policy engine enforces (the policy applies to that organization's requests only), and the annotation
 *   `steward.dev/organization`, which the API lists by (with `steward.dev/policy-name`, the name the caller chose).
 * - A policy of conditions keeps them in the annotation `steward.dev/policy-conditions` beside the Rego compiled
 *   from them (conditions.ts), with that Rego's SHA-256: a hand edit of `spec.rego` detaches the conditions, and the
 *   API then shows the Rego alone (docs/adr/0012-axonflow-shaped-policies.md).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { API_VERSION, GROUP, LABELS, type PolicyResource } from '../../../api/index.js';
import {
  conditionAction,
  DYNAMIC_POLICY_NAME_MAX,
  policyCondition,
  type ConditionAction,
  type dynamicPolicy,
  type PolicyCondition,
} from '../../../api/http/orchestrator.js';
import { API_MANAGED as MANAGED_BY_API, CREATED_ANNOTATION } from '../../policy/packages.js';

export const ORGANIZATION_ANNOTATION = `${GROUP}/organization`;
export const NAME_ANNOTATION = `${GROUP}/policy-name`;
export const CONDITIONS_ANNOTATION = `${GROUP}/policy-conditions`;
export const UPDATED_ANNOTATION = `${GROUP}/updated-at`;
export { MANAGED_BY_API, CREATED_ANNOTATION };

/** A policy as the routes write it: its id, display name, the Policy's spec fields, and its conditions if it has them. */
export type DynamicPolicyInput = Omit<z.infer<typeof dynamicPolicy>, 'name'> & {
  id: string;
  name: string;
  conditions?: { conditions: readonly PolicyCondition[]; actions: readonly ConditionAction[] };
};

/**
 * The id of a policy of conditions named `name`: lower-case, accents dropped, every run of other characters than
 * a-z and 0-9 one `-`, none at either end, at most DYNAMIC_POLICY_NAME_MAX characters ('' when nothing is left).
 */
export function policyIdOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, DYNAMIC_POLICY_NAME_MAX).replace(/-+$/, '');
}

const stored = z.object({
  conditions: z.array(policyCondition),
  actions: z.array(conditionAction),
  regoSha256: z.string(),
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The conditions and actions a document was compiled from, while its Rego is still what they compiled to. */
export function conditionsOf(
  doc: PolicyResource,
): { conditions: PolicyCondition[]; actions: ConditionAction[] } | undefined {
  const text = doc.metadata.annotations?.[CONDITIONS_ANNOTATION];
  if (text === undefined || doc.spec.rego === undefined) return undefined;
  let parsed;
  try {
    parsed = stored.safeParse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!parsed.success || parsed.data.regoSha256 !== sha256(doc.spec.rego)) return undefined;
  return { conditions: parsed.data.conditions, actions: parsed.data.actions };
}

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
  const conditions = input.conditions && JSON.stringify({ ...input.conditions, regoSha256: sha256(input.rego) });
  return {
    apiVersion: API_VERSION,
    kind: 'Policy',
    metadata: {
      name: resourceNameOf(organizationId, input.id),
      labels: { [LABELS.managedBy]: MANAGED_BY_API, [ORGANIZATION_ANNOTATION]: organizationKey(organizationId) },
      annotations: {
        [ORGANIZATION_ANNOTATION]: organizationId,
        [NAME_ANNOTATION]: input.name,
        ...(conditions !== undefined ? { [CONDITIONS_ANNOTATION]: conditions } : {}),
      },
    },
    spec: {
      type: input.type,
      ...(input.description !== undefined ? { description: input.description } : {}),
      priority: input.priority,
      enabled: input.enabled,
      action: input.action,
      enforcementAction: 'enforce',
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

/** A dynamic policy's id: its document's name without the organization's prefix. */
export function policyIdOfDocument(doc: PolicyResource): string {
  const name = doc.metadata.name;
  return name.startsWith('org-') && name.includes('.') ? name.slice(name.indexOf('.') + 1) : name;
}

/** The API's view of a dynamic policy. */
export function policyView(doc: PolicyResource) {
  const s = doc.spec;
  const conditions = conditionsOf(doc);
  return {
    id: policyIdOfDocument(doc),
    name: doc.metadata.annotations?.[NAME_ANNOTATION] ?? doc.metadata.name,
    type: s.type,
    priority: s.priority,
    enabled: s.enabled,
    action: s.action,
    rego: s.rego ?? '',
    ...(conditions ?? {}),
    ...(s.description !== undefined ? { description: s.description } : {}),
    scope: {
      ...(s.scope?.surfaces ? { surfaces: s.scope.surfaces } : {}),
      ...(s.scope?.tenants ? { tenants: s.scope.tenants } : {}),
    },
    resource_name: doc.metadata.name,
    ...(doc.metadata.annotations?.[CREATED_ANNOTATION]
      ? { created_at: doc.metadata.annotations[CREATED_ANNOTATION] }
      : {}),
    ...(doc.metadata.annotations?.[UPDATED_ANNOTATION]
      ? { updated_at: doc.metadata.annotations[UPDATED_ANNOTATION] }
      : {}),
  };
}
