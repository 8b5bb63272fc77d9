import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Logger } from '../../platform/log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { createHttpApp, type ConnectionSettings, type HttpTls } from '../http/app.js';
import type { AuthDeps } from '../auth/authenticate.js';
import { registerAuth } from '../auth/plugin.js';
import { validateRoutes } from './validate.js';
import { apiDocs } from '../http/api-docs.js';
import { httpMetrics, prometheusRoute } from '../http/metrics.js';
import { StewardTelemetry } from '../metrics/index.js';
import { orchestratorOpenApi } from '../../api/gen/openapi.js';
import { orchestratorProbe } from '../../api/http/orchestrator.js';
import { responseSchema } from '../http/serializer.js';
import { parallelRoutes, type ParallelDeps } from './parallel/routes.js';
import { planRoutes, type PlanRouteDeps } from './plan/routes.js';
import { registryRoutes } from './registry/routes.js';
import { policyRoutes } from './policies/routes.js';
import { PolicyReports } from '../policy/reports/index.js';
import { webhookRoutes, type WebhookService } from './webhooks/index.js';
import { poolRoutes } from './pool/routes.js';

export interface OrchestratorDeps {
  log: Logger;
  store: Store;
  source: DeclarativeSource;
  version: string;
  bodyLimitBytes: number;
  /** The same credentials as the gateway's (License keys, API keys; none in community mode). */
  auth: AuthDeps;
  /** @default DEFAULT_CONNECTION_SETTINGS */
  connections?: ConnectionSettings;
  now?: () => Date;
  /** The process's Prometheus metrics (standalone shares the gateway's). @default a registry of its own */
  telemetry?: StewardTelemetry;
  /** Serve GET /openapi.json and GET /docs (STEWARD_API_DOCS). @default true */
  apiDocs?: boolean;
  /** HTTP/2 over TLS 1.3 with HTTP/1.1 by ALPN; absent: plain HTTP/1.1. */
  tls?: HttpTls;
  /** The parallel surface's agent pool, limiter, policy cache and governed pipeline (assemble.ts builds them). */
  parallel: Pick<ParallelDeps, 'pool' | 'limiter' | 'policies' | 'governed' | 'requiredAgents'>;
  /** Webhook registrations, the plan events' emitter and the delivery worker (assemble.ts starts and closes it). */
  webhooks: WebhookService;
  /** The plan surface: its service (planner, executor, records) and limiters (assemble.ts builds them). */
  plan: PlanRouteDeps;
  /** The secret of identities the gateway forwards (STEWARD_INTERNAL_SECRET); absent: X-Steward-Identity is refused. */
  internalSecret?: string;
  /**
   * Why the process is not ready besides the database (informers not synced, pool discovery not synced, draining);
   * GET /readyz answers 503 naming them. @default none
   */
  notReady?: () => readonly string[];
}

/** How long GET /readyz waits for the database. */
const READY_DB_TIMEOUT_MS = 500;

/** `GET /health`: public, like the gateway's. */
const healthRoutes: FastifyPluginAsync<OrchestratorDeps> = async (app, deps) => {
  const now = deps.now ?? (() => new Date());
  const started = now().getTime();
  app.get('/health', { config: { auth: { require: 'none' } } }, async () => {
    const at = now();
    return {
      service: 'steward-orchestrator',
      status: 'healthy',
      version: deps.version,
      uptime_seconds: Math.round((at.getTime() - started) / 1000),
      timestamp: at.toISOString(),
    };
  });
};

/**
 * `GET /healthz` (liveness: the process serves) and `GET /readyz` (readiness), public for the kubelet
 * (docs/cluster-mode.md, Probes).
 */
const probeRoutes: FastifyPluginAsync<OrchestratorDeps> = async (app, deps) => {
  const schema = { response: { 200: responseSchema(orchestratorProbe), 503: responseSchema(orchestratorProbe) } };
  app.get('/healthz', { config: { auth: { require: 'none' } }, schema }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', { config: { auth: { require: 'none' } }, schema }, async (_req, reply) => {
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

/** The Orchestrator (plan and parallel surfaces). Built, not started. Every route states its credential rule. */
export function buildOrchestrator(deps: OrchestratorDeps): FastifyInstance {
  const app = createHttpApp({
    log: deps.log,
    bodyLimitBytes: deps.bodyLimitBytes,
    surface: 'plan',
    errorStyle: 'envelope',
    connections: deps.connections,
    tls: deps.tls,
  });
  const telemetry = deps.telemetry ?? new StewardTelemetry({ version: deps.version });
  void app.register(httpMetrics, { telemetry, server: 'orchestrator' });
  registerAuth(app, 'plan', deps.auth, { internalSecret: deps.internalSecret });
  void app.register(healthRoutes, deps);
  void app.register(probeRoutes, deps);
  void app.register(validateRoutes, deps);
  void app.register(async (scope) => planRoutes(scope, deps.plan));
  void app.register(registryRoutes, { source: deps.source, now: deps.now });
  void app.register(policyRoutes, { source: deps.source, reports: new PolicyReports(deps.store.db), now: deps.now });
  void app.register(webhookRoutes, { webhooks: deps.webhooks, now: deps.now });
  void app.register(poolRoutes, { pool: deps.parallel.pool, now: deps.now ?? (() => new Date()) });
  // NB: its own scope: the parallel surface answers in its own catalogue (RATE_LIMIT_EXCEEDED, not RATE_LIMITED).
  void app.register(async (scope) =>
    parallelRoutes(scope, {
      ...deps.parallel,
      store: deps.store,
      telemetry,
      version: deps.version,
      log: deps.log,
      now: deps.now,
    }),
  );
  void app.register(async (scope) => prometheusRoute(scope, telemetry));
  if (deps.apiDocs !== false) void app.register(apiDocs, { document: orchestratorOpenApi(deps.version) });
  return app;
}
