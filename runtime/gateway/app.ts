import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { createHttpApp } from '../http/app.js';
import { healthRoutes } from './health.js';

export interface GatewayDeps {
  log: Logger;
  store: Store;
  source: DeclarativeSource;
  version: string;
  bodyLimitBytes: number;
  /** Injected clock (tests). */
  now?: () => Date;
}

/** The Agent gateway: registers its route plugins and returns the app; `main` listens. */
export function buildGateway(deps: GatewayDeps): FastifyInstance {
  const app = createHttpApp({ log: deps.log, bodyLimitBytes: deps.bodyLimitBytes, surface: 'gateway', errorStyle: 'agent' });
  void app.register(healthRoutes, deps);
  return app;
}
