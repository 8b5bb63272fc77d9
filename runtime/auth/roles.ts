/**
 * Roles: what a credential may do besides calling (docs/approvals.md). An API key carries the roles given when it
 * was created (by a license-key holder, or anyone in community mode); a license key holds every role; a call
 * without a credential (community mode) holds none.
 */
import type { Identity } from './identity.js';

export const ROLES = ['approver'] as const;
export type Role = (typeof ROLES)[number];

export function hasRole(identity: Identity, role: Role): boolean {
  if (identity.credential === 'license-key') return true;
  return identity.roles?.includes(role) ?? false;
}

/**
 * Who made a request, as approvals compare callers and approvers: an API client, the organization's license key
 * (every License key of an organization is one principal, so that an identity forwarded by the orchestrator, which
 * carries no License name, compares equal), or the credential-less community caller.
 */
export function principalOf(identity: Identity): string {
  if (identity.clientId !== undefined) return `client:${identity.clientId}`;
  if (identity.credential === 'license-key') return `license:${identity.organizationId}`;
  return identity.credential;
}
