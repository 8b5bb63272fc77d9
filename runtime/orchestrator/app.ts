import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { createHttpApp } from '../http/app.js';
import { validateRoutes } from './validate.js';

export interface OrchestratorDeps {
  log: Logger;
  store: Store;
  source: DeclarativeSource;
  version: string;
  bodyLimitBytes: number;
  now?: () => Date;
}

/** The Orchestrator (plan and parallel surfaces). Built, not started. */
export function buildOrchestrator(deps: OrchestratorDeps): FastifyInstance {
  const app = createHttpApp({ log: deps.log, bodyLimitBytes: deps.bodyLimitBytes, surface: 'plan', errorStyle: 'envelope' });
  const now = deps.now ?? (() => new Date());
  const started = now().getTime();
  app.get('/health', async () => {
    const at = now();
    return {
      service: 'steward-orchestrator',
      status: 'healthy',
      version: deps.version,
      uptime_seconds: Math.round((at.getTime() - started) / 1000),
      timestamp: at.toISOString(),
    };
  });
  void app.register(validateRoutes, deps);
  return app;
}
