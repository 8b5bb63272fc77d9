/**
 * How a plan's connector-call step reaches the gateway's governed connector path (`POST /mcp/resources/query`,
 * `POST /mcp/tools/execute`: tenancy, SQL guard, policies, audit) with the caller's verified identity signed into
 * X-Steward-Identity (runtime/auth/internal-identity.ts, ADR 0007) and bound to the step's request id: over HTTP
 * to STEWARD_GATEWAY_URL, or, in standalone, to the gateway app of the same process (no socket). The reverse of
 * runtime/gateway/plan-forward.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { Identity } from '../../auth/identity.js';
import { httpPeer, inProcessPeer, type PeerOptions, type SignedPeer } from '../../auth/signed-peer.js';

/** The gateway's answer: its status and JSON body (the gateway's `{success, ...}` or `{success: false, code, error}`). */
export interface GatewayAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface ConnectorGateway {
  /** Rejects with GatewayUnreachableError when the gateway cannot be reached or answers something that is not JSON. */
  call(
    path: ConnectorPath,
    body: Record<string, unknown>,
    identity: Identity,
    requestId: string,
    signal: AbortSignal,
  ): Promise<GatewayAnswer>;
  /** `GET /api/approvals/{id}` (a parked step's approval), under the same identity. */
  approval(id: string, identity: Identity, requestId: string, signal: AbortSignal): Promise<GatewayAnswer>;
}

export type ConnectorPath = '/mcp/resources/query' | '/mcp/tools/execute';

/** The gateway could not be reached or answered nonsense: the step fails with SERVICE_UNAVAILABLE. */
export class GatewayUnreachableError extends Error {
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GatewayUnreachableError';
  }
}

/** A connector call's budget at the gateway is the connector's timeout (at most 10 min); the step waits no longer. */
const CALL_TIMEOUT_MS = 600_000;

const peerOptions = (secret: string): PeerOptions => ({
  secret,
  name: 'the gateway',
  unreachable: (message, cause) => new GatewayUnreachableError(message, { cause }),
});

const client = (peer: SignedPeer): ConnectorGateway => ({
  call: async (path, body, identity, requestId, signal) => {
    const { status, body: answer } = await peer.post(path, body, identity, requestId, signal);
    return { status, body: answer };
  },
  approval: async (id, identity, requestId, signal) => {
    const { status, body } = await peer.get(`/api/approvals/${encodeURIComponent(id)}`, identity, requestId, signal);
    return { status, body };
  },
});

/** Over HTTP(S) to `baseUrl` (STEWARD_GATEWAY_URL, the gateway Service). */
export function httpConnectorGateway(baseUrl: string, secret: string): ConnectorGateway {
  return client(httpPeer(baseUrl, CALL_TIMEOUT_MS, peerOptions(secret)));
}

/** To the gateway app of this process (standalone); `app` is read at each call, so it may be built later. */
export function inProcessConnectorGateway(app: () => FastifyInstance | undefined, secret: string): ConnectorGateway {
  return client(inProcessPeer(app, peerOptions(secret)));
}
