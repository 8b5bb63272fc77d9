import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { createHttpApp, type ConnectionSettings } from '../http/app.js';
import type { AuthDeps } from '../auth/authenticate.js';
import { registerAuth } from '../auth/plugin.js';
import { validateRoutes } from './validate.js';

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
}

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

/** The Orchestrator (plan and parallel surfaces). Built, not started. Every route states its credential rule. */
export function buildOrchestrator(deps: OrchestratorDeps): FastifyInstance {
  const app = createHttpApp({ log: deps.log, bodyLimitBytes: deps.bodyLimitBytes, surface: 'plan', errorStyle: 'envelope', connections: deps.connections });
  registerAuth(app, 'plan', deps.auth);
  void app.register(healthRoutes, deps);
  void app.register(validateRoutes, deps);
  return app;
}
