import type { FastifyPluginAsync } from 'fastify';
import { createClientRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import type { GatewayDeps } from '../deps.js';
import { parseBody } from '../validation.js';

const view = (c: { id: string; name: string; description: string; tenantId: string | null; createdAt: Date }) => ({
  id: c.id,
  name: c.name,
  description: c.description,
  ...(c.tenantId ? { tenant_id: c.tenantId } : {}),
  created_at: c.createdAt.toISOString(),
});

/**
 * Client management needs the organization's license key (or community mode): an API key cannot mint more keys.
 * A key created with X-Tenant-ID is limited to that tenant.
 */
export const clientRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  app.get('/api/clients', { config: { auth: { require: 'license-key', feature: 'clients' } } }, async (req) => {
    const identity = identityOf(req);
    const all = await deps.store.clients.list(identity.organizationId);
    const visible = identity.tenantId ? all.filter((c) => c.tenantId === identity.tenantId) : all;
    return { clients: visible.map(view), count: visible.length };
  });

  app.post('/api/clients', { config: { auth: { require: 'license-key', feature: 'clients' } } }, async (req, reply) => {
    const body = parseBody(createClientRequest, req.body);
    const identity = identityOf(req);
    const { client, apiKey } = await deps.store.clients.create({
      organizationId: identity.organizationId,
      tenantId: identity.tenantId,
      name: body.name,
      description: body.description,
      env: deps.environmentName,
    });
    req.log.info({ clientId: client.id, organizationId: identity.organizationId }, 'client created');
    return reply.code(201).send({ ...view(client), api_key: apiKey });
  });
};
