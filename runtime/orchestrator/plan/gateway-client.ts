/**
 * How a plan's connector-call step reaches the gateway's governed connector path (`POST /mcp/resources/query`,
 * `POST /mcp/tools/execute`: tenancy, SQL guard, policies, audit) with the caller's verified identity signed into
 * X-Steward-Identity (runtime/auth/internal-identity.ts, ADR 0007) and bound to the step's request id: over HTTP
 * to STEWARD_GATEWAY_URL, or, in standalone, to the gateway app of the same process (no socket). The reverse of
 * runtime/gateway/plan-forward.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { Identity } from '../../auth/identity.js';
import { INTERNAL_IDENTITY_HEADER, signIdentity } from '../../auth/internal-identity.js';

/** The gateway's answer: its status and JSON body (the gateway's `{success, ...}` or `{success: false, code, error}`). */
export interface GatewayAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface ConnectorGateway {
  /** Rejects with GatewayUnreachableError when the gateway cannot be reached or answers something that is not JSON. */
  call(path: ConnectorPath, body: Record<string, unknown>, identity: Identity, requestId: string, signal: AbortSignal): Promise<GatewayAnswer>;
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

function headers(identity: Identity, requestId: string, secret: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-request-id': requestId, [INTERNAL_IDENTITY_HEADER]: signIdentity(identity, requestId, secret) };
}

function answer(text: string, status: number): GatewayAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new GatewayUnreachableError(`the gateway answered ${status} with a body that is not JSON`, { cause: err });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GatewayUnreachableError(`the gateway answered ${status} without a JSON object`);
  return { status, body: body as Record<string, unknown> };
}

/** Over HTTP(S) to `baseUrl` (STEWARD_GATEWAY_URL, the gateway Service). */
export function httpConnectorGateway(baseUrl: string, secret: string): ConnectorGateway {
  return {
    async call(path, body, identity, requestId, signal) {
      let res: Response;
      try {
        res = await fetch(new URL(path, baseUrl), {
          method: 'POST',
          headers: headers(identity, requestId, secret),
          body: JSON.stringify(body),
          signal: AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]),
        });
      } catch (err) {
        signal.throwIfAborted();
        throw new GatewayUnreachableError(`the gateway at ${baseUrl} cannot be reached: ${(err as Error).message}`, { cause: err });
      }
      return answer(await res.text(), res.status);
    },
  };
}

/** To the gateway app of this process (standalone); `app` is read at each call, so it may be built later. */
export function inProcessConnectorGateway(app: () => FastifyInstance | undefined, secret: string): ConnectorGateway {
  return {
    async call(path, body, identity, requestId, signal) {
      const gateway = app();
      if (!gateway) throw new GatewayUnreachableError('the gateway of this process is not built yet');
      signal.throwIfAborted();
      const res = await gateway.inject({ method: 'POST', url: path, headers: headers(identity, requestId, secret), payload: JSON.stringify(body) });
      return answer(res.body, res.statusCode);
    },
  };
}
