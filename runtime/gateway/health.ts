import type { FastifyPluginAsync } from 'fastify';
import type { GatewayDeps } from './app.js';

/**
 * `GET /health`: cheap and unauthenticated (SDKs call it with a 1 s budget when a client is built).
 * `status` is exactly "healthy" when the gateway can serve; the database is checked with a short timeout.
 */
export const healthRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  const now = deps.now ?? (() => new Date());
  app.get('/health', async (_req, reply) => {
    const healthy = await deps.store.db.ping(500).then(
      () => true,
      () => false,
    );
    const issues = deps.source.issues();
    const body = {
      service: 'steward-gateway',
      status: healthy ? 'healthy' : 'degraded',
      timestamp: now().toISOString(),
      version: deps.version,
      ...(issues.length ? { warnings: [`${issues.length} manifest document(s) were skipped; see the log`] } : {}),
    };
    return reply.code(healthy ? 200 : 503).send(body);
  });
};
