import fp from 'fastify-plugin';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { resolveIdentity, type AuthDeps, type AuthResult } from './authenticate.js';
import { TIER_FEATURES, type Identity } from './identity.js';

/** What a route asks of its caller, in `config.auth` of the route options. */
export interface RouteAuth {
  /** 'none': public; 'any': any valid credential (or community); 'license-key': an X-License-Key (admin). */
  require: 'none' | 'any' | 'license-key';
  /** A tier-gated feature; 403 "Feature not available in tier" when the tier lacks it. */
  feature?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | undefined;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}

/** Authenticates every request whose route declares `config.auth`; routes without it are refused (fail closed). */
const authPlugin: FastifyPluginAsync<AuthDeps> = async (app, deps) => {
  app.decorateRequest('identity', undefined);
  // NB: a callback hook: license keys and community mode resolve without a promise (the pre-check hot path).
  app.addHook('onRequest', (req, reply, done) => {
    const auth = req.routeOptions.config?.auth;
    if (req.routeOptions.url === undefined) return done(); // 404s carry no credentials requirement
    let result: AuthResult | Promise<AuthResult>;
    try {
      if (!auth) throw new ApiError('gateway', 'INTERNAL_ERROR', `route ${req.routeOptions.url} declares no auth requirement`);
      if (auth.require === 'none') return done();
      result = resolveIdentity(req.headers, deps);
      if (!(result instanceof Promise)) {
        admit(req, reply, auth, result);
        return done();
      }
    } catch (err) {
      return done(err as Error);
    }
    result.then(
      (r) => {
        try {
          admit(req, reply, auth, r);
        } catch (err) {
          return done(err as Error);
        }
        done();
      },
      (err: Error) => done(err),
    );
  });
};

/** Checks what the route asks of the authenticated caller and records the identity on the request. */
function admit(req: FastifyRequest, reply: FastifyReply, auth: RouteAuth, result: AuthResult): void {
  if (result.headers) void reply.headers(result.headers);
  const { identity } = result;
  if (auth.require === 'license-key' && identity.credential !== 'license-key' && identity.credential !== 'community') {
    throw new ApiError('gateway', 'FORBIDDEN', 'this endpoint needs the organization license key (X-License-Key)');
  }
  if (auth.feature && !TIER_FEATURES[identity.tier].has(auth.feature)) {
    throw new ApiError('gateway', 'FEATURE_NOT_AVAILABLE', 'Feature not available in tier', { feature: auth.feature, tier: identity.tier });
  }
  req.identity = identity;
}

export const gatewayAuth = fp(authPlugin, { name: 'steward-gateway-auth' });

/** The identity of an authenticated request; throws if a route forgot to require one. */
export function identityOf(req: FastifyRequest): Identity {
  if (!req.identity) throw new ApiError('gateway', 'INTERNAL_ERROR', 'no identity on an authenticated route');
  return req.identity;
}
