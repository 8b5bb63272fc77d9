import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Surface } from '../../api/index.js';
import { ApiError, echo, fastifyErrorCode } from './errors.js';
import { inSurface } from './route-auth.js';

/** The longest message an error body carries; longer ones (a message that repeats input) are cut. */
const MAX_MESSAGE_CHARS = 1024;

/**
 * Body shapes of the reference: the Agent answers `{success: false, error: "<message>"}` (we add `code`);
 * the Orchestrator surfaces answer `{success: false, error: {code, message, details?, request_id, timestamp}}`.
 */
export type ErrorStyle = 'agent' | 'envelope';

export interface ErrorBodyInput {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  requestId: string;
}

export function errorBody(style: ErrorStyle, input: ErrorBodyInput): Record<string, unknown> {
  const e = input.message.length > MAX_MESSAGE_CHARS ? { ...input, message: echo(input.message, MAX_MESSAGE_CHARS) } : input;
  if (style === 'agent') return { success: false, error: e.message, code: e.code, request_id: e.requestId, ...(e.details ? { details: e.details } : {}) };
  return {
    success: false,
    error: {
      code: e.code,
      message: e.message,
      ...(e.details ? { details: e.details } : {}),
      request_id: e.requestId,
      timestamp: new Date().toISOString(),
    },
  };
}

/** Installs the error and not-found handlers of one surface. Every failure leaves as JSON with a code. */
export function installErrorHandling(app: FastifyInstance, surface: Surface, style: ErrorStyle): void {
  installErrorHandler(app, surface, style);
  app.setNotFoundHandler((req, reply) => {
    void reply
      .code(404)
      .send(errorBody(style, { code: 'NOT_FOUND', message: `no route ${req.method} ${echo(req.url.split('?')[0]!)}`, requestId: req.id }));
  });
}

/**
 * The error handler alone, for an encapsulated scope that serves another surface than its app (the orchestrator's
 * `/orchestrator/*` routes): errors of other surfaces are answered with this surface's code for them.
 */
export function installErrorHandler(app: FastifyInstance, surface: Surface, style: ErrorStyle): void {
  const invalidJson = surface === 'gateway' ? 'INVALID_JSON' : 'INVALID_REQUEST';

  app.setErrorHandler((thrown: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) => {
    const err = thrown instanceof ApiError ? (inSurface(thrown, surface) as ApiError) : thrown;
    if (reply.raw.destroyed || err.name === 'LlmAbortedError') {
      // The client went away; there is nobody to answer.
      req.log.info({ code: 'CLIENT_CLOSED' }, 'client closed the connection before the answer');
      reply.hijack();
      return;
    }
    if (err instanceof ApiError) {
      if (err.status >= 500) req.log.error({ err, code: err.code }, 'request failed');
      if (err.headers) void reply.headers(err.headers);
      return reply.code(err.status).send(errorBody(style, { code: err.code, message: err.message, details: err.details, requestId: req.id }));
    }
    if ((err as FastifyError).validation) {
      return reply.code(400).send(errorBody(style, { code: 'INVALID_REQUEST', message: err.message, requestId: req.id }));
    }
    const mapped = fastifyErrorCode(err as FastifyError);
    if (mapped) {
      const code = mapped.code === 'INVALID_REQUEST' && /JSON|body/i.test(err.message) ? invalidJson : mapped.code;
      // NB: fastify's messages repeat input (the Content-Type, a JSON fragment): bounded like every echo.
      return reply.code(mapped.status).send(errorBody(style, { code, message: echo(err.message, 200), requestId: req.id }));
    }
    req.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .send(errorBody(style, { code: 'INTERNAL_ERROR', message: 'internal error; see the server log with this request_id', requestId: req.id }));
  });
}
