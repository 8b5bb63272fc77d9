/**
 * Where the gateway accepts an identity an orchestrator forwards (X-Steward-Identity, ADR 0007): the governed
 * connector call routes, which a plan's connector-call steps use, and the read of one approval, which a step waiting
 * for its parked call polls (docs/approvals.md). Anywhere else the header is refused before the credential check,
 * so that the shared secret opens the connector path and nothing more: a forwarded identity never answers an
 * approval.
 */
import type { FastifyInstance } from 'fastify';
import { INTERNAL_IDENTITY_HEADER } from '../auth/internal-identity.js';
import { ApiError } from '../http/errors.js';

/** The routes a forwarded identity may call (runtime/orchestrator/plan/gateway-client.ts). */
export const FORWARDED_IDENTITY_ROUTES: ReadonlySet<string> = new Set([
  'POST /mcp/resources/query',
  'POST /mcp/tools/execute',
  'GET /api/approvals/:id',
]);

export function forwardedIdentityRoutes(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    if (req.headers[INTERNAL_IDENTITY_HEADER] === undefined) return;
    if (!FORWARDED_IDENTITY_ROUTES.has(`${req.method} ${req.routeOptions.url ?? ''}`)) {
      throw new ApiError('gateway', 'UNAUTHORIZED', 'X-Steward-Identity is accepted on the connector call routes only');
    }
  });
}
