/**
 * How the gateway hands a `multi-agent-plan` request to the orchestrator's `POST /api/v1/plan`, with the caller's
 * verified identity signed into X-Steward-Identity (runtime/auth/internal-identity.ts): over HTTP to
 * STEWARD_ORCHESTRATOR_URL, or, in standalone, to the orchestrator app of the same process (no socket).
 */
import type { FastifyInstance } from 'fastify';
import type { Identity } from '../auth/identity.js';
import { httpPeer, inProcessPeer, type PeerOptions, type SignedPeer } from '../auth/signed-peer.js';

export interface ForwardedPlan {
  status: number;
  body: Record<string, unknown>;
  /** Retry-After and X-RateLimit-* of the answer, to pass on. */
  headers: Record<string, string>;
}

export interface PlanForwarder {
  /** Rejects when the orchestrator cannot be reached or answers something that is not a JSON object. */
  forward(
    body: Record<string, unknown>,
    identity: Identity,
    requestId: string,
    signal: AbortSignal,
  ): Promise<ForwardedPlan>;
  /** The orchestrator's `GET /api/v1/pool`, asked as the caller; rejects as `forward` does. */
  pool(identity: Identity, requestId: string, signal: AbortSignal): Promise<ForwardedPlan>;
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
const POOL_PATH = '/api/v1/pool';

const peerOptions = (secret: string): PeerOptions => ({
  secret,
  name: 'the orchestrator',
  unreachable: (message, cause) => new OrchestratorUnreachableError(message, { cause }),
  passHeaders: ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
});

const forwarder = (peer: SignedPeer): PlanForwarder => ({
  forward: (body, identity, requestId, signal) => peer.post(PLAN_PATH, body, identity, requestId, signal),
  pool: (identity, requestId, signal) => peer.get(POOL_PATH, identity, requestId, signal),
});

/** Over HTTP(S) to `baseUrl` (STEWARD_ORCHESTRATOR_URL). */
export function httpPlanForwarder(baseUrl: string, secret: string): PlanForwarder {
  return forwarder(httpPeer(baseUrl, FORWARD_TIMEOUT_MS, peerOptions(secret)));
}

/** To the orchestrator app of this process (standalone); `app` is read at each call, so it may be built later. */
export function inProcessPlanForwarder(app: () => FastifyInstance, secret: string): PlanForwarder {
  return forwarder(inProcessPeer(app, peerOptions(secret)));
}
