import type { FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import { chatCompletionRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import type { FinishReason, LlmMessage, LlmRole } from '../../llm/index.js';
import type { GatewayDeps } from '../deps.js';
import { governedLlmCall } from '../governed.js';
import { parseBody } from '../validation.js';
import { clientSignal } from './llm.js';
import { chooseModel, installCompatErrorHandler, policyViolation, promptOf, textOf, unsupported, type CompatErrorBody } from '../compat.js';

/** OpenAI's error `type` for a status; the SDK picks its exception class by the status alone. */
function openAiType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** `{error: {message, type, param, code}}` with Steward's code in lower case (`policy_violation`). */
export const openAiErrorBody: CompatErrorBody = (e, requestId) => ({
  error: { message: e.message, type: openAiType(e.status), param: null, code: e.code.toLowerCase(), ...(e.details ? { details: e.details } : {}) },
  request_id: requestId,
});

const OPENAI_ROLES: Record<string, LlmRole | undefined> = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant' };

const FINISH: Record<FinishReason, string> = { stop: 'stop', length: 'length', content_filter: 'content_filter', tool_use: 'tool_calls', other: 'stop' };

type ChatRequest = z.infer<typeof chatCompletionRequest>;

/** The conversation in the common model; tool turns and non-text parts are refused rather than dropped. */
function messagesOf(body: ChatRequest): LlmMessage[] {
  return body.messages.map((m, i) => {
    const role = OPENAI_ROLES[m.role];
    if (!role) throw unsupported(`messages[${i}].role`, `the ${m.role} role`);
    if ((m.tool_calls ?? m.function_call ?? null) !== null) throw unsupported(`messages[${i}]`, 'tool calls');
    return { role, content: textOf(m.content, `messages[${i}].content`) };
  });
}

/** Fields whose meaning Steward cannot honour yet; a request that sets them gets 400, never a silent drop. */
function refuseUnserved(body: ChatRequest): void {
  for (const field of ['tools', 'tool_choice', 'functions', 'function_call', 'response_format'] as const) {
    if (body[field] !== undefined && body[field] !== null) throw unsupported(field, field);
  }
  if (typeof body.n === 'number' && body.n !== 1) throw unsupported('n', 'more than one choice');
}

/**
 * OpenAI-compatible endpoints: `POST /v1/chat/completions` (governed: policies, provider, audit) and
 * `GET /v1/models`. Errors answer in OpenAI's shape so the official SDK raises its documented exceptions.
 */
export const openAiCompatRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  installCompatErrorHandler(app, openAiErrorBody);

  app.get('/v1/models', { config: { auth: { require: 'any', feature: 'llm' } } }, async () => {
    const router = deps.llm;
    const created = Math.floor(deps.now().getTime() / 1000);
    const data = (router?.names ?? []).map((name) => ({ id: `${name}/${router!.get(name).defaultModel}`, object: 'model' as const, created, owned_by: name }));
    return { object: 'list' as const, data };
  });

  app.post('/v1/chat/completions', { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } }, async (req, reply) => {
    const body = parseBody(chatCompletionRequest, req.body);
    refuseUnserved(body);
    const identity = identityOf(req);
    const messages = messagesOf(body);
    const choice = chooseModel(deps.llm, body.model);
    const result = await governedLlmCall(deps, identity, {
      prompt: promptOf(messages),
      messages,
      clientId: identity.clientId ?? 'openai-compat',
      userToken: body.user ?? identity.clientId ?? 'anonymous',
      provider: choice.provider,
      model: choice.model,
      temperature: body.temperature ?? undefined,
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      signal: clientSignal(reply),
    });
    void reply.header('x-steward-context-id', result.contextId);
    if (result.blocked) {
      deps.metrics?.outcome(req, 'blocked');
      throw policyViolation(result.evaluation, result.contextId);
    }
    const r = result.response;
    void reply.header('x-steward-audit-id', result.auditId);
    const head = { id: `chatcmpl-${result.auditId}`, created: Math.floor(deps.now().getTime() / 1000), model: r.model };
    const usage = { prompt_tokens: r.usage.promptTokens, completion_tokens: r.usage.completionTokens, total_tokens: r.usage.totalTokens };
    if (body.stream === true) {
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(sseOf(head, r.text, FINISH[r.finishReason], body.stream_options?.include_usage === true ? usage : undefined));
    }
    return {
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: r.text, refusal: null }, logprobs: null, finish_reason: FINISH[r.finishReason] }],
      usage,
    };
  });
};

/**
 * The answer as Chat Completions stream events: the role, the text, the finish reason, the usage when asked for
 * (`stream_options.include_usage`), then `[DONE]`.
 * NB: the provider is called without streaming, so the whole answer arrives at once, after the policies and the
 * audit commit; SDKs that ask for a stream get a well-formed one. Token-by-token relay is not served yet.
 */
function sseOf(head: { id: string; created: number; model: string }, text: string, finish: string, usage: Record<string, number> | undefined): string {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    ...head,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(usage ? { usage: null } : {}),
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null }, null), chunk({ content: text }, null), chunk({}, finish)];
  if (usage) events.push({ ...head, object: 'chat.completion.chunk', choices: [], usage });
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}
