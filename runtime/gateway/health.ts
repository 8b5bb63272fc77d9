import type { FastifyPluginAsync } from 'fastify';
import { verifyLicenseKey } from '../../api/index.js';
import { ApiError } from '../http/errors.js';
import { communityActive } from '../auth/authenticate.js';
import type { HealthRouteOptions } from './deps.js';
import type { Store } from '../store/index.js';
import { NO_POLICY_WARNING } from '../policy/engine.js';

/** Whether the store answers within 500 ms: what /health and /metrics report as healthy. */
export function databaseHealthy(deps: { store: Pick<Store, 'db'> }): Promise<boolean> {
  return deps.store.db.ping(500).then(
    () => true,
    () => false,
  );
}

import { COMMUNITY_WARNING } from '../auth/access.js';

export { COMMUNITY_WARNING };

/**
 * `GET /health`: cheap and unauthenticated (SDKs call it with a 1 s budget when a client is built).
 * `status` is exactly "healthy" when the gateway can serve and some policy is in force; the database is checked
 * with a short timeout.
 * `POST /health` with X-License-Key adds the license object: valid or not, and why.
 */
export const healthRoutes: FastifyPluginAsync<HealthRouteOptions> = async (app, deps) => {
  const health = async () => {
    const healthy = await databaseHealthy(deps);
    const warnings: string[] = [];
    const community = communityActive(deps.auth);
    if (community) warnings.push(COMMUNITY_WARNING);
    const issues = deps.source.issues().length;
    if (issues) warnings.push(`${issues} manifest document(s) were skipped; see the log`);
    // No policy in force approves everything: still serving (200), but never "healthy".
    const unguarded = deps.policies.active().length === 0;
    if (unguarded) warnings.push(NO_POLICY_WARNING);
    const problems = deps.policies.problems().length;
    if (problems) warnings.push(`${problems} polic(ies) failed to compile; see the log`);
    // A policy that keeps failing blocks its requests (fail closed): degraded, but still serving, so still 200.
    const failing = deps.policies.failing();
    for (const f of failing)
      warnings.push(
        `policy ${f.policy} keeps failing (${f.failures} failures in the last 60 s: ${f.classes.join(', ')}); its requests are blocked`,
      );
    // A License whose key cannot be used makes every call with it fail: degraded, with the reason.
    const unusable = deps.auth.licenses.unusable();
    for (const l of unusable)
      warnings.push(
        `License ${l.name} (organization ${l.organizationId}) cannot be used: ${l.reason ?? 'its key is not valid'}`,
      );
    return {
      code: healthy ? 200 : 503,
      body: {
        service: 'steward-gateway',
        status: healthy && !unguarded && failing.length === 0 && unusable.length === 0 ? 'healthy' : 'degraded',
        timestamp: deps.now().toISOString(),
        version: deps.version,
        mode: community ? 'community' : 'licensed',
        ...(warnings.length ? { warnings } : {}),
      },
    };
  };

  app.get('/health', { config: { auth: { require: 'none' } } }, async (_req, reply) => {
    const h = await health();
    return reply.code(h.code).send(h.body);
  });

  app.post('/health', { config: { auth: { require: 'none' } } }, async (req, reply) => {
    const key = req.headers['x-license-key'];
    if (typeof key !== 'string' || key === '')
      throw new ApiError('gateway', 'INVALID_REQUEST', 'send the license key in X-License-Key');
    const h = await health();
    return reply.code(h.code).send({ ...h.body, license: licenseStatus(key, deps) });
  });
};

function licenseStatus(key: string, deps: Pick<HealthRouteOptions, 'auth' | 'now'>) {
  const check = verifyLicenseKey(key, deps.auth.settings.signingSecret ?? '', deps.now());
  const info = check.ok ? check : check.info;
  const registered = deps.auth.licenses.findByKey(key);
  const reason = !check.ok
    ? `${check.message}: ${check.reason}`
    : !registered
      ? 'License validation failed: the key matches no License of this installation'
      : registered.valid
        ? undefined
        : registered.reason;
  return {
    valid: check.ok && registered?.valid === true,
    tier: info?.tier ?? 'unknown',
    maxNodes: info?.maxNodes ?? 0,
    expiresAt: info?.expiresAt.toISOString() ?? null,
    ...(registered ? { organization_id: registered.organizationId } : {}),
    ...(reason ? { reason } : {}),
  };
}
