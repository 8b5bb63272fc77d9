import type { FastifyPluginAsync } from 'fastify';
import { auditRequest } from '../../../api/http/gateway.js';
import { INT32_MAX } from '../../../api/http/safe.js';
import { auditText, rowDecision } from '../../governed/index.js';
import { ApiError, echo } from '../../http/errors.js';
import { identityOf } from '../../auth/plugin.js';
import type { AuditInput } from '../../store/index.js';
import type { AuditRouteOptions } from '../deps.js';
import { parseBody } from '../validation.js';

/**
 * `POST /api/audit/llm-call`: the context must exist in the caller's organization, belong to the same client
 * and not have expired, and have no LLM-call entry yet (one per context: a replay is a 409; the contexts of
 * governed calls have the gateway's own). The row is committed before the 200 leaves (awaited). Its metadata carries
 * the pre-check's decision and policy results (the policy reports count those from the pre-check's own row).
 */
export const auditRoutes: FastifyPluginAsync<AuditRouteOptions> = async (app, deps) => {
  app.post('/api/audit/llm-call', { config: { auth: { require: 'any', feature: 'audit' } } }, async (req) => {
    const body = parseBody(auditRequest, req.body);
    const identity = identityOf(req);
    const ctx = await deps.store.contexts.get(identity.organizationId, body.context_id);
    if (!ctx)
      throw new ApiError(
        'gateway',
        'CONTEXT_NOT_FOUND',
        `no pre-check context ${echo(body.context_id)} for this client`,
      );
    const callerClient = identity.clientId ?? body.client_id;
    if (callerClient !== undefined && callerClient !== ctx.clientId) {
      throw new ApiError('gateway', 'FORBIDDEN', 'the pre-check context belongs to another client');
    }
    if (ctx.expiresAt.getTime() <= deps.now().getTime()) {
      throw new ApiError(
        'gateway',
        'CONTEXT_EXPIRED',
        `the pre-check context expired at ${ctx.expiresAt.toISOString()}; run the pre-check again`,
      );
    }
    const usage = body.token_usage;
    const promptTokens = body.tokens?.prompt ?? usage?.prompt_tokens;
    const completionTokens = body.tokens?.completion ?? usage?.completion_tokens;
    const totalTokens =
      usage?.total_tokens ??
      (promptTokens !== undefined && completionTokens !== undefined ? promptTokens + completionTokens : undefined);
    if (totalTokens !== undefined && totalTokens > INT32_MAX) {
      throw new ApiError('gateway', 'INVALID_REQUEST', `invalid field(s): tokens (the total exceeds ${INT32_MAX})`, {
        fields: [{ field: 'tokens', message: `the total exceeds ${INT32_MAX}` }],
      });
    }
    // NB: the organization and tenant come from the credential only: the body's copies are dropped.
    const { tenant_id: _tenant, organization_id: _organization, ...metadata } = body.metadata ?? {};
    if (!(await deps.store.contexts.claimLlmCallAudit(identity.organizationId, ctx.id, deps.now()))) {
      throw new ApiError(
        'gateway',
        'AUDIT_ALREADY_RECORDED',
        `the pre-check context ${echo(ctx.id)} already has its LLM-call audit entry`,
        { context_id: ctx.id },
      );
    }
    // NB: what the pre-check decided, as a governed call's row records it (issue 34): `decision` says `audit`, `warn`
    // or `exempted` where a policy that is not enforced matched. The caller's metadata cannot override these.
    const precheck = await deps.store.contexts.results.find(identity.organizationId, ctx.id, ctx.createdAt);
    const results = precheck?.results ?? [];
    // NB: the caller's text is stored as a governed call's is: masked by the organization's redact policies.
    const prompt = body.prompt === undefined ? undefined : auditText(deps, identity, body.prompt);
    const said = body.response ?? body.response_summary;
    const response = said === undefined ? undefined : auditText(deps, identity, said);
    const entry = await recordOrRelease(deps, identity.organizationId, ctx.id, {
      organizationId: identity.organizationId,
      clientId: ctx.clientId,
      contextId: ctx.id,
      userToken: body.user_token ?? ctx.userToken,
      provider: body.provider,
      model: body.model,
      prompt: prompt?.text,
      response: response?.text,
      latencyMs: body.latency_ms,
      promptTokens,
      completionTokens,
      totalTokens,
      metadata: {
        ...metadata,
        context_approved: ctx.approved,
        stored_text: deps.auditRawText ? 'raw' : 'masked',
        ...(prompt?.masked ? { prompt_redactions: prompt.masked } : {}),
        ...(response?.masked ? { redactions: response.masked } : {}),
        decision: rowDecision(ctx.approved ? 'allowed' : 'blocked_input', results),
        ...(precheck ? { policies_evaluated: precheck.evaluated, policy_results: results } : {}),
        ...(identity.tenantId ? { tenant_id: identity.tenantId } : {}),
      },
    });
    return { success: true, audit_id: entry.id, recorded: true, timestamp: entry.createdAt.toISOString() };
  });
};

/** Writes the entry; when the write fails, the context's claim is given back so that the client may send it again. */
async function recordOrRelease(
  deps: Pick<AuditRouteOptions, 'store'>,
  organizationId: string,
  contextId: string,
  input: AuditInput,
) {
  try {
    return await deps.store.audit.record(input);
  } catch (err) {
    await deps.store.contexts.releaseLlmCallAudit(organizationId, contextId).catch(() => undefined);
    throw err;
  }
}
