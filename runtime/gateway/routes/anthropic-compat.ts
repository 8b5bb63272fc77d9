import type { FastifyPluginAsync } from 'fastify';
import { anthropicMessagesRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import type { FinishReason, LlmMessage } from '../../llm/index.js';
import type { GatewayDeps } from '../deps.js';
import { governedLlmCall } from '../governed.js';
import { chooseModel, installCompatErrorHandler, policyViolation, promptOf, textOf, unsupported, type CompatErrorBody } from '../compat.js';
import { parseBody } from '../validation.js';
import { clientSignal } from './llm.js';

/** Anthropic's error `type` for a status; its SDK picks the exception class by the status. */
function anthropicType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** `{type: 'error', error: {type, message}}`, with Steward's code beside them (`error.code`). */
export const anthropicErrorBody: CompatErrorBody = (e, requestId) => ({
  type: 'error',
  error: { type: anthropicType(e.status), message: e.message, code: e.code, ...(e.details ? { details: e.details } : {}) },
  request_id: requestId,
});

const STOP: Record<FinishReason, string> = { stop: 'end_turn', length: 'max_tokens', content_filter: 'refusal', tool_use: 'tool_use', other: 'end_turn' };

/**
 * Anthropic-compatible `POST /v1/messages`: the same governance as `/v1/chat/completions`, in the Messages
 * format. The SDK's `x-api-key` header is accepted as the gateway API key (runtime/auth/authenticate.ts).
 */
export const anthropicCompatRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  installCompatErrorHandler(app, anthropicErrorBody);

  app.post('/v1/messages', { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } }, async (req, reply) => {
    const body = parseBody(anthropicMessagesRequest, req.body);
    for (const field of ['tools', 'tool_choice'] as const) {
      if (body[field] !== undefined && body[field] !== null) throw unsupported(field, field);
    }
    const identity = identityOf(req);
    const messages: LlmMessage[] = [];
    const system = body.system === undefined ? '' : textOf(body.system, 'system');
    if (system.trim() !== '') messages.push({ role: 'system', content: system });
    body.messages.forEach((m, i) => messages.push({ role: m.role, content: textOf(m.content, `messages[${i}].content`) }));
    const choice = chooseModel(deps.llm, body.model);
    const result = await governedLlmCall(deps, identity, {
      prompt: promptOf(messages),
      messages,
      clientId: identity.clientId ?? 'anthropic-compat',
      userToken: userOf(body.metadata) ?? identity.clientId ?? 'anonymous',
      provider: choice.provider,
      model: choice.model,
      temperature: body.temperature,
      maxTokens: body.max_tokens,
      signal: clientSignal(reply),
    });
    void reply.header('x-steward-context-id', result.contextId);
    if (result.blocked) {
      deps.metrics?.outcome(req, 'blocked');
      throw policyViolation(result.evaluation, result.contextId);
    }
    const r = result.response;
    void reply.header('x-steward-audit-id', result.auditId);
    const message = {
      id: `msg_${result.auditId}`,
      type: 'message',
      role: 'assistant',
      model: r.model,
      content: [{ type: 'text' as const, text: r.text }],
      stop_reason: STOP[r.finishReason],
      stop_sequence: null,
      usage: { input_tokens: r.usage.promptTokens, output_tokens: r.usage.completionTokens },
    };
    if (body.stream !== true) return message;
    return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send(sseOf(message));
  });
};

/** Anthropic's `metadata.user_id`, the end user the audit entry names. */
function userOf(metadata: unknown): string | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const id = (metadata as Record<string, unknown>).user_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The message as Messages stream events: message_start, one text block (start, delta, stop), message_delta with
 * the stop reason and usage, message_stop.
 * NB: as on /v1/chat/completions, the provider is called without streaming and the events follow the audit
 * commit: a well-formed stream whose first token arrives with the last.
 */
function sseOf(message: { content: { type: 'text'; text: string }[]; stop_reason: string; usage: { input_tokens: number; output_tokens: number } }): string {
  const text = message.content[0]!.text;
  const events: [string, unknown][] = [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: message.usage.input_tokens, output_tokens: 0 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } }],
    ['message_stop', { type: 'message_stop' }],
  ];
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}
