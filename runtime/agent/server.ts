/**
 * The pool agent's HTTP surface: `POST /v1/work`, `GET /v1/stats`, `GET /healthz`, `GET /readyz`. Built, not
 * started (main.ts listens). With a certificate it serves HTTP/2 over TLS 1.3 and HTTP/1.1 to clients that do
 * not offer h2 in ALPN (probes, curl); without one, plain HTTP/1.1.
 *
 * NB: no cleartext HTTP/2 (h2c). Node's http2.createServer speaks HTTP/2 only (its `allowHTTP1` works with TLS,
 * where ALPN chooses), so an h2c port would refuse every HTTP/1.1 client, the kubelet's HTTP probes included.
 */
import type { Http2SecureServer } from 'node:http2';
import Fastify, { type FastifyHttp2SecureOptions, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { z } from 'zod';
import { agentProbe, agentStats, workItem, workResult } from '../../api/http/agent.js';
import type { Logger } from '../../platform/log.js';
import { baseServerOptions, DEFAULT_CONNECTION_SETTINGS, type ConnectionSettings } from '../http/app.js';
import { bearerTokenMatcher } from '../http/bearer.js';
import { frameworkErrorAnswer, installClientErrorAnswers } from '../http/client-errors.js';
import { installErrorHandling } from '../http/error-handler.js';
import { ApiError, echo } from '../http/errors.js';
import { installJsonParser } from '../http/json-parser.js';
import { routeAuth } from '../http/route-auth.js';
import { responseSchema } from '../http/serializer.js';
import { installTracing } from '../tracing/index.js';
import type { LocalAgent } from './executor.js';
import { AgentBusyError, AgentClosedError, type WorkItem } from './work.js';

export interface AgentTls {
  /** PEM certificate chain */
  cert: string | Buffer;
  /** PEM private key */
  key: string | Buffer;
}

export interface AgentServerDeps {
  agent: LocalAgent;
  log: Logger;
  bodyLimitBytes: number;
  /** @default DEFAULT_CONNECTION_SETTINGS */
  connections?: ConnectionSettings;
  /** HTTP/2 over TLS 1.3 (HTTP/1.1 by ALPN); absent: plain HTTP/1.1. */
  tls?: AgentTls;
  /** The bearer token /v1/work and /v1/stats require; absent only on loopback (cmd/config/env.ts enforces it). */
  token?: string;
}

const SURFACE = 'agent' as const;
const NO_AUTH = { auth: { require: 'none' as const } };
/** The caller's token (STEWARD_AGENT_TOKEN), when the agent has one. */
const CALLER = { auth: { require: 'any' as const } };
/** The most field problems one 400 lists. */
const MAX_FIELDS = 20;

/**
 * The agent's app. /v1/work and /v1/stats take the shared token (STEWARD_AGENT_TOKEN) the orchestrator's pool
 * sends; the probes stay public for the kubelet. Without a token the agent may only listen on loopback
 * (docs/agent.md, Security).
 */
export interface AgentServer {
  app: FastifyInstance;
  /**
   * Resolves once no request is being answered. Shutdown waits for it before closing the server: closing sends
   * HTTP/2 sessions a GOAWAY, and undici fails the request in flight on a GOAWAY (even a graceful one), so an
   * answer still being written would be lost.
   */
  idle(): Promise<void>;
}

export function buildAgentServer(deps: AgentServerDeps): AgentServer {
  const c = deps.connections ?? DEFAULT_CONNECTION_SETTINGS;
  const common: FastifyServerOptions = {
    ...baseServerOptions(deps.log, deps.bodyLimitBytes, c),
    // NB: not fastify's bare 503 while draining: requests on open connections reach the routes, which answer
    // 503 AGENT_CLOSING (work) and a not-ready /readyz with the catalogue's body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    frameworkErrors: frameworkErrorAnswer('envelope'),
  };
  // NB: fastify types an HTTP/2 instance apart from an HTTP/1 one; the routes below use neither's specifics.
  const app = (deps.tls
    ? Fastify({
        ...(common as FastifyHttp2SecureOptions<Http2SecureServer>),
        http2: true,
        // The session idles out like a keep-alive connection.
        http2SessionTimeout: c.keepAliveTimeoutMs,
        https: { allowHTTP1: true, minVersion: 'TLSv1.3', cert: deps.tls.cert, key: deps.tls.key },
      })
    : Fastify({
        ...common,
        http: { headersTimeout: Math.min(c.headersTimeoutMs, c.requestTimeoutMs), connectionsCheckingInterval: 1000 },
        clientErrorHandler: installClientErrorAnswers(SURFACE, 'envelope', deps.log),
      })) as unknown as FastifyInstance;
  app.server.maxConnections = c.maxConnections;
  installJsonParser(app, SURFACE);
  installErrorHandling(app, SURFACE, 'envelope');
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  const matches = bearerTokenMatcher(deps.token);
  void app.register(routeAuth, {
    surface: SURFACE,
    check: (req) => {
      if (deps.token === undefined) return;
      if (!matches(req.headers.authorization)) {
        throw new ApiError(
          SURFACE,
          'UNAUTHORIZED',
          'send the agent token as Authorization: Bearer <STEWARD_AGENT_TOKEN>',
        );
      }
    },
  });
  const { agent } = deps;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Requests being answered, so that shutdown can wait for them before the server closes its connections.
  let active = 0;
  let onIdle: (() => void) | undefined;
  installTracing(app);
  app.addHook('onRequest', (_req, reply, done) => {
    active++;
    reply.raw.once('close', () => {
      if (--active === 0) onIdle?.();
    });
    done();
  });
  // NB: a keep-alive connection that carried an answer while the agent drains would stay open until its idle
  // timeout; HTTP/1.1 is told to close (HTTP/2 sessions get their GOAWAY when the server closes).
  app.addHook('onSend', (req, reply, payload, done) => {
    if (!agent.accepting && req.raw.httpVersionMajor === 1) void reply.header('connection', 'close');
    done(null, payload);
  });

  app.post(
    '/v1/work',
    { config: CALLER, schema: { response: { 200: responseSchema(workResult) } } },
    async (req, reply) => {
      const item = parseWorkItem(req.body);
      const controller = new AbortController();
      // The pool gave up on this item (its own deadline, or the parallel request ended): stop the work.
      const onClose = () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('the caller closed the request'));
      };
      reply.raw.once('close', onClose);
      try {
        return await agent.execute(item, controller.signal);
      } catch (err) {
        if (err instanceof AgentBusyError)
          throw new ApiError(SURFACE, 'AGENT_BUSY', err.message, {
            agent_id: agent.id,
            max_in_flight: agent.maxInFlight,
          });
        if (err instanceof AgentClosedError) throw new ApiError(SURFACE, 'AGENT_CLOSING', err.message);
        if (controller.signal.aborted) {
          req.log.info(
            { code: 'CLIENT_CLOSED', requestId: item.requestId, queryIndex: item.queryIndex },
            'work item aborted by the caller',
          );
          return reply.hijack();
        }
        throw err;
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );

  app.get('/v1/stats', { config: CALLER, schema: { response: { 200: responseSchema(agentStats) } } }, async () =>
    agent.stats(),
  );

  const probeSchema = { response: { 200: responseSchema(agentProbe), 503: responseSchema(agentProbe) } };
  app.get('/healthz', { config: NO_AUTH, schema: probeSchema }, async () => ({
    status: 'ok' as const,
    agentId: agent.id,
  }));
  app.get('/readyz', { config: NO_AUTH, schema: probeSchema }, async (_req, reply) => {
    const reason = closing || !agent.accepting ? 'the agent is shutting down' : agent.notReadyReason();
    if (reason === undefined) return { status: 'ok' as const, agentId: agent.id };
    return reply.code(503).send({ status: 'not-ready' as const, agentId: agent.id, reason });
  });
  return {
    app,
    idle: () =>
      active === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onIdle = () => {
              onIdle = undefined;
              resolve();
            };
          }),
  };
}

/** The body as a WorkItem, or 400 INVALID_REQUEST naming every bad field. */
function parseWorkItem(body: unknown): WorkItem {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(SURFACE, 'INVALID_REQUEST', 'the body must be a JSON object (a work item)');
  }
  const result = (workItem as z.ZodType<WorkItem>).safeParse(body);
  if (result.success) return result.data;
  const fields = result.error.issues
    .slice(0, MAX_FIELDS)
    .map((i) => ({ field: i.path.map((p) => echo(String(p))).join('.') || '(body)', message: i.message }));
  throw new ApiError(
    SURFACE,
    'INVALID_REQUEST',
    `invalid work item: ${fields.map((f) => `${f.field} (${f.message})`).join('; ')}`,
    { fields },
  );
}
