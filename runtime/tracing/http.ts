/**
 * A server span per request on every Steward HTTP surface, under the caller's `traceparent` when it sends one, made
 * the active context of the route's handler (its governed calls, outgoing requests and audit rows). While export is
 * off, a caller's trace context is still taken and passed on, without a span of ours.
 */
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SpanKind, startSpan } from './spans.js';
import { tracingState } from './state.js';

const TRACE = Symbol('steward.trace');
const SPAN = Symbol('steward.span');

type Traced = FastifyRequest & { [TRACE]?: Context; [SPAN]?: Span };

/** Installs the hooks; before any route's, so that the handler and the route's own hooks run in the span. */
export function installTracing(app: FastifyInstance): void {
  // NB: callback hooks: an async hook costs a promise per request; with export off and no traceparent, one check.
  app.addHook('onRequest', (req: Traced, _reply, done) => {
    if (!tracingState.traces && req.headers.traceparent === undefined) return done();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const route = req.routeOptions.url;
    const span = startSpan(
      route ? `${req.method} ${route}` : req.method,
      SpanKind.SERVER,
      {
        'http.request.method': req.method,
        'url.path': pathOf(req.url),
        ...(route ? { 'http.route': route } : {}),
        'url.scheme': req.protocol,
      },
      parent,
    );
    req[TRACE] = span ? trace.setSpan(parent, span) : parent;
    if (span) req[SPAN] = span;
    done();
  });
  // NB: the body is parsed between onRequest and here, on the socket's own events: the context is entered here.
  app.addHook('preHandler', (req: Traced, _reply, done) => {
    const ctx = req[TRACE];
    if (ctx) context.with(ctx, done);
    else done();
  });
  app.addHook('onResponse', (req: Traced, reply, done) => {
    end(req, reply);
    done();
  });
  app.addHook('onRequestAbort', (req: Traced, done) => {
    const span = req[SPAN];
    if (span) {
      req[SPAN] = undefined;
      span.setAttribute('error.type', 'client_closed');
      span.end();
    }
    done();
  });
}

function end(req: Traced, reply: FastifyReply): void {
  const span = req[SPAN];
  if (!span) return;
  req[SPAN] = undefined;
  const status = reply.statusCode;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) {
    span.setAttribute('error.type', String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The path without its query (a query may carry anything). */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
