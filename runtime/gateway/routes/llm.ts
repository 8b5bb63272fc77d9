import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { gatewayRequest } from '../../../api/http/gateway.js';
import { jsonValue, safeText } from '../../../api/http/safe.js';
import { identityOf } from '../../auth/plugin.js';
import type { GatewayDeps } from '../deps.js';
import { governedLlmCall, policyInfo, type GovernedCall } from '../governed.js';
import type { Identity } from '../../auth/identity.js';
import type { LlmResponse } from '../../llm/index.js';
import { parseBody } from '../validation.js';
import { multiAgentPlan } from './plan-request.js';

const llmOptions = {
  provider: safeText().min(1).max(64).optional(),
  model: safeText().min(1).max(256).optional(),
  temperature: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  user_token: safeText().min(1).optional(),
  client_id: safeText().min(1).optional(),
};
const executeBody = z.object({ prompt: safeText().min(1), mode: z.enum(['chat']).default('chat'), ...llmOptions }).catchall(jsonValue);

/**
 * Cancels the provider call when the client disconnects.
 * NB: the request stream closes as soon as its body is read; only the response closing before it finished
 * means the client went away.
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

type LlmOptions = { provider?: string; model?: string; temperature?: number; max_tokens?: number; user_token?: string; client_id?: string };

/** The governed call both routes make; the client id comes from the credential when it has one. */
function callOf(body: LlmOptions, prompt: string, identity: Identity, fallbackClient: string, reply: FastifyReply): GovernedCall {
  return {
    prompt,
    clientId: identity.clientId ?? body.client_id ?? fallbackClient,
    userToken: body.user_token ?? identity.clientId ?? 'anonymous',
    provider: body.provider,
    model: body.model,
    temperature: body.temperature,
    maxTokens: body.max_tokens,
    signal: clientSignal(reply),
  };
}

/** The SDKs' snake_case usage object. */
function usageBody(r: LlmResponse) {
  return { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens, total_tokens: r.usage.totalTokens };
}

/**
 * `POST /v1/execute` and `POST /api/request` (non-plan request types): governed LLM calls.
 * A blocked prompt is a 403 POLICY_VIOLATION on /v1/execute and a 200 with `blocked: true` on /api/request,
 * which is what the SDKs read there.
 */
export const llmRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  app.post('/v1/execute', { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } }, async (req, reply) => {
    const body = parseBody(executeBody, req.body);
    const identity = identityOf(req);
    const started = performance.now();
    const result = await governedLlmCall(deps, identity, callOf(body, body.prompt, identity, 'execute', reply));
    if (result.blocked) {
      deps.metrics?.outcome(req, 'blocked');
      return reply.code(403).send({
        success: false,
        error: `blocked by policy ${result.evaluation.blockReason}`,
        code: 'POLICY_VIOLATION',
        blocked: true,
        block_reason: result.evaluation.blockReason,
        policies: result.evaluation.triggered,
        context_id: result.contextId,
        request_id: req.id,
      });
    }
    const r = result.response;
    return {
      success: true,
      data: {
        response: r.text,
        model: r.model,
        provider: r.provider,
        finish_reason: r.finishReason,
        usage: usageBody(r),
        context_id: result.contextId,
        audit_id: result.auditId,
        ...(result.evaluation.warnings.length ? { warnings: result.evaluation.warnings } : {}),
      },
      metadata: { request_id: req.id, latency_ms: Math.round(performance.now() - started) },
    };
  });

  app.post('/api/request', { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } }, async (req, reply) => {
    const body = parseBody(gatewayRequest.extend(llmOptions), req.body);
    const identity = identityOf(req);
    if (body.request_type === 'multi-agent-plan') {
      const call = callOf(body, body.query, identity, 'request', reply);
      const domain = typeof body.domain === 'string' ? body.domain : undefined;
      const mode = typeof body.execution_mode === 'string' ? body.execution_mode : undefined;
      return multiAgentPlan(deps, req, reply, identity, { query: body.query, context: body.context, domain, execution_mode: mode, clientId: call.clientId, userToken: call.userToken }, call.signal!);
    }
    const started = performance.now();
    const result = await governedLlmCall(deps, identity, { ...callOf(body, body.query, identity, 'request', reply), context: body.context });
    const common = { policy_info: policyInfo(result.evaluation, identity), context_id: result.contextId, metadata: { request_id: req.id, latency_ms: Math.round(performance.now() - started) } };
    if (result.blocked) {
      deps.metrics?.outcome(req, 'blocked');
      return { success: false, blocked: true, block_reason: result.evaluation.blockReason, ...common };
    }
    const r = result.response;
    return {
      success: true,
      blocked: false,
      result: r.text,
      data: { response: r.text, model: r.model, provider: r.provider, usage: usageBody(r) },
      audit_id: result.auditId,
      ...common,
    };
  });
};
