import type { FastifyPluginAsync } from 'fastify';
import { createClientRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import { mayAccess, tenantsForWrite } from '../../auth/scope.js';
import { ApiError, echo } from '../../http/errors.js';
import type { ClientRecord } from '../../store/index.js';
import type { ClientRouteOptions } from '../deps.js';
import { parseBody } from '../validation.js';

const view = (c: ClientRecord) => ({
  id: c.id,
  name: c.name,
  description: c.description,
  ...(c.tenantId ? { tenant_id: c.tenantId } : {}),
  ...(c.roles.length ? { roles: c.roles } : {}),
  created_at: c.createdAt.toISOString(),
});

const scopeOf = (c: ClientRecord) => ({ organizationId: c.organizationId, tenants: c.tenantId ? [c.tenantId] : [] });

const ADMIN = { config: { auth: { require: 'license-key', feature: 'clients' } as const } };

/**
 * Client management needs the organization's license key (or community mode): an API key cannot mint more keys
 * or revoke any. A key created with X-Tenant-ID is bound to that tenant; a caller narrowed to a tenant sees and
 * revokes that tenant's keys and the organization-wide ones (runtime/auth/scope.ts).
 */
export const clientRoutes: FastifyPluginAsync<ClientRouteOptions> = async (app, deps) => {
  app.get('/api/clients', ADMIN, async (req) => {
    const identity = identityOf(req);
    const visible = (await deps.store.clients.list(identity.organizationId)).filter((c) =>
      mayAccess(identity, scopeOf(c)),
    );
    return { clients: visible.map(view), count: visible.length };
  });

  app.post('/api/clients', ADMIN, async (req, reply) => {
    const body = parseBody(createClientRequest, req.body);
    const identity = identityOf(req);
    const { client, apiKey } = await deps.store.clients.create({
      organizationId: identity.organizationId,
      tenantId: tenantsForWrite(identity, undefined, 'gateway')?.[0],
      name: body.name,
      description: body.description,
      env: deps.environmentName,
      ...(body.roles?.length ? { roles: [...new Set(body.roles)] } : {}),
    });
    req.log.info({ clientId: client.id, organizationId: identity.organizationId }, 'client created');
    return reply.code(201).send({ ...view(client), api_key: apiKey });
  });

  // NB: keys are looked up in the database on every request (no credential cache), so a revoked key fails at
  // once on every replica, and it fails as revoked (API_KEY_REVOKED), never as an unknown value.
  app.delete<{ Params: { id: string } }>('/api/clients/:id', ADMIN, async (req) => {
    const identity = identityOf(req);
    const client = await deps.store.clients.get(identity.organizationId, req.params.id);
    const at = deps.now();
    if (
      !client ||
      !mayAccess(identity, scopeOf(client)) ||
      !(await deps.store.clients.revoke(identity.organizationId, client.id, at))
    ) {
      throw new ApiError('gateway', 'CLIENT_NOT_FOUND', `no API client ${echo(req.params.id)}`);
    }
    await deps.store.audit.record({
      organizationId: identity.organizationId,
      clientId: client.id,
      contextId: null,
      metadata: {
        event: 'client.revoked',
        revoked_by: identity.licenseName ?? identity.clientId ?? identity.credential,
        ...(client.tenantId ? { tenant_id: client.tenantId } : {}),
      },
    });
    req.log.info({ clientId: client.id, organizationId: identity.organizationId }, 'client revoked');
    return { success: true, id: client.id, revoked_at: at.toISOString() };
  });
};
