import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Surface } from '../../api/index.js';
import { ApiError, inSurface } from './errors.js';

/** What a route asks of its caller, in `config.auth` of the route options. Every route states one. */
export interface RouteAuth {
  /**
   * 'none': public; 'any': any valid credential (or community); 'license-key': an X-License-Key (admin);
   * 'operator': the installation's operator token (`Authorization: Bearer $STEWARD_METRICS_TOKEN`), or nothing in
   * community mode: process-wide figures such as the Prometheus scrape, which no tenant may read.
   */
  require: 'none' | 'any' | 'license-key' | 'operator';
  /** A tier-gated feature; 403 "Feature not available in tier" when the tier lacks it. */
  feature?: string;
  /**
   * The route also takes OAuth access tokens (the MCP server, runtime/auth/oauth.ts) when an issuer is configured;
   * then a request without any credential gets 401 with the `WWW-Authenticate` challenge, even in community mode.
   */
  oauth?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}

/**
 * Admits or refuses one request for a route's rule: returns nothing (admitted, synchronously), a promise of
 * nothing, or throws an ApiError. Called only for rules other than 'none'.
 */
export type CredentialCheck = (req: FastifyRequest, reply: FastifyReply, auth: RouteAuth) => void | Promise<void>;

export interface RouteAuthOptions {
  surface: Surface;
  check: CredentialCheck;
}

/**
 * Every route of the app must declare `config.auth`: registering one without it fails when the app is built,
 * and a request to one (registered before this plugin) is refused with 500 (fail closed). Errors of the check
 * leave in the surface's catalogue: a code the surface does not list becomes the surface's code of its status.
 */
const routeAuthPlugin: FastifyPluginAsync<RouteAuthOptions> = async (app, { surface, check }) => {
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    if (route.config?.auth) return;
    // NB: `this` is the instance the route is registered on; a public scope's children inherit the mark.
    if ((this as PublicScope)[kPublicScope]) route.config = { ...route.config, auth: { require: 'none' } };
    else throw new Error(`route ${route.method} ${route.url} declares no credential rule (config.auth)`);
  });
  // NB: a callback hook: checks that answer synchronously (license keys, community mode) need no promise on
  // the pre-check hot path.
  app.addHook('onRequest', (req, reply, done) => {
    if (req.routeOptions.url === undefined) return done(); // 404s carry no credentials requirement
    const auth = req.routeOptions.config?.auth;
    let pending: void | Promise<void>;
    try {
      if (!auth)
        throw new ApiError(surface, 'INTERNAL_ERROR', `route ${req.routeOptions.url} declares no credential rule`);
      if (auth.require === 'none') return done();
      pending = check(req, reply, auth);
    } catch (err) {
      return done(inSurface(err, surface));
    }
    if (!pending) return done();
    pending.then(
      () => done(),
      (err: unknown) => done(inSurface(err, surface)),
    );
  });
};

const kPublicScope = Symbol('steward.publicScope');
type PublicScope = FastifyInstance & { [kPublicScope]?: true };

/**
 * Makes the routes registered in this plugin scope (and its children) public when they state no rule: for
 * third-party plugins that cannot state one (the API reference page's assets). Call it on an encapsulated scope
 * only, never on the root.
 */
export function markPublicScope(scope: FastifyInstance): void {
  (scope as PublicScope)[kPublicScope] = true;
}

export const routeAuth = fp(routeAuthPlugin, { name: 'steward-route-auth' });
