import type { FastifyPluginAsync } from 'fastify';
import { agentMetricsBody } from '../../metrics/index.js';
import { prometheusRoute } from '../../http/metrics.js';
import { identityOf } from '../../auth/plugin.js';
import type { MetricsRouteOptions } from '../deps.js';
import { databaseHealthy } from '../health.js';

/**
 * `GET /metrics` (the reference's `agent_metrics` over the sliding window): any credential, the caller's
 * organization only — one organization's traffic is not another's business. `GET /metrics/prometheus`: the
 * process's Prometheus metrics, every organization at once, so for the operator (operator token, or community
 * mode) and the metrics port, never for a tenant credential.
 */
export const metricsRoutes: FastifyPluginAsync<MetricsRouteOptions> = async (app, deps) => {
  app.get('/metrics', { config: { auth: { require: 'any' } } }, async (req) => {
    const metrics = deps.requestMetrics.of(identityOf(req).organizationId);
    const healthy = await databaseHealthy(deps);
    return {
      agent_metrics: agentMetricsBody(metrics.snapshot()),
      health: { status: healthy ? 'healthy' : 'degraded', healthy },
      timestamp: deps.now().toISOString(),
    };
  });

  prometheusRoute(app, deps.telemetry);
};
