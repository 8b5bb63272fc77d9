import type { FastifyInstance } from 'fastify';
import type { Logger } from '../../platform/log.js';
import type { StewardTelemetry } from '../metrics/index.js';
import { createHttpApp, type ConnectionSettings } from './app.js';
import { bearerTokenMatcher } from './bearer.js';
import { ApiError } from './errors.js';
import { httpMetrics, prometheusRoute } from './metrics.js';
import { routeAuth } from './route-auth.js';

export interface MetricsServerOptions {
  log: Logger;
  telemetry: StewardTelemetry;
  /** STEWARD_METRICS_TOKEN: when set, scrapers send `Authorization: Bearer <token>`; absent: unauthenticated. */
  token?: string;
  connections?: ConnectionSettings;
}

/**
 * The metrics listener (STEWARD_METRICS_PORT): only `GET /metrics/prometheus`, for Prometheus scrapers. A scraper
 * is an operator, not a tenant: it sees the process's figures, every organization's. Built, not started.
 */
export function buildMetricsServer(options: MetricsServerOptions): FastifyInstance {
  const app = createHttpApp({
    log: options.log,
    bodyLimitBytes: 1024,
    surface: 'gateway',
    errorStyle: 'agent',
    connections: options.connections,
    // NB: a scrape every few seconds is not a trace anyone wants.
    traced: false,
  });
  const matches = bearerTokenMatcher(options.token);
  void app.register(httpMetrics, { telemetry: options.telemetry, server: 'metrics' });
  void app.register(routeAuth, {
    surface: 'gateway',
    check: (req) => {
      if (!matches(req.headers.authorization))
        throw new ApiError(
          'gateway',
          'UNAUTHORIZED',
          'operator token required: Authorization: Bearer <STEWARD_METRICS_TOKEN>',
        );
    },
  });
  void app.register(async (scope) =>
    prometheusRoute(scope, options.telemetry, { require: options.token ? 'operator' : 'none' }),
  );
  return app;
}

/** The metrics listener of a process's settings: its registry, its token, logging as the `metrics` component. */
export function metricsServer(settings: { token?: string }, telemetry: StewardTelemetry, log: Logger): FastifyInstance {
  return buildMetricsServer({ log: log.child({ component: 'metrics' }), telemetry, token: settings.token });
}
