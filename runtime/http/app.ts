import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Surface } from '../../api/index.js';
import type { Logger } from '../log.js';
import { installErrorHandling, type ErrorStyle } from './error-handler.js';
import { LazyChildLogger } from './request-logger.js';

export interface HttpAppOptions {
  log: Logger;
  bodyLimitBytes: number;
  surface: Surface;
  errorStyle: ErrorStyle;
  /** Per-request socket timeout. @default 120s (plans may take that long; clients give up at 120 s) */
  requestTimeoutMs?: number;
}

/** A fastify instance with the settings every Steward HTTP surface shares. Built, not started. */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimitBytes,
    requestTimeout: options.requestTimeoutMs ?? 120_000,
    connectionTimeout: 0,
    keepAliveTimeout: 72_000,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // NB: per-request info logs would dominate the hot path; completion is logged at debug below.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger, bindings, opts) => new LazyChildLogger(logger as Logger, bindings, opts),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  installErrorHandling(app, options.surface, options.errorStyle);
  // NB: callback hooks, not async ones: an async hook costs a promise and a microtask on every request.
  // The header is set first thing, so error answers (400, 413, 404) carry it too.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (options.log.isLevelEnabled('debug')) {
      req.log.debug({ method: req.method, url: req.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request completed');
    }
    done();
  });
  return app;
}
