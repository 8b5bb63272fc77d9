/**
 * A JSON POST from one Steward component to another (the gateway's plans to the orchestrator, the orchestrator's
 * connector-call steps to the gateway) with the caller's verified identity signed into X-Steward-Identity
 * (internal-identity.ts, ADR 0007) and bound to the request id: over HTTP(S) to a base URL, or, in standalone, to
 * the app of the same process (no socket). Both directions share it; each names its own unreachable error.
 */
import type { FastifyInstance } from 'fastify';
import type { Identity } from './identity.js';
import { INTERNAL_IDENTITY_HEADER, signIdentity } from './internal-identity.js';
import { traceHeaders } from '../tracing/spans.js';

/** The peer's answer: its status, its JSON object body, and the response headers asked for. */
export interface PeerAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface SignedPeer {
  /** Rejects with the peer's unreachable error when it cannot be reached or answers something that is not a JSON object. */
  post(
    path: string,
    body: Record<string, unknown>,
    identity: Identity,
    requestId: string,
    signal: AbortSignal,
  ): Promise<PeerAnswer>;
  /** A GET, under the same rules as `post`. */
  get(path: string, identity: Identity, requestId: string, signal: AbortSignal): Promise<PeerAnswer>;
}

type Exchange = (
  method: 'GET' | 'POST',
  path: string,
  body: Record<string, unknown> | undefined,
  identity: Identity,
  requestId: string,
  signal: AbortSignal,
) => Promise<PeerAnswer>;

const peerOf = (exchange: Exchange): SignedPeer => ({
  post: (path, body, identity, requestId, signal) => exchange('POST', path, body, identity, requestId, signal),
  get: (path, identity, requestId, signal) => exchange('GET', path, undefined, identity, requestId, signal),
});

export interface PeerOptions {
  /** The identity secret (STEWARD_INTERNAL_SECRET). */
  secret: string;
  /** Names the peer in errors ("the orchestrator", "the gateway"). */
  name: string;
  /** The error a failure to reach the peer becomes. */
  unreachable: (message: string, cause?: unknown) => Error;
  /** Response headers to pass on (lower case). @default none */
  passHeaders?: readonly string[];
}

function signedHeaders(identity: Identity, requestId: string, secret: string): Record<string, string> {
  // NB: the trace goes on across the hop (runtime/tracing): a plan is one trace, gateway to agents.
  return traceHeaders({
    'content-type': 'application/json',
    'x-request-id': requestId,
    [INTERNAL_IDENTITY_HEADER]: signIdentity(identity, requestId, secret),
  });
}

function answerOf(text: string, status: number, get: (name: string) => string | undefined, o: PeerOptions): PeerAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw o.unreachable(`${o.name} answered ${status} with a body that is not JSON`, err);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw o.unreachable(`${o.name} answered ${status} without a JSON object`);
  const headers: Record<string, string> = {};
  for (const h of o.passHeaders ?? []) {
    const v = get(h);
    if (v !== undefined) headers[h] = v;
  }
  return { status, body: body as Record<string, unknown>, headers };
}

/** Over HTTP(S) to `baseUrl`, each call bounded by `timeoutMs` as well as the caller's signal. */
export function httpPeer(baseUrl: string, timeoutMs: number, o: PeerOptions): SignedPeer {
  return peerOf(async (method, path, body, identity, requestId, signal) => {
    let res: Response;
    try {
      const headers = signedHeaders(identity, requestId, o.secret);
      res = await fetch(new URL(path, baseUrl), {
        method,
        headers: body === undefined ? withoutContentType(headers) : headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (err) {
      signal.throwIfAborted();
      throw o.unreachable(`${o.name} at ${baseUrl} cannot be reached: ${(err as Error).message}`, err);
    }
    return answerOf(await res.text(), res.status, (h) => res.headers.get(h) ?? undefined, o);
  });
}

/** To the app of this process (standalone); `app` is read at each call, so it may be built later. */
export function inProcessPeer(app: () => FastifyInstance | undefined, o: PeerOptions): SignedPeer {
  return peerOf(async (method, path, body, identity, requestId, signal) => {
    const target = app();
    if (!target) throw o.unreachable(`${o.name} of this process is not built yet`);
    signal.throwIfAborted();
    const headers = signedHeaders(identity, requestId, o.secret);
    const res = await target.inject({
      method,
      url: path,
      headers: body === undefined ? withoutContentType(headers) : headers,
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return answerOf(
      res.body,
      res.statusCode,
      (h) => (res.headers[h] === undefined ? undefined : String(res.headers[h])),
      o,
    );
  });
}

function withoutContentType(headers: Record<string, string>): Record<string, string> {
  const { 'content-type': _, ...rest } = headers;
  return rest;
}
