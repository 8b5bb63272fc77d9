import { LICENSE_KEY_PREFIX, verifyLicenseKey, type GatewayErrorCode } from '../../api/index.js';
import { ApiError, echo } from '../http/errors.js';
import type { ClientRecord, ClientRepository } from '../store/index.js';
import { COMMUNITY_ORGANIZATION, type Identity, type Tier } from './identity.js';
import type { LicenseRegistry, LicenseState } from './licenses.js';

export interface AuthSettings {
  /** 'auto': community mode while no License is configured (standalone default); false in a cluster. */
  communityMode: boolean | 'auto';
  signingSecret: string | undefined;
  /** After this instant X-Client-ID/X-Client-Secret are refused. */
  legacySunset: Date;
  /** When legacy credentials were deprecated (the reference: October 2025). */
  legacyDeprecatedAt: Date;
  /** The operator's bearer token (STEWARD_METRICS_TOKEN) for process-wide endpoints; absent: only community mode admits. */
  operatorToken?: string;
}

export interface AuthDeps {
  settings: AuthSettings;
  licenses: LicenseRegistry;
  clients: Pick<ClientRepository, 'findByApiKey'>;
  now: () => Date;
  /**
   * Told once per process when community mode first admits a bearer value that is no known key (the OpenAI SDK's
   * placeholder `apiKey`), so that the log says so without a line per request.
   */
  onUnknownBearer?: () => void;
}

/**
 * The header of an answer to a request that community mode admitted with a bearer value that is no known key:
 * the caller learns that the value was not checked, and which identity it got.
 */
export const COMMUNITY_BEARER_HEADER = 'x-steward-auth';
const COMMUNITY_BEARER_NOTE = 'community; the bearer value is not a known key and was not checked';

export interface AuthResult {
  identity: Identity;
  /** Headers to add to the response (Deprecation/Sunset for legacy credentials). */
  headers?: Record<string, string>;
}

type Headers = Record<string, string | string[] | undefined>;

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

const fail = (code: GatewayErrorCode, message: string, details?: Record<string, unknown>) =>
  new ApiError('gateway', code, message, details);

export function communityActive(deps: AuthDeps): boolean {
  const mode = deps.settings.communityMode;
  return mode === true || (mode === 'auto' && !deps.licenses.configured);
}

/**
 * Resolves the caller's identity from its credentials. Order: X-License-Key (or a license key as the Bearer
 * value), Authorization (Bearer API key or Basic clientId:secret; x-api-key stands for a missing Bearer), legacy
 * X-Client-Secret; none → community identity in community mode, else 401.
 * The organization and tenant come from the credential; X-Tenant-ID may only narrow an organization-wide one.
 * NB: license keys and community mode (no database) answer synchronously, and may throw, so that the request
 * hook needs no promise on the pre-check hot path; API keys and client secrets answer with a promise.
 */
export function resolveIdentity(headers: Headers, deps: AuthDeps): AuthResult | Promise<AuthResult> {
  const community = communityActive(deps);
  // NB: the Anthropic SDK sends its key as x-api-key; it is read as the value of `Authorization: Bearer`.
  const apiKeyHeader = header(headers, 'x-api-key');
  const authHeader =
    header(headers, 'authorization') ?? (apiKeyHeader !== undefined ? `Bearer ${apiKeyHeader}` : undefined);
  const bearer = bearerLicenseKey(authHeader);
  const licenseKey = header(headers, 'x-license-key') ?? bearer;
  const authorization = bearer !== undefined ? undefined : authHeader;
  const legacySecret = header(headers, 'x-client-secret');
  const tenant = header(headers, 'x-tenant-id');

  if (licenseKey !== undefined && !(community && !deps.licenses.configured)) {
    return { identity: narrowTenant(licenseIdentity(licenseKey, deps), tenant) };
  }
  if (authorization !== undefined && /^(bearer|basic)\s/i.test(authorization)) {
    return authorizationIdentity(authorization, deps, community).then((r) => ({
      ...r,
      identity: narrowTenant(r.identity, tenant),
    }));
  }
  if (legacySecret !== undefined) {
    return legacyIdentity(legacySecret, header(headers, 'x-client-id'), deps, community).then((r) => ({
      ...r,
      identity: narrowTenant(r.identity, tenant),
    }));
  }
  if (community) return { identity: narrowTenant(COMMUNITY_IDENTITY, tenant) };
  throw fail('UNAUTHORIZED', 'credentials required: send X-License-Key, or Authorization: Bearer <API key>');
}

/**
 * A license key sent as `Authorization: Bearer <key>` (the OpenAI SDK's only credential): recognised by the
 * license key prefix, which API keys (`client-…`) never start with.
 */
function bearerLicenseKey(authorization: string | undefined): string | undefined {
  const m = authorization === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(authorization);
  return m && m[1]!.startsWith(`${LICENSE_KEY_PREFIX}-`) ? m[1] : undefined;
}

const COMMUNITY_IDENTITY: Identity = Object.freeze({
  credential: 'community',
  organizationId: COMMUNITY_ORGANIZATION,
  tier: 'COMMUNITY',
});

