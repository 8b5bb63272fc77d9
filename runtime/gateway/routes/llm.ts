import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { budgetHeaders } from '../../budgets/gate.js';
import { warnCaller } from '../../http/warning-header.js';
import { gatewayRequest } from '../../../api/http/gateway.js';
import { jsonValue, safeText } from '../../../api/http/safe.js';
import { identityOf } from '../../auth/plugin.js';
import type { LlmRouteOptions, ModelRouteOptions } from '../deps.js';
import { collect, llmUpstream, openGoverned, PolicyBlockedError, type GovernedAnswer } from '../../governed/index.js';
import type { Identity } from '../../auth/identity.js';
import { parseBody } from '../validation.js';
import { multiAgentPlan, policyInfo } from './plan-request.js';

const llmOptions = {
  provider: safeText().min(1).max(64).optional(),
  model: safeText().min(1).max(256).optional(),
  temperature: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  user_token: safeText().min(1).optional(),
  client_id: safeText().min(1).optional(),
};
const executeBody = z
  .object({ prompt: safeText().min(1), mode: z.enum(['chat']).default('chat'), ...llmOptions })
  .catchall(jsonValue);

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

type LlmOptions = {
  provider?: string;
  model?: string;
  temperature?: number;
  max_tokens?: number;
  user_token?: string;
  client_id?: string;
};

/** Who a call is for: the client id comes from the credential when it has one. */
function callerOf(body: LlmOptions, identity: Identity, fallbackClient: string) {
  return {
    clientId: identity.clientId ?? body.client_id ?? fallbackClient,
    userToken: body.user_token ?? identity.clientId ?? 'anonymous',
  };
}

/** One prompt through the governed pipeline, whole: the answer (masked as the output policies say), or a typed error. */
async function governedPrompt(
  deps: ModelRouteOptions,
  identity: Identity,
  reply: FastifyReply,
  via: 'execute' | 'request',
  body: LlmOptions,
  prompt: string,
  context?: Record<string, unknown>,
  requestType?: string,
): Promise<GovernedAnswer> {
  const run = await openGoverned(
    deps,
    {
      via,
      surface: 'llm',
      identity,
      ...callerOf(body, identity, via),
      prompt,
      ...(requestType !== undefined ? { requestType } : {}),
      ...(context ? { context } : {}),
      llm: { provider: body.provider, model: body.model },
      maxTokens: body.max_tokens,
      signal: clientSignal(reply),
    },
    () =>
      llmUpstream(deps.llm, {
        provider: body.provider,
        prompt,
        model: body.model,
        temperature: body.temperature,
        maxTokens: body.max_tokens,
      }),
  );
  if (run.budget) void reply.headers(budgetHeaders(run.budget.view));
  return collect(run);
}

/** The SDKs' snake_case usage object. */
function usageBody(a: GovernedAnswer) {
  return {
    prompt_tokens: a.usage.promptTokens,
    completion_tokens: a.usage.completionTokens,
    total_tokens: a.usage.totalTokens,
  };
}

/**
 * `POST /v1/execute` and `POST /api/request` (non-plan request types): governed LLM calls, whole. A blocked prompt
 * or answer is a 403 POLICY_VIOLATION on /v1/execute and a 200 with `blocked: true` on /api/request, which is what
 * the SDKs read there.
 */
export const llmRoutes: FastifyPluginAsync<LlmRouteOptions> = async (app, deps) => {
  app.post(
    '/v1/execute',
    { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } },
    async (req, reply) => {
      const body = parseBody(executeBody, req.body);
      const identity = identityOf(req);
      const started = performance.now();
      let a: GovernedAnswer;
      try {
        a = await governedPrompt(deps, identity, reply, 'execute', body, body.prompt);
      } catch (err) {
        if (!(err instanceof PolicyBlockedError)) throw err;
        deps.metrics.outcome(req, 'blocked');
        return reply.code(403).send({
          success: false,
          error: err.message,
          code: 'POLICY_VIOLATION',
          blocked: true,
          ...err.details,
          request_id: req.id,
        });
      }
      warnCaller(reply, a.warnings);
      return {
        success: true,
        data: {
          response: a.text,
          model: a.model,
          provider: a.provider,
          finish_reason: a.finishReason,
          usage: usageBody(a),
          context_id: a.contextId,
          audit_id: a.auditId,
          ...(Object.keys(a.redactions).length ? { redactions: a.redactions } : {}),
          ...(a.warnings.length ? { warnings: a.warnings } : {}),
        },
        metadata: { request_id: req.id, latency_ms: Math.round(performance.now() - started) },
      };
    },
  );

  app.post(
    '/api/request',
    { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } },
    async (req, reply) => {
      const body = parseBody(gatewayRequest.extend(llmOptions), req.body);
      const identity = identityOf(req);
      if (body.request_type === 'multi-agent-plan') {
        const domain = typeof body.domain === 'string' ? body.domain : undefined;
        const mode = typeof body.execution_mode === 'string' ? body.execution_mode : undefined;
        return multiAgentPlan(
          deps,
          req,
          reply,
          identity,
          {
            query: body.query,
            context: body.context,
            domain,
            execution_mode: mode,
            ...callerOf(body, identity, 'request'),
          },
          clientSignal(reply),
        );
      }
      const started = performance.now();
      const metadata = () => ({ request_id: req.id, latency_ms: Math.round(performance.now() - started) });
      let a: GovernedAnswer;
      try {
        a = await governedPrompt(deps, identity, reply, 'request', body, body.query, body.context, body.request_type);
      } catch (err) {
        if (!(err instanceof PolicyBlockedError)) throw err;
        deps.metrics.outcome(req, 'blocked');
        return {
          success: false,
          blocked: true,
          block_reason: err.evaluation.blockReason,
          ...(err.stage === 'output' ? { stage: 'output' } : {}),
          policy_info: policyInfo(err.evaluation, identity),
          context_id: err.contextId,
          metadata: metadata(),
        };
      }
      warnCaller(reply, a.warnings);
      return {
        success: true,
        blocked: false,
        result: a.text,
        data: {
          response: a.text,
          model: a.model,
          provider: a.provider,
          usage: usageBody(a),
          ...(Object.keys(a.redactions).length ? { redactions: a.redactions } : {}),
        },
        audit_id: a.auditId,
        policy_info: policyInfo(a.evaluation, identity),
        context_id: a.contextId,
        metadata: metadata(),
      };
    },
  );
};
