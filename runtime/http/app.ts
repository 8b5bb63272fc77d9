import { randomUUID } from 'node:crypto';
import type { Http2SecureServer } from 'node:http2';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyHttp2SecureOptions,
  type FastifyInstance,
} from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import type { Surface } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import { installClientErrorAnswers, frameworkErrorAnswer } from './client-errors.js';
import { installErrorHandling, type ErrorStyle } from './error-handler.js';
import { installJsonParser } from './json-parser.js';
import { LazyChildLogger } from './request-logger.js';
import { installTracing } from '../tracing/index.js';

/** How long slow or idle clients may hold a connection, and how many may. Units in the names. */
export interface ConnectionSettings {
  /** Request line and headers must arrive within this. @default 10s */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; the answer may take longer. @default 30s */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this. @default 5s */
  keepAliveTimeoutMs: number;
  /** A socket silent both ways closes after this, answer pending or not (plans take up to 120 s). @default 130s */
  socketTimeoutMs: number;
  /** Requests per keep-alive connection; 0: unlimited. @default 10000 */
  maxRequestsPerSocket: number;
  /** Concurrent connections; more are dropped on arrival. @default 4096 */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_SETTINGS: Readonly<ConnectionSettings> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  socketTimeoutMs: 130_000,
  maxRequestsPerSocket: 10_000,
  maxConnections: 4096,
});

/** Fastify options every Steward server shares: body limit, timeouts, request ids, lazy child loggers. */
export function baseServerOptions(log: Logger, bodyLimitBytes: number, c: ConnectionSettings) {
  return {
    loggerInstance: log as FastifyBaseLogger,
    bodyLimit: bodyLimitBytes,
    requestTimeout: c.requestTimeoutMs,
    connectionTimeout: c.socketTimeoutMs,
    keepAliveTimeout: c.keepAliveTimeoutMs,
    maxRequestsPerSocket: c.maxRequestsPerSocket,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // NB: per-request info logs would dominate the hot path; completion is logged at debug (createHttpApp).
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions) =>
      new LazyChildLogger(logger as Logger, bindings, opts),
  };
}

/** A certificate for HTTP/2 over TLS 1.3, with HTTP/1.1 for clients that do not offer h2 (ALPN). */
export interface HttpTls {
  /** PEM certificate chain */
  cert: string | Buffer;
  /** PEM private key */
  key: string | Buffer;
}

export interface HttpAppOptions {
  log: Logger;
  bodyLimitBytes: number;
  surface: Surface;
  errorStyle: ErrorStyle;
  /** @default DEFAULT_CONNECTION_SETTINGS */
  connections?: ConnectionSettings;
  /** Serve HTTP/2 over TLS 1.3 (and HTTP/1.1 by ALPN); absent: plain HTTP/1.1. */
  tls?: HttpTls;
  /** A server span per request (runtime/tracing) while traces are exported. @default true */
  traced?: boolean;
}

/** A fastify instance with the settings every Steward HTTP surface shares. Built, not started. */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const c = options.connections ?? DEFAULT_CONNECTION_SETTINGS;
  // NB: node checks the header and request deadlines every connectionsCheckingInterval (30 s by default), so a
  // slow client outlived its deadline by up to that; a check every second keeps the close within seconds.
  const checkEveryMs = Math.max(100, Math.min(1000, Math.floor(Math.min(c.headersTimeoutMs, c.requestTimeoutMs) / 2)));
  const common = {
    ...baseServerOptions(options.log, options.bodyLimitBytes, c),
    return503OnClosing: true,
    forceCloseConnections: 'idle' as const,
    frameworkErrors: frameworkErrorAnswer(options.errorStyle),
  };
  // NB: fastify types an HTTP/2 instance apart from an HTTP/1 one; Steward's routes use neither's specifics.
  const app = (options.tls
    ? Fastify({
        ...(common as unknown as FastifyHttp2SecureOptions<Http2SecureServer>),
        http2: true,
        // The session idles out like a keep-alive connection.
        http2SessionTimeout: c.keepAliveTimeoutMs,
        https: { allowHTTP1: true, minVersion: 'TLSv1.3', cert: options.tls.cert, key: options.tls.key },
      })
    : Fastify({
        ...common,
        http: {
          headersTimeout: Math.min(c.headersTimeoutMs, c.requestTimeoutMs),
          connectionsCheckingInterval: checkEveryMs,
        },
        // Errors node's HTTP parser finds (malformed request, 431, 408) and fastify's routing errors (bad URL)
        // answer in the surface's JSON shape with a code and a request id, like every other error.
        clientErrorHandler: installClientErrorAnswers(options.surface, options.errorStyle, options.log),
      })) as unknown as FastifyInstance;
  app.server.maxConnections = c.maxConnections;
  installJsonParser(app, options.surface);
  installErrorHandling(app, options.surface, options.errorStyle);
  // NB: callback hooks, not async ones: an async hook costs a promise and a microtask on every request.
  // The header is set first thing, so error answers (400, 413, 404) carry it too.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  if (options.traced !== false) installTracing(app);
  app.addHook('onResponse', (req, reply, done) => {
    if (options.log.isLevelEnabled('debug')) {
      req.log.debug(
        { method: req.method, url: req.url, status: reply.statusCode, ms: reply.elapsedTime },
        'request completed',
      );
    }
    done();
  });
  return app;
}

/** Where a listening app is reached: `http://127.0.0.1:8081`, `https://[::1]:8443`. */
export function listenUrl(app: FastifyInstance, tls = false): string {
  const a = app.server.address();
  if (typeof a !== 'object' || a === null) return String(a);
  return `${tls ? 'https' : 'http'}://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
}
