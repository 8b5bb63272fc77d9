import type { FastifyPluginAsync } from 'fastify';
import { policyDecision, policyTestRequest, preCheckRequest } from '../../../api/http/gateway.js';
import { responseSchema } from '../../http/serializer.js';
import { identityOf } from '../../auth/plugin.js';
import type { GovernedRouteOptions } from '../deps.js';
import { checkInput, evaluatePolicies, recordOutcome } from '../../governed/index.js';
import { policyClient, requestTypeOf } from '../../policy/caller.js';
import { parseBody } from '../validation.js';
import { isoTimestamp } from '../../../platform/iso-time.js';
import { warnCaller } from '../../http/warning-header.js';

/**
 * `POST /api/policy/pre-check` evaluates every enabled policy and records a context: an approved one's audit entry
 * is the caller's (`POST /api/audit/llm-call` names it), a blocked one's is written here.
 * `POST /api/policies/test` evaluates the same way and records nothing. A block is a 200, not an error.
 */
export const precheckRoutes: FastifyPluginAsync<GovernedRouteOptions> = async (app, deps) => {
  const preCheckOptions = {
    bodyLimit: deps.policyBodyLimitBytes,
    config: { auth: { require: 'any', feature: 'pre-check' } as const },
    schema: { response: { 200: responseSchema(policyDecision) } },
  };
  app.post('/api/policy/pre-check', preCheckOptions, async (req, reply) => {
    const t0 = performance.now();
    const body = parseBody(preCheckRequest, req.body);
    const identity = identityOf(req);
    const call = {
      via: 'pre_check' as const,
      surface: 'pre-check' as const,
      identity,
      clientId: identity.clientId ?? body.client_id,
      userToken: body.user_token,
      prompt: body.query,
      ...(typeof body.request_type === 'string' ? { requestType: body.request_type } : {}),
      context: body.context ?? {},
    };
    const check = await checkInput(deps, { ...call, auditedHere: false });
    const { evaluation: result, expiresAt } = check;
    // NB: a block is the call's outcome, audited here: its caller calls no model, so it records nothing (one that
    // goes ahead all the same may still record its call on the context)
    if (!result.approved) await recordOutcome(deps, call, check, t0, { decision: 'blocked_input', blocked: result });
    else await check.committed;
    const ctx = { id: check.contextId };
    deps.metrics.outcome(req, result.approved ? 'success' : 'blocked');
    if (result.logged.length) req.log.info({ policies: result.logged, contextId: ctx.id }, 'policy matched (log only)');
    if (result.results.some((r) => r.decision === 'audit' || r.decision === 'exempted'))
      req.log.info({ policies: result.results, contextId: ctx.id }, 'policy matched, not enforced (audit, exception)');
    warnCaller(reply, result.warnings);
    // NB: the compiled serializer leaves out undefined fields (block_reason when approved, no warnings).
    return {
      context_id: ctx.id,
      approved: result.approved,
      policies: result.triggered,
      block_reason: result.approved ? undefined : result.blockReason,
      warnings: result.warnings.length ? result.warnings : undefined,
      expires_at: isoTimestamp(expiresAt),
    };
  });

  app.post(
    '/api/policies/test',
    { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'pre-check' } } },
    async (req) => {
      const body = parseBody(policyTestRequest, req.body);
      const identity = identityOf(req);
      const result = await evaluatePolicies(
        deps.policies,
        {
          query: body.query,
          surface: 'pre-check',
          client: policyClient(identity),
          request_type: requestTypeOf('pre-check'),
          context: body.context ?? {},
        },
        { surface: 'pre-check', organizationId: identity.organizationId, tenantId: identity.tenantId },
      );
      return {
        approved: result.approved,
        triggered_policies: result.triggered,
        ...(result.approved ? {} : { block_reason: result.blockReason }),
        ...(result.warnings.length ? { warnings: result.warnings } : {}),
        evaluation_time_ms: Math.round(result.evaluationMs * 1000) / 1000,
      };
    },
  );
};
