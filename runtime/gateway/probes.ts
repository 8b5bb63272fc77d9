import type { FastifyPluginAsync } from 'fastify';
import type { ProbeRouteOptions } from './deps.js';

/** How long GET /readyz waits for the database. */
const READY_DB_TIMEOUT_MS = 500;

/**
 * Kubernetes probes, public and unmetered (docs/cluster-mode.md, Probes), shaped as the orchestrator's:
 * `GET /healthz` says the process serves; `GET /readyz` says it should get traffic — nothing in `notReady()` (the
 * source not synced, draining) and the database answers — or answers 503 with the reasons it should not.
 */
export const probeRoutes: FastifyPluginAsync<ProbeRouteOptions> = async (app, deps) => {
  const open = { config: { auth: { require: 'none' as const } } };
  app.get('/healthz', open, async () => ({ status: 'ok' as const }));
  app.get('/readyz', open, async (_req, reply) => {
    const reasons = [...(deps.notReady?.() ?? [])];
    // NB: with a reason already (draining, say), the database is not asked.
    if (reasons.length === 0) {
      const db = await deps.store.db.ping(READY_DB_TIMEOUT_MS).then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      if (db !== undefined) reasons.push(`the database does not answer (${db})`);
    }
    if (reasons.length === 0) return { status: 'ok' as const };
    return reply.code(503).send({ status: 'not-ready' as const, reason: reasons.join('; ') });
  });
};
