/**
 * What both A2A bindings share once a request is set up (routes.ts `prepare`): the request's parts, and how an
 * answer goes out (an event stream, the activated extensions).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Sdk } from './sdk.js';

/** One A2A request, set up: the SDK, its handler over the called card, and the call context it runs in. */
export interface A2aRequest {
  sdk: Sdk;
  handler: InstanceType<Sdk['DefaultRequestHandler']>;
  ctx: InstanceType<Sdk['ServerCallContext']>;
}

/** The two bindings a card lists, as `validateVersion` names them. */
export type A2aBinding = 'JSONRPC' | 'HTTP+JSON';

/**
 * Sets up one request of either binding: the card called (`name`, or the Orchestrator's), the caller's identity
 * narrowed to `tenant` (403 for a key bound to another), the call context with the requested extensions, and the
 * version check, which throws the SDK's VersionNotSupportedError for the binding to answer in its own shape.
 */
export type A2aPrepare = (
  req: FastifyRequest,
  name: string | undefined,
  tenant: unknown,
  binding: A2aBinding,
) => Promise<A2aRequest>;

/** How a binding frames an event stream: each event, a failure before the first (a plain answer), one after. */
export interface SseFraming {
  frame(event: unknown): string;
  early(err: unknown): unknown;
  late(err: unknown): string;
}

/** An SSE answer of a streaming method; a failure before its first event is the binding's plain error instead. */
export async function sse(reply: FastifyReply, events: AsyncGenerator<unknown, void, undefined>, framing: SseFraming) {
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (err) {
    return framing.early(err);
  }
  async function* frames() {
    try {
      if (!first.done) yield framing.frame(first.value);
      for (let r = await events.next(); !r.done; r = await events.next()) yield framing.frame(r.value);
    } catch (err) {
      yield framing.late(err);
    } finally {
      await events.return(undefined);
    }
  }
  void reply.headers({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  return reply.send(Readable.from(frames(), { objectMode: false }));
}

/** The extensions the SDK activated for this request, echoed as A2A asks. */
export function activated(reply: FastifyReply, { sdk, ctx }: A2aRequest): void {
  const on = ctx.activatedExtensions;
  if (on?.length) void reply.header('a2a-extensions', sdk.Extensions.toServiceParameter(on));
}

export function isStream(out: unknown): out is AsyncGenerator<unknown, void, undefined> {
  return typeof (out as AsyncGenerator | undefined)?.[Symbol.asyncIterator] === 'function';
}
