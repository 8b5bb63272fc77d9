import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUES, type Surface } from '../../api/index.js';
import type { Logger } from '../../platform/log.js';
import { errorBody, type ErrorStyle } from './error-handler.js';

/** What node's HTTP parser reports, as a catalogue code (present in every surface's catalogue). */
function clientErrorCode(code: string | undefined): {
  code: 'REQUEST_TIMEOUT' | 'HEADERS_TOO_LARGE' | 'INVALID_REQUEST';
  message: string;
} {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      code: 'REQUEST_TIMEOUT',
      message: 'the request did not arrive within the server timeout; the connection is closed',
    };
  if (code === 'HPE_HEADER_OVERFLOW')
    return { code: 'HEADERS_TOO_LARGE', message: 'the request headers exceed the server limit' };
  return { code: 'INVALID_REQUEST', message: 'malformed HTTP request' };
}

/**
 * The server's `clientError` handler: errors node's HTTP parser finds before fastify sees a request (malformed
 * request line or headers, headers too large, header or request timeout) get the surface's JSON error body with
 * a code and a fresh request id, then the socket closes (node's own behaviour, with our body).
 */
export function installClientErrorAnswers(surface: Surface, style: ErrorStyle, log: Logger) {
  return function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const { code, message } = clientErrorCode(err.code);
    const status = (ERROR_CATALOGUES[surface] as Record<string, { status: number }>)[code]!.status;
    const requestId = randomUUID();
    log.debug({ err: err.message, code, parserCode: err.code, requestId }, 'client error');
    // NB: as node does: nothing is written once an answer to this socket has started.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const body = JSON.stringify(errorBody(style, { code, message, requestId }));
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-ID: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

/** fastify's `frameworkErrors`: a URL it cannot route (bad encoding, parameter too long) is a 400 in our shape. */
export function frameworkErrorAnswer(style: ErrorStyle) {
  return (error: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply): void => {
    void reply
      .code(400)
      .header('x-request-id', req.id)
      .send(
        errorBody(style, {
          code: 'INVALID_REQUEST',
          message: `the request URL cannot be routed (${error.code ?? error.name})`,
          requestId: req.id,
        }),
      );
  };
}
