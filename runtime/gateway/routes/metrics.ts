import type { FastifyPluginAsync } from 'fastify';
import { agentMetricsBody, PROMETHEUS_CONTENT_TYPE, renderPrometheus, requestMetricFamilies, type RequestMetrics } from '../../metrics/index.js';
import type { GatewayDeps } from '../deps.js';
import { databaseHealthy } from '../health.js';

/**
 * `GET /metrics` (the reference's `agent_metrics` over the sliding window) and `GET /metrics/prometheus`
 * (text exposition). Both need credentials outside community mode: traffic figures are not public.
 */
export const metricsRoutes: FastifyPluginAsync<GatewayDeps & { requestMetrics: RequestMetrics }> = async (app, deps) => {
  app.get('/metrics', { config: { auth: { require: 'any' } } }, async () => {
    const healthy = await databaseHealthy(deps);
    return {
      agent_metrics: agentMetricsBody(deps.requestMetrics.snapshot()),
      health: { status: healthy ? 'healthy' : 'degraded', healthy },
      timestamp: deps.now().toISOString(),
    };
  });

  app.get('/metrics/prometheus', { config: { auth: { require: 'any' } } }, async (_req, reply) => {
    const text = renderPrometheus(requestMetricFamilies(deps.requestMetrics, { prefix: 'steward_gateway' }));
    return reply.type(PROMETHEUS_CONTENT_TYPE).send(text);
  });
};
