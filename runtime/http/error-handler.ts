import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Surface } from '../../api/index.js';
import { echo } from './errors.js';
import { bounded, errorAnswer, type ErrorBodyRenderer, type ErrorMapping, type RenderedError } from './error-model.js';

/**
 * Body shapes of the reference: the Agent answers `{success: false, error: "<message>"}` (we add `code`);
 * the Orchestrator surfaces answer `{success: false, error: {code, message, details?, request_id, timestamp}}`.
 */
export type ErrorStyle = 'agent' | 'envelope';

type ErrorFields = Pick<RenderedError, 'code' | 'message' | 'details'>;

/** `{success: false, error: "<message>", code, request_id, details?}`. */
const agentErrorBody = (e: ErrorFields, requestId: string): Record<string, unknown> => ({
  success: false,
  error: e.message,
  code: e.code,
  request_id: requestId,
  ...(e.details ? { details: e.details } : {}),
});

/** `{success: false, error: {code, message, details?, request_id, timestamp}}`. */
const envelopeErrorBody = (e: ErrorFields, requestId: string): Record<string, unknown> => ({
  success: false,
  error: {
    code: e.code,
    message: e.message,
    ...(e.details ? { details: e.details } : {}),
    request_id: requestId,
    timestamp: new Date().toISOString(),
  },
});

/** The renderer of each style. */
export const ERROR_BODIES = { agent: agentErrorBody, envelope: envelopeErrorBody } as const satisfies Record<
  ErrorStyle,
  ErrorBodyRenderer
>;

export interface ErrorBodyInput extends ErrorFields {
  requestId: string;
}

/** A style's body for an error that does not go through the error handler (a parser error, a plan's own answer). */
export function errorBody(style: ErrorStyle, input: ErrorBodyInput): Record<string, unknown> {
  const { requestId, ...e } = input;
  return ERROR_BODIES[style](bounded(e), requestId);
}

/** Installs the error and not-found handlers of one surface. Every failure leaves as JSON with a code. */
export function installErrorHandling(app: FastifyInstance, surface: Surface, style: ErrorStyle): void {
  installErrorHandler(app, surface, style);
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(
      errorBody(style, {
        code: 'NOT_FOUND',
        message: `no route ${req.method} ${echo(req.url.split('?')[0]!)}`,
        requestId: req.id,
      }),
    );
  });
}

/**
 * The error handler alone, for an encapsulated scope that answers in another surface's catalogue (the
 * orchestrator's `/orchestrator/*` routes) or body shape (the provider-compatible routes, which pass their mapping
 * and renderer): errors of other surfaces are answered with this surface's code for them (error-model.ts).
 */
export function installErrorHandler(
  app: FastifyInstance,
  surface: Surface | ErrorMapping,
  style: ErrorStyle | ErrorBodyRenderer,
): void {
  const render: ErrorBodyRenderer = typeof style === 'function' ? style : ERROR_BODIES[style];
  const mapping: ErrorMapping = typeof surface === 'string' ? { surface } : surface;
  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const answer = reply.raw.destroyed ? undefined : errorAnswer(err, mapping, render, req.id, req.log);
    if (!answer) {
      // The client went away; there is nobody to answer.
      req.log.info({ code: 'CLIENT_CLOSED' }, 'client closed the connection before the answer');
      reply.hijack();
      return;
    }
    if (answer.headers) void reply.headers(answer.headers);
    return reply.code(answer.status).send(answer.body);
  });
}
