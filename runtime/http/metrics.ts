import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Histogram } from 'prom-client';
import type { HttpRequestCell, StewardTelemetry } from '../metrics/index.js';
import type { RouteAuth } from './route-auth.js';

export interface HttpMetricsOptions {
  telemetry: StewardTelemetry;
  /** The `server` label: which listener answered (gateway, orchestrator, metrics). */
  server: string;
}

interface Series {
  count: HttpRequestCell;
  duration: Histogram.Internal<'server' | 'route' | 'method'>;
}

const STATUS_CLASS = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * `steward_http_requests_total{server, route, method, status_class}` and
 * `steward_http_request_duration_seconds{server, route, method}` for every answered request. The route label is
 * the route's pattern (`/api/v1/agents/:agentName`), never the raw URL; requests that matched no route are
 * `unmatched`, so scanners cannot mint series.
 */
const httpMetricsPlugin: FastifyPluginAsync<HttpMetricsOptions> = async (app, { telemetry, server }) => {
  // NB: label children are cached per route, method and status: `inc(labels)` would hash the labels per request.
  const series = new Map<string, Series>();
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const status = STATUS_CLASS[Math.floor(reply.statusCode / 100)] ?? '5xx';
    const key = `${req.method} ${status} ${route}`;
    let s = series.get(key);
    if (!s) {
      s = {
        count: telemetry.httpRequestCell({ server, route, method: req.method, status_class: status }),
        duration: telemetry.httpDuration.labels({ server, route, method: req.method }),
      };
      series.set(key, s);
    }
    s.count.n++;
    s.duration.observe(reply.elapsedTime / 1000);
    done();
  });
};

export const httpMetrics = fp(httpMetricsPlugin, { name: 'steward-http-metrics' });

/**
 * `GET /metrics/prometheus`: the process's Prometheus metrics. On the gateway and orchestrator ports the rule is
 * 'operator' (an operator token, or community mode): the figures cover every organization at once. The metrics
 * port (`STEWARD_METRICS_PORT`) serves the same text to scrapers.
 */
export function prometheusRoute(
  app: FastifyInstance,
  telemetry: StewardTelemetry,
  auth: RouteAuth = { require: 'operator' },
): void {
  app.get('/metrics/prometheus', { config: { auth } }, async (_req, reply) => {
    const { contentType, text } = await telemetry.scrape();
    return reply.type(contentType).send(text);
  });
}
