/**
 * How the gateway hands a `multi-agent-plan` request to the orchestrator's `POST /api/v1/plan`, with the caller's
 * verified identity signed into X-Steward-Identity (runtime/auth/internal-identity.ts): over HTTP to
 * STEWARD_ORCHESTRATOR_URL, or, in standalone, to the orchestrator app of the same process (no socket).
 */
import type { FastifyInstance } from 'fastify';
import type { Identity } from '../auth/identity.js';
import { INTERNAL_IDENTITY_HEADER, signIdentity } from '../auth/internal-identity.js';

export interface ForwardedPlan {
  status: number;
  body: Record<string, unknown>;
  /** Retry-After and X-RateLimit-* of the answer, to pass on. */
  headers: Record<string, string>;
}

const PASSED_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function passedHeaders(get: (name: string) => string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of PASSED_HEADERS) {
    const v = get(h);
    if (v !== undefined) out[h] = v;
  }
  return out;
}

export interface PlanForwarder {
  /** Rejects when the orchestrator cannot be reached or answers something that is not a JSON object. */
  forward(body: Record<string, unknown>, identity: Identity, requestId: string, signal: AbortSignal): Promise<ForwardedPlan>;
}

/** The orchestrator could not be reached or answered nonsense (503 SERVICE_UNAVAILABLE at the gateway). */
export class OrchestratorUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OrchestratorUnreachableError';
  }
}

/** A plan's whole budget at the orchestrator is 110 s; the gateway waits a little longer for its answer. */
const FORWARD_TIMEOUT_MS = 115_000;
const PLAN_PATH = '/api/v1/plan';

function headers(identity: Identity, requestId: string, secret: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-request-id': requestId, [INTERNAL_IDENTITY_HEADER]: signIdentity(identity, requestId, secret) };
}

function objectBody(text: string, status: number, headers: Record<string, string>): ForwardedPlan {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new OrchestratorUnreachableError(`the orchestrator answered ${status} with a body that is not JSON`, { cause: err });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OrchestratorUnreachableError(`the orchestrator answered ${status} without a JSON object`);
  return { status, body: body as Record<string, unknown>, headers };
}

/** Over HTTP(S) to `baseUrl` (STEWARD_ORCHESTRATOR_URL). */
export function httpPlanForwarder(baseUrl: string, secret: string): PlanForwarder {
  const url = new URL(PLAN_PATH, baseUrl).toString();
  return {
    async forward(body, identity, requestId, signal) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: headers(identity, requestId, secret),
          body: JSON.stringify(body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
        });
      } catch (err) {
        signal.throwIfAborted();
        throw new OrchestratorUnreachableError(`the orchestrator at ${baseUrl} cannot be reached: ${(err as Error).message}`, { cause: err });
      }
      return objectBody(await res.text(), res.status, passedHeaders((h) => res.headers.get(h) ?? undefined));
    },
  };
}

/** To the orchestrator app of this process (standalone); `app` is read at each call, so it may be built later. */
export function inProcessPlanForwarder(app: () => FastifyInstance, secret: string): PlanForwarder {
  return {
    async forward(body, identity, requestId) {
      const res = await app().inject({ method: 'POST', url: PLAN_PATH, headers: headers(identity, requestId, secret), payload: JSON.stringify(body) });
      return objectBody(res.body, res.statusCode, passedHeaders((h) => { const v = res.headers[h]; return v === undefined ? undefined : String(v); }));
    },
  };
}
