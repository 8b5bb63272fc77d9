/**
 * `/api/v1/webhooks[/{id}]` and `/api/v1/webhooks/{id}/deliveries`: Enterprise and Enterprise Plus (the route's
 * `feature`; other tiers get 403 "Feature not available in tier"). Every read and write is the caller's
 * organization's, from the verified identity only, in its tenant scope (runtime/auth/scope.ts): a key bound to a
 * tenant reaches only that tenant's registrations, and a registration made for a tenant hears of its plans only.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { webhookRegistration, webhookUpdate } from '../../../api/http/orchestrator.js';
import { identityOf } from '../../auth/plugin.js';
import { ApiError } from '../../http/errors.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import { parseBody } from '../../gateway/validation.js';
import { tenantsForWrite } from '../../auth/scope.js';
import { webhookScope, type DeliveryRecord, type WebhookRecord } from './repository.js';
import type { WebhookService } from './service.js';
import { registrationProblem } from './ssrf.js';

export interface WebhookRouteDeps {
  webhooks: WebhookService;
  now?: () => Date;
}

const AUTH = { config: { auth: { require: 'any', feature: 'webhooks' } as const } };
/** Deliveries one listing returns, newest first. */
const DELIVERY_PAGE = 100;

const view = (w: WebhookRecord) => ({
  id: w.id,
  url: w.url,
  ...(w.tenantId !== null ? { tenant_id: w.tenantId } : {}),
  events: w.events,
  active: w.active,
  created_at: isoTimestamp(w.createdAt),
  updated_at: isoTimestamp(w.updatedAt),
});

const deliveryView = (d: DeliveryRecord) => ({
  id: d.id,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  plan_id: d.orderKey,
  created_at: isoTimestamp(d.createdAt),
  next_attempt_at: isoTimestamp(d.nextAttemptAt),
  ...(d.deliveredAt ? { delivered_at: isoTimestamp(d.deliveredAt) } : {}),
  ...(d.lastError ? { last_error: d.lastError } : {}),
  ...(d.responseStatus !== null ? { response_status: d.responseStatus } : {}),
  attempt_log: d.attemptLog.map((a) => ({
    attempt: a.attempt,
    started_at: isoTimestamp(a.startedAt),
    duration_ms: Math.round(a.durationMs * 1000) / 1000,
    ...(a.responseStatus !== null ? { response_status: a.responseStatus } : {}),
    ...(a.error ? { error: a.error } : {}),
  })),
});

const notFound = () => new ApiError('plan', 'WEBHOOK_NOT_FOUND', 'webhook not found');

export const webhookRoutes: FastifyPluginAsync<WebhookRouteDeps> = async (app, deps) => {
  const now = deps.now ?? (() => new Date());
  const { webhooks } = deps;
  const checkUrl = (url: string | undefined) => {
    const problem = url === undefined ? undefined : registrationProblem(url, webhooks.allowPrivateTargets);
    if (problem)
      throw new ApiError('plan', 'INVALID_REQUEST', problem, { fields: [{ field: 'url', message: problem }] });
  };

  app.post('/api/v1/webhooks', AUTH, async (req, reply) => {
    const body = parseBody(webhookRegistration, req.body);
    checkUrl(body.url);
    const generated = body.secret === undefined ? `whsec_${randomBytes(24).toString('base64url')}` : undefined;
    const events = [...new Set(body.events)];
    const identity = identityOf(req);
    const tenant = tenantsForWrite(identity, undefined, 'plan')?.[0] ?? null;
    const created = await webhooks.repo.create(
      identity.organizationId,
      tenant,
      { url: body.url, events, secret: body.secret ?? generated!, active: body.active ?? true },
      now(),
    );
    return reply.code(201).send({ ...view(created), ...(generated ? { secret: generated } : {}) });
  });

  app.get('/api/v1/webhooks', AUTH, async (req) => {
    const list = await webhooks.repo.list(webhookScope(identityOf(req)));
    return { webhooks: list.map(view), total: list.length };
  });

  app.get<{ Params: { id: string } }>('/api/v1/webhooks/:id', AUTH, async (req) => {
    const found = await webhooks.repo.get(webhookScope(identityOf(req)), req.params.id);
    if (!found) throw notFound();
    return view(found);
  });

  app.put<{ Params: { id: string } }>('/api/v1/webhooks/:id', AUTH, async (req) => {
    const body = parseBody(webhookUpdate, req.body);
    checkUrl(body.url);
    const patch = { ...body, ...(body.events ? { events: [...new Set(body.events)] } : {}) };
    const updated = await webhooks.repo.update(webhookScope(identityOf(req)), req.params.id, patch, now());
    if (!updated) throw notFound();
    return view(updated);
  });

  app.delete<{ Params: { id: string } }>('/api/v1/webhooks/:id', AUTH, async (req) => {
    if (!(await webhooks.repo.remove(webhookScope(identityOf(req)), req.params.id))) throw notFound();
    return { success: true, id: req.params.id };
  });

  app.get<{ Params: { id: string } }>('/api/v1/webhooks/:id/deliveries', AUTH, async (req) => {
    const scope = webhookScope(identityOf(req));
    if (!(await webhooks.repo.get(scope, req.params.id))) throw notFound();
    const list = await webhooks.repo.deliveries(scope, req.params.id, DELIVERY_PAGE);
    return { deliveries: list.map(deliveryView), total: list.length };
  });
};
