/**
 * Spans on the request path: started only while the process exports traces (setup.ts), so that a process without
 * a collector allocates nothing for them; the trace context of the active span (ours, or a caller's passed through)
 * is what goes out to providers, agents, peers and MCP servers.
 */
import {
  context,
  propagation,
  trace,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
  type TimeInput,
} from '@opentelemetry/api';
import { VERSION } from '../../platform/version.js';
import { redactText } from '../redact/index.js';
import { tracingState } from './state.js';

export { SpanKind } from '@opentelemetry/api';
export type { Context, Span } from '@opentelemetry/api';

/** Longest text an attribute carries (a reason, captured content); longer is cut. */
export const MAX_ATTRIBUTE_CHARS = 4096;

/** Starts a span under `parent` (the active context by default) while traces are exported; else undefined. */
export function startSpan(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: Context = context.active(),
  startTime?: TimeInput,
): Span | undefined {
  if (!tracingState.traces) return undefined;
  return trace.getTracer('steward', VERSION).startSpan(name, { kind, attributes, startTime }, parent);
}

/** Runs `fn` with `span` active: its async continuations too, so that child spans and outgoing headers see it. */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** The context with `span` active (the active one when there is no span). */
export function contextOf(span: Span | undefined): Context {
  return span ? trace.setSpan(context.active(), span) : context.active();
}

/** Ends `span`, as failed with `errorType` (`error.type`) when one is given. */
export function endSpan(span: Span | undefined, errorType?: string, message?: string): void {
  if (!span) return;
  if (errorType !== undefined) {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message: safeText(message) } : {}) });
  }
  span.end();
}

/**
 * Adds the active trace context (`traceparent`, `tracestate`) to `headers`, when there is one: the process's own
 * span, or a caller's context passed through while export is off. Returns `headers`.
 */
export function traceHeaders<T extends Record<string, string>>(headers: T): T {
  const active = context.active();
  if (trace.getSpan(active) === undefined) return headers;
  propagation.inject(active, headers);
  return headers;
}

/** The active trace's id (32 hex digits), or undefined outside a trace. */
export function activeTraceId(): string | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const sc = span.spanContext();
  return trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}

/** An async generator whose every step runs in `ctx` (a governed answer read by a surface outside its span). */
export function inContext<T>(
  ctx: Context,
  gen: AsyncGenerator<T, void, undefined>,
): AsyncGenerator<T, void, undefined> {
  const bound: AsyncGenerator<T, void, undefined> = {
    next: (...args) => context.with(ctx, () => gen.next(...args)),
    return: (value) => context.with(ctx, () => gen.return(value)),
    throw: (err) => context.with(ctx, () => gen.throw(err)),
    [Symbol.asyncIterator]: () => bound,
    [Symbol.asyncDispose]: () => context.with(ctx, () => gen.return()).then(() => undefined),
  };
  return bound;
}

/**
 * Text that may go into an attribute: every detector kind masked (whatever the organization's policies say) and
 * bounded. Policy messages and captured content pass through it: a trace never carries what a detector finds.
 */
export function safeText(text: string, max = MAX_ATTRIBUTE_CHARS): string {
  const masked = redactText(text.length > max ? text.slice(0, max) : text, {});
  return masked.length > max ? masked.slice(0, max) : masked;
}
