/**
 * One place that decides whether a caller reaches an organization's object (a policy, a webhook, an API client),
 * so that every read and write route asks the same question (DESIGN.md, "The governed call"). Two kinds of caller
 * must not be confused:
 * - a credential BOUND to a tenant (an API key created with X-Tenant-ID, `Identity.boundTenantId`) reads and writes
 *   only objects scoped exactly to that tenant, and never an organization-wide object;
 * - an UNBOUND credential (a license key, an API key created without a tenant, community mode) keeps its
 *   organization's rights; an X-Tenant-ID header narrows what it sees to that tenant's objects and the
 *   organization-wide ones, and scopes what it creates.
 * A caller that may not reach an object is answered as if the object did not exist (no existence oracle).
 */
import { ApiError, echo } from '../http/errors.js';
import type { Identity } from './identity.js';

/** The organization and tenants an object belongs to; no tenants (or an empty list): organization-wide. */
export interface ObjectScope {
  organizationId: string;
  tenants?: readonly string[] | null;
}

/** Whether `identity` may read, change or delete the object. */
export function mayAccess(identity: Identity, object: ObjectScope): boolean {
  if (object.organizationId !== identity.organizationId) return false;
  const tenants = object.tenants ?? [];
  if (identity.boundTenantId !== undefined) return tenants.length === 1 && tenants[0] === identity.boundTenantId;
  if (identity.tenantId === undefined) return true;
  return tenants.length === 0 || tenants.includes(identity.tenantId);
}

/**
 * The tenants a new (or re-scoped) object of `identity` gets when the body asks for `requested`: a bound
 * credential's objects are its tenant's only (asking for any other scope is a 403), a narrowed one's are the
 * narrowed tenant's, an organization-wide credential's are what it asks for. `surface`: the one that writes the object
 * (the refusal is its FORBIDDEN).
 */
export function tenantsForWrite(
  identity: Identity,
  requested: readonly string[] | undefined,
  surface: 'gateway' | 'plan',
): string[] | undefined {
  const bound = identity.boundTenantId;
  if (bound !== undefined) {
    const other = requested?.find((t) => t !== bound);
    if (other !== undefined || requested?.length === 0) {
      throw new ApiError(
        surface,
        'FORBIDDEN',
        `a key bound to tenant ${echo(bound)} cannot scope an object to ${other === undefined ? 'the whole organization' : `tenant ${echo(other)}`}`,
      );
    }
    return [bound];
  }
  if (identity.tenantId !== undefined) return [identity.tenantId];
  return requested?.length ? [...requested] : undefined;
}

/** `mayAccess` as parameters of `tenantSql`, for objects with one nullable `tenant_id` column. */
export function tenantFilter(identity: Identity): { bound: string | null; narrowed: string | null } {
  if (identity.boundTenantId !== undefined) return { bound: identity.boundTenantId, narrowed: null };
  return { bound: null, narrowed: identity.tenantId ?? null };
}

/**
 * `mayAccess` in SQL over a nullable tenant column; `bound` and `narrowed` name the parameters that carry
 * `tenantFilter`'s values (the organization is the caller's own condition).
 */
export function tenantSql(column: string, bound: string, narrowed: string): string {
  return `(${bound}::text IS NULL OR ${column} = ${bound}) AND (${narrowed}::text IS NULL OR ${column} IS NULL OR ${column} = ${narrowed})`;
}
