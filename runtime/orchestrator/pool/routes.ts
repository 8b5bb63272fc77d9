/**
 * `GET /api/v1/pool`: the agent pool as this orchestrator sees it now (its figures and each member's health, load
 * and last error). The pool is the installation's, not an organization's: any caller may read it; the gateway's
 * `GET /api/v1/governance/agents` asks for it with the caller's signed identity and adds the organization's latency.
 */
import type { FastifyPluginAsync } from 'fastify';
import { isoTimestamp } from '../../../platform/iso-time.js';
import type { AgentPool } from './pool.js';

export interface PoolRouteDeps {
  pool: Pick<AgentPool, 'status' | 'members'>;
  now: () => Date;
}

export const poolRoutes: FastifyPluginAsync<PoolRouteDeps> = async (app, deps) => {
  app.get('/api/v1/pool', { config: { auth: { require: 'any' } } }, async () => ({
    pool: deps.pool.status(),
    members: deps.pool.members().map((m) => ({
      id: m.id,
      ...(m.agentConfig !== undefined ? { agent_config: m.agentConfig } : {}),
      kind: m.kind,
      health: m.health,
      draining: m.draining,
      in_flight: m.inFlight,
      max_in_flight: m.maxInFlight,
      queries_processed: m.stats.queriesProcessed,
      ...(m.lastError !== undefined ? { last_error: m.lastError } : {}),
    })),
    generated_at: isoTimestamp(deps.now()),
  }));
};