function licenseIdentity(key: string, deps: AuthDeps): Identity {
  const check = verifyLicenseKey(key, deps.settings.signingSecret ?? '', deps.now());
  if (!check.ok) throw fail(check.code, check.message, { reason: check.reason });
  const license = deps.licenses.findByKey(key);
  if (!license)
    throw fail('LICENSE_VALIDATION_FAILED', 'License validation failed', {
      reason: 'the key matches no License of this installation',
    });
  if (!license.valid) throw fail('LICENSE_VALIDATION_FAILED', 'License validation failed', { reason: license.reason });
  return {
    credential: 'license-key',
    organizationId: license.organizationId,
    tier: license.tier!,
    licenseName: license.name,
  };
}

/** Whether the process already logged that community mode admits unknown bearer values. */
const noticed = new WeakSet<AuthDeps>();

async function authorizationIdentity(authorization: string, deps: AuthDeps, community: boolean): Promise<AuthResult> {
  const [scheme, value = ''] = authorization.trim().split(/\s+/, 2) as [string, string?];
  if (scheme.toLowerCase() === 'bearer') {
    // NB: a revoked key is refused here (live), before community mode could admit it as an unknown value.
    const client = live(await deps.clients.findByApiKey(value));
    if (client) return { identity: clientIdentity(client, 'api-key', deps, community) };
    if (!community) throw fail('UNAUTHORIZED', 'invalid API key');
    // Community mode needs no credential: an SDK that must send one (the OpenAI SDK's placeholder) is admitted as it.
    if (!noticed.has(deps)) {
      noticed.add(deps);
      deps.onUnknownBearer?.();
    }
    return { identity: COMMUNITY_IDENTITY, headers: { [COMMUNITY_BEARER_HEADER]: COMMUNITY_BEARER_NOTE } };
  }
  let decoded: string;
  try {
    decoded = Buffer.from(value, 'base64').toString('utf8');
  } catch {
    throw fail('UNAUTHORIZED', 'malformed Basic credentials');
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw fail('UNAUTHORIZED', 'malformed Basic credentials: expected base64(clientId:clientSecret)');
  const clientId = decoded.slice(0, colon);
  const client = live(await deps.clients.findByApiKey(decoded.slice(colon + 1)));
  if (!client || (client.id !== clientId && client.name !== clientId))
    throw fail('UNAUTHORIZED', 'invalid client credentials');
  return { identity: clientIdentity(client, 'basic', deps, community) };
}

async function legacyIdentity(
  secret: string,
  clientId: string | undefined,
  deps: AuthDeps,
  community: boolean,
): Promise<AuthResult> {
  const { legacySunset, legacyDeprecatedAt } = deps.settings;
  if (deps.now().getTime() >= legacySunset.getTime()) {
    throw fail(
      'LEGACY_CREDENTIALS_RETIRED',
      `X-Client-ID/X-Client-Secret were retired on ${legacySunset.toISOString().slice(0, 10)}; send X-License-Key, or Authorization: Bearer <API key> from POST /api/clients`,
    );
  }
  const client = live(await deps.clients.findByApiKey(secret));
  if (!client || (clientId !== undefined && client.id !== clientId && client.name !== clientId))
    throw fail('UNAUTHORIZED', 'invalid client credentials');
  return {
    identity: clientIdentity(client, 'legacy-client-secret', deps, community),
    headers: {
      // RFC 9745 (Deprecation: @unix-seconds) and RFC 8594 (Sunset: HTTP-date).
      deprecation: `@${Math.floor(legacyDeprecatedAt.getTime() / 1000)}`,
      sunset: legacySunset.toUTCString(),
      link: '</docs/auth>; rel="deprecation"',
    },
  };
}

/**
 * A known key's client, refusing a revoked one with its own code: a revoked key is never "unknown", so no rule that
 * admits unknown values (community mode) can ever admit it.
 */
function live(client: ClientRecord | undefined): ClientRecord | undefined {
  if (client?.revokedAt)
    throw fail('API_KEY_REVOKED', 'this API key was revoked', {
      client_id: client.id,
      revoked_at: client.revokedAt.toISOString(),
    });
  return client;
}

function clientIdentity(
  client: ClientRecord,
  credential: Identity['credential'],
  deps: AuthDeps,
  community: boolean,
): Identity {
  return {
    credential,
    organizationId: client.organizationId,
    tenantId: client.tenantId ?? undefined,
    ...(client.tenantId ? { boundTenantId: client.tenantId } : {}),
    clientId: client.id,
    ...(client.roles.length ? { roles: client.roles } : {}),
    tier: organizationTier(client.organizationId, deps, community),
  };
}

/** The best valid License of an organization decides the tier of its API keys (and of its OAuth tokens). */
export function organizationTier(organizationId: string, deps: AuthDeps, community: boolean): Tier {
  if (organizationId === COMMUNITY_ORGANIZATION && community) return 'COMMUNITY';
  const order: Tier[] = ['PLUS', 'ENT', 'PRO'];
  const valid = deps.licenses.list().filter((l: LicenseState) => l.organizationId === organizationId && l.valid);
  const best = order.find((t) => valid.some((l) => l.tier === t));
  if (best) return best;
  if (community) return 'COMMUNITY';
  throw fail('LICENSE_VALIDATION_FAILED', 'License validation failed', {
    reason: `organization ${organizationId} has no valid License`,
  });
}

export function narrowTenant(identity: Identity, requested: string | undefined): Identity {
  if (requested === undefined || requested === '') return identity;
  if (identity.tenantId !== undefined && identity.tenantId !== requested) {
    throw fail('FORBIDDEN', `the credentials do not grant tenant ${echo(requested)}`);
  }
  return { ...identity, tenantId: requested };
}
