import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Surface } from '../../api/index.js';
import { ApiError } from '../http/errors.js';
import { routeAuth, type CredentialCheck, type RouteAuth } from '../http/route-auth.js';
import { bearerTokenMatcher } from '../http/bearer.js';
import { communityActive, resolveIdentity, type AuthDeps, type AuthResult } from './authenticate.js';
import { TIER_FEATURES, type Identity } from './identity.js';
import { INTERNAL_IDENTITY_HEADER, verifyIdentity } from './internal-identity.js';
import type { OAuthGrant, OAuthResource } from './oauth.js';

export type { RouteAuth } from '../http/route-auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | undefined;
    /** The access token's grant, on an OAuth route called with one (runtime/auth/oauth.ts). */
    oauthGrant: OAuthGrant | undefined;
  }
}

/**
 * Authentication of one surface (gateway or orchestrator): every route must state its rule, and every rule but
 * 'none' runs the credential check; refusals use the surface's catalogue.
 */
export function registerAuth(
  app: FastifyInstance,
  surface: Surface,
  deps: AuthDeps,
  options: CredentialOptions = {},
): void {
  app.decorateRequest('identity', undefined);
  app.decorateRequest('oauthGrant', undefined);
  void app.register(routeAuth, { surface, check: credentialCheck(deps, options) });
}

export interface CredentialOptions {
  /**
   * The secret of identities the gateway forwards (X-Steward-Identity, runtime/auth/internal-identity.ts;
   * STEWARD_INTERNAL_SECRET). Absent: such a header is refused with 401.
   */
  internalSecret?: string;
  /** The MCP server's OAuth resource: routes with `auth.oauth` take its access tokens. Absent: no tokens. */
  oauth?: OAuthResource;
}

/**
 * The credential check of Steward's surfaces (`routeAuth` in runtime/http/route-auth.ts runs it for every route
 * whose rule is not 'none'): license key, API key or legacy secret, or community mode (ADR 0003). The request
 * must be decorated with `identity` (`registerAuth` does both).
 */
export function credentialCheck(deps: AuthDeps, options: CredentialOptions = {}): CredentialCheck {
  const operator = operatorCheck(deps);
  return (req, reply, auth) => {
    if (auth.require === 'operator') return operator(req);
    const forwarded = req.headers[INTERNAL_IDENTITY_HEADER];
    if (forwarded !== undefined) {
      if (!options.internalSecret)
        throw new ApiError(
          'gateway',
          'UNAUTHORIZED',
          'X-Steward-Identity is not accepted here: STEWARD_INTERNAL_SECRET is not set',
        );
      const id = req.headers['x-request-id'];
      const identity = verifyIdentity(
        String(forwarded),
        Array.isArray(id) ? id[0] : id,
        options.internalSecret,
        deps.now().getTime(),
      );
      return admit(req, reply, auth, { identity });
    }
    if (auth.oauth && options.oauth) {
      const pending = oauthIdentity(req, options.oauth);
      if (pending) return pending.then((r) => admit(req, reply, auth, r));
    }
    const result = resolveIdentity(req.headers, deps);
    if (!(result instanceof Promise)) return admit(req, reply, auth, result);
    return result.then((r) => admit(req, reply, auth, r));
  };
}

/**
 * The operator rule: `Authorization: Bearer <operator token>` (`settings.operatorToken`, STEWARD_METRICS_TOKEN),
 * compared in constant time; in community mode (one organization, no tenants) no credential is needed.
 * Tenant credentials are not enough: the figures are the installation's, every organization's traffic at once.
 */
export function operatorCheck(deps: AuthDeps): (req: FastifyRequest) => void {
  const matches = bearerTokenMatcher(deps.settings.operatorToken);
  return (req) => {
    if (matches(req.headers.authorization) || communityActive(deps)) return;
    if (!deps.settings.operatorToken) {
      throw new ApiError(
        'gateway',
        'FORBIDDEN',
        'this endpoint needs the operator token: set STEWARD_METRICS_TOKEN, or scrape the metrics port (STEWARD_METRICS_PORT)',
      );
    }
    throw new ApiError(
      'gateway',
      'UNAUTHORIZED',
      'operator token required: Authorization: Bearer <STEWARD_METRICS_TOKEN>; tenant credentials do not grant this endpoint',
    );
  };
}

/**
 * The identity of a request to an OAuth route: a bearer JWT is verified as an access token (its grant recorded on
 * the request); no credential at all is 401 with the challenge; anything else (a license or API key) is left to
 * the usual check (undefined).
 */
function oauthIdentity(req: FastifyRequest, oauth: OAuthResource): Promise<AuthResult> | undefined {
  const h = req.headers;
  const authorization = typeof h.authorization === 'string' ? h.authorization : undefined;
  const bearer = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined;
  if (bearer !== undefined && oauth.isToken(bearer)) {
    return oauth.verify(bearer).then(({ identity, grant }) => {
      req.oauthGrant = grant;
      return { identity };
    });
  }
  const none =
    authorization === undefined &&
    h['x-license-key'] === undefined &&
    h['x-api-key'] === undefined &&
    h['x-client-secret'] === undefined;
  if (none) throw oauth.unauthorized('an access token (or a Steward license or API key) is required');
  return undefined;
}

/** Checks what the route asks of the authenticated caller and records the identity on the request. */
function admit(req: FastifyRequest, reply: FastifyReply, auth: RouteAuth, result: AuthResult): void {
  if (result.headers) void reply.headers(result.headers);
  const { identity } = result;
  if (auth.require === 'license-key' && identity.credential !== 'license-key' && identity.credential !== 'community') {
    throw new ApiError('gateway', 'FORBIDDEN', 'this endpoint needs the organization license key (X-License-Key)');
  }
  if (auth.feature && !TIER_FEATURES[identity.tier].has(auth.feature)) {
    throw new ApiError('gateway', 'FEATURE_NOT_AVAILABLE', 'Feature not available in tier', {
      feature: auth.feature,
      tier: identity.tier,
    });
  }
  req.identity = identity;
}

/** The identity of an authenticated request; throws if a route forgot to require one. */
export function identityOf(req: FastifyRequest): Identity {
  if (!req.identity) throw new ApiError('gateway', 'INTERNAL_ERROR', 'no identity on an authenticated route');
  return req.identity;
}
