import type { LicenseTier } from '../../api/index.js';

/** Tiers as the gateway gates features and limits; COMMUNITY is unlicensed standalone use. */
export type Tier = LicenseTier | 'COMMUNITY';

/**
 * Who is calling, derived only from verified credentials — never from the body or unverified headers.
 * Every organization-scoped read and write uses `organizationId`.
 */
export interface Identity {
  /** `oauth`: an access token of the MCP server's authorization server (runtime/auth/oauth.ts). */
  credential: 'community' | 'license-key' | 'api-key' | 'basic' | 'legacy-client-secret' | 'oauth';
  organizationId: string;
  /** Narrowest tenant the credential allows; undefined: every tenant of the organization. */
  tenantId?: string;
  /**
   * The tenant the credential itself is bound to (an API key created with X-Tenant-ID), as opposed to a tenant an
   * unbound credential was narrowed to by the X-Tenant-ID header. A bound credential reaches only its tenant's
   * objects (runtime/auth/scope.ts).
   */
  boundTenantId?: string;
  tier: Tier;
  /** The API client, for API-key credentials. */
  clientId?: string;
  /** The API client's roles (runtime/auth/roles.ts); a license key holds every role without listing them. */
  roles?: readonly string[];
  licenseName?: string;
}

/** Features gated by tier (the reference: webhooks are enterprise). */
export const TIER_FEATURES: Record<Tier, ReadonlySet<string>> = {
  COMMUNITY: new Set(['pre-check', 'audit', 'llm', 'clients', 'mcp', 'plan', 'parallel']),
  PRO: new Set(['pre-check', 'audit', 'llm', 'clients', 'mcp', 'plan', 'parallel']),
  ENT: new Set(['pre-check', 'audit', 'llm', 'clients', 'mcp', 'plan', 'parallel', 'webhooks']),
  PLUS: new Set(['pre-check', 'audit', 'llm', 'clients', 'mcp', 'plan', 'parallel', 'webhooks']),
};

export const COMMUNITY_ORGANIZATION = 'community';
