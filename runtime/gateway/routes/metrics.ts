import type { FastifyPluginAsync } from 'fastify';
import { agentMetricsBody, policyFailureFamily, PROMETHEUS_CONTENT_TYPE, renderPrometheus, requestMetricFamilies } from '../../metrics/index.js';
import { identityOf } from '../../auth/plugin.js';
import type { GatewayDeps } from '../deps.js';
import { databaseHealthy } from '../health.js';

/**
 * `GET /metrics` (the reference's `agent_metrics` over the sliding window) and `GET /metrics/prometheus`
 * (text exposition). Both need credentials outside community mode, and both show the caller's organization
 * only: one organization's traffic is not another's business.
 */
export const metricsRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  app.get('/metrics', { config: { auth: { require: 'any' } } }, async (req) => {
    const metrics = deps.requestMetrics.of(identityOf(req).organizationId);
    const healthy = await databaseHealthy(deps);
    return {
      agent_metrics: agentMetricsBody(metrics.snapshot()),
      health: { status: healthy ? 'healthy' : 'degraded', healthy },
      timestamp: deps.now().toISOString(),
    };
  });

  app.get('/metrics/prometheus', { config: { auth: { require: 'any' } } }, async (req, reply) => {
    const metrics = deps.requestMetrics.of(identityOf(req).organizationId);
    const text = renderPrometheus([
      ...requestMetricFamilies(metrics, { prefix: 'steward_gateway' }),
      policyFailureFamily(deps.policies.failureCounts()),
    ]);
    return reply.type(PROMETHEUS_CONTENT_TYPE).send(text);
  });
};
