/**
 * The caller's verified identity as the gateway hands it to the orchestrator (`/api/request` with
 * `request_type: multi-agent-plan`): header `X-Steward-Identity: <payload>.<signature>`, where payload is the
 * base64url JSON `{org, tenant?, bound?, tier, cred, client?, ts, rid}` and signature the hex HMAC-SHA256 of the payload
 * text under the shared secret STEWARD_INTERNAL_SECRET. The orchestrator accepts it only when the timestamp is
 * within INTERNAL_IDENTITY_MAX_AGE_MS of its clock and `rid` equals the request's X-Request-ID, so a captured
 * header names one request and expires. Body fields (`user`, `org_id`, ...) never decide tenancy.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import type { Identity, Tier } from './identity.js';

export const INTERNAL_IDENTITY_HEADER = 'x-steward-identity';
/** How far the signer's clock may be from the verifier's, either way. */
export const INTERNAL_IDENTITY_MAX_AGE_MS = 60_000;

interface Payload {
  org: string;
  tenant?: string;
  /** the tenant the credential is bound to (Identity.boundTenantId) */
  bound?: string;
  tier: Tier;
  cred: Identity['credential'];
  client?: string;
  /** signing time, ms since the epoch */
  ts: number;
  /** the request id the header belongs to (sent as X-Request-ID too) */
  rid: string;
}

const TIERS: ReadonlySet<string> = new Set(['COMMUNITY', 'PRO', 'ENT', 'PLUS']);
const CREDENTIALS: ReadonlySet<string> = new Set([
  'community',
  'license-key',
  'api-key',
  'basic',
  'legacy-client-secret',
  'oauth',
]);

const mac = (secret: string, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest('hex');

/** The header value for `identity` on request `requestId`. */
export function signIdentity(identity: Identity, requestId: string, secret: string, nowMs = Date.now()): string {
  const payload: Payload = {
    org: identity.organizationId,
    ...(identity.tenantId !== undefined ? { tenant: identity.tenantId } : {}),
    ...(identity.boundTenantId !== undefined ? { bound: identity.boundTenantId } : {}),
    tier: identity.tier,
    cred: identity.credential,
    ...(identity.clientId !== undefined ? { client: identity.clientId } : {}),
    ts: nowMs,
    rid: requestId,
  };
  const text = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${text}.${mac(secret, text)}`;
}

const refuse = (message: string) => new ApiError('gateway', 'UNAUTHORIZED', `internal identity refused: ${message}`);

/** The identity a header carries; throws 401 UNAUTHORIZED when it is malformed, forged, stale or for another request. */
export function verifyIdentity(
  header: string,
  requestId: string | undefined,
  secret: string,
  nowMs = Date.now(),
): Identity {
  const dot = header.indexOf('.');
  if (dot <= 0 || header.length > 4096) throw refuse('malformed header');
  const text = header.slice(0, dot);
  const given = Buffer.from(header.slice(dot + 1), 'utf8');
  const expected = Buffer.from(mac(secret, text), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse('bad signature');
  let p: Partial<Payload>;
  try {
    p = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Payload>;
  } catch {
    throw refuse('malformed payload');
  }
  if (
    typeof p.org !== 'string' ||
    typeof p.ts !== 'number' ||
    typeof p.rid !== 'string' ||
    !TIERS.has(String(p.tier)) ||
    !CREDENTIALS.has(String(p.cred))
  ) {
    throw refuse('malformed payload');
  }
  if (Math.abs(nowMs - p.ts) > INTERNAL_IDENTITY_MAX_AGE_MS) throw refuse('expired');
  if (p.rid !== requestId) throw refuse('the header belongs to another request (X-Request-ID)');
  return {
    credential: p.cred!,
    organizationId: p.org,
    tier: p.tier!,
    ...(typeof p.tenant === 'string' ? { tenantId: p.tenant } : {}),
    ...(typeof p.bound === 'string' ? { boundTenantId: p.bound } : {}),
    ...(typeof p.client === 'string' ? { clientId: p.client } : {}),
  };
}
