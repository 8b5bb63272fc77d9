/**
 * The plan surface's plan routes: `POST /api/v1/plan` (plan and run in one call), `GET /api/v1/plan/{id}` (the
 * caller's organization and tenant only; others' plans are 404) and `POST /api/v1/plan/{id}/cancel`. Identity
 * comes from the credential (X-License-Key, Bearer API key) or from the gateway's signed X-Steward-Identity;
 * the body's `user` is descriptive only. Errors are envelopes; a plan that ran and failed answers its plan
 * fields beside the error (`plan_id`, `steps`, `metadata`).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { identityOf } from '../../auth/plugin.js';
import { errorBody } from '../../http/error-handler.js';
import { ApiError, echo } from '../../http/errors.js';
import { warnCaller } from '../../http/warning-header.js';
import type { ConcurrencyLimiter, RateLimiter } from '../../limits/index.js';
import type { Store } from '../../store/index.js';
import { PlanLimits } from './limits.js';
import { parsePlanRequest } from './request.js';
import { PlanFailedError, type PlanService } from './service.js';

export interface PlanRouteDeps {
  service: PlanService;
  store: Store;
  limiter: RateLimiter;
  concurrency: ConcurrencyLimiter;
}

/** Aborts when the client goes away before the answer is sent (not when the request body has been read). */
function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** A plan answer's `metadata.warnings` (answer.ts): the `Warning` header's entries. */
function answerWarnings(answer: Record<string, unknown>): string[] {
  const metadata = answer.metadata as { warnings?: string[] } | undefined;
  return metadata?.warnings ?? [];
}

const notFound = (id: string) => new ApiError('plan', 'NOT_FOUND', `no plan ${echo(id)} in this organization`);

export async function planRoutes(app: FastifyInstance, deps: PlanRouteDeps): Promise<void> {
  const limits = new PlanLimits(deps.limiter, deps.concurrency);

  app.post('/api/v1/plan', { config: { auth: { require: 'any', feature: 'plan' } } }, async (req, reply) => {
    const identity = identityOf(req);
    const lease = await limits.admit(identity, reply, req.log);
    try {
      const request = parsePlanRequest(req.body);
      const answer = await deps.service.run(request, identity, clientSignal(reply));
      warnCaller(reply, answerWarnings(answer));
      return answer;
    } catch (err) {
      if (!(err instanceof PlanFailedError)) throw err;
      if (err.status >= 500) req.log.error({ err, code: err.code }, 'plan failed');
      warnCaller(reply, answerWarnings(err.answer));
      return reply.code(err.status).send({
        ...err.answer,
        ...errorBody('envelope', { code: err.code, message: err.message, details: err.details, requestId: req.id }),
      });
    } finally {
      await lease?.release().catch((err: unknown) => req.log.warn({ err }, 'plan slot release failed'));
    }
  });

  app.get<{ Params: { id: string } }>(
    '/api/v1/plan/:id',
    { config: { auth: { require: 'any', feature: 'plan' } } },
    async (req) => {
      const identity = identityOf(req);
      const record = await deps.store.plans.get(identity, req.params.id);
      if (!record) throw notFound(req.params.id);
      return {
        ...(record.response ?? {
          success: false,
          plan_id: record.id,
          workflow_execution_id: record.workflowExecutionId,
          result: '',
          steps: record.steps,
        }),
        // NB: a running plan whose connector step waits for a person's approval (docs/approvals.md) says so.
        status: record.status === 'running' && record.waiting ? 'awaiting_approval' : record.status,
        ...(record.waiting ? { awaiting_approval: record.waiting } : {}),
        query: record.query,
        created_at: record.createdAt.toISOString(),
        ...(record.completedAt ? { completed_at: record.completedAt.toISOString() } : {}),
      };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/v1/plan/:id/cancel',
    { config: { auth: { require: 'any', feature: 'plan' } } },
    async (req) => {
      const identity = identityOf(req);
      const record = await deps.store.plans.get(identity, req.params.id);
      if (!record) throw notFound(req.params.id);
      const cancelled = deps.service.cancel(identity, record.id);
      return {
        success: true,
        plan_id: record.id,
        cancelled,
        status: cancelled ? 'cancelled' : record.status,
        ...(!cancelled && record.status === 'running'
          ? { message: 'the plan runs on another orchestrator replica; cancel it there' }
          : {}),
      };
    },
  );
}
