import type { FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import { chatCompletionRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import { ApiError } from '../../http/errors.js';
import type { FinishReason, LlmMessage, LlmRole } from '../../llm/index.js';
import type { ModelRouteOptions } from '../deps.js';
import { serveChat, type ChatAnswer, type ChatCall, type ChatFormat } from '../chat.js';
import { parseBody } from '../validation.js';
import {
  chooseModel,
  installCompatErrorHandler,
  installServerTiming,
  textOf,
  unsupported,
  type CompatErrorBody,
} from '../compat.js';

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
  error: {
    message: e.message,
    type: openAiType(e.status),
    param: null,
    code: e.code.toLowerCase(),
    ...(e.details ? { details: e.details } : {}),
  },
  request_id: requestId,
});

const OPENAI_ROLES: Record<string, LlmRole | undefined> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
};

const FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
  tool_use: 'tool_calls',
  other: 'stop',
};

type ChatRequest = z.infer<typeof chatCompletionRequest>;

/** The conversation in the common model: text, tool calls and tool results; other parts are refused. */
function messagesOf(body: ChatRequest): LlmMessage[] {
  return body.messages.map((m, i) => {
    const role = OPENAI_ROLES[m.role];
    if (!role) throw unsupported(`messages[${i}].role`, `the ${m.role} role (use tool messages)`);
    if ((m.function_call ?? null) !== null)
      throw unsupported(`messages[${i}].function_call`, 'the legacy function_call (use tool_calls)');
    const content = textOf(m.content, `messages[${i}].content`);
    if (role === 'tool') {
      if (!m.tool_call_id)
        throw new ApiError(
          'gateway',
          'INVALID_REQUEST',
          `messages[${i}].tool_call_id: a tool message names the call it answers`,
          { field: `messages[${i}].tool_call_id` },
        );
      return { role, content, toolCallId: m.tool_call_id };
    }
    const calls = role === 'assistant' ? (m.tool_calls ?? []) : [];
    if (calls.length === 0) return { role, content };
    return {
      role,
      content,
      toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
    };
  });
}

/** Fields whose meaning Steward cannot honour; a request that sets them gets 400, never a silent drop. */
function refuseUnserved(body: ChatRequest): void {
  for (const field of ['functions', 'function_call'] as const) {
    if (body[field] !== undefined && body[field] !== null)
      throw unsupported(field, `the legacy ${field} (use tools and tool_choice)`);
  }
  if (typeof body.n === 'number' && body.n !== 1) throw unsupported('n', 'more than one choice');
}

function toolsOf(body: ChatRequest): Pick<ChatCall, 'tools' | 'toolChoice' | 'responseFormat'> {
  const out: Pick<ChatCall, 'tools' | 'toolChoice' | 'responseFormat'> = {};
  if (body.tools && body.tools.length > 0) {
    out.tools = body.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      ...(t.function.parameters !== undefined ? { parameters: t.function.parameters } : {}),
    }));
  }
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null)
    out.toolChoice = typeof choice === 'string' ? choice : { name: choice.function.name };
  const format = body.response_format;
  if (format !== undefined && format !== null) {
    out.responseFormat =
      format.type === 'json_schema'
        ? {
            type: 'json_schema',
            name: format.json_schema.name,
            schema: format.json_schema.schema ?? {},
            ...(typeof format.json_schema.strict === 'boolean' ? { strict: format.json_schema.strict } : {}),
          }
        : { type: format.type };
  }
  return out;
}

/**
 * OpenAI-compatible endpoints: `POST /v1/chat/completions` (governed: policies on the way in and out, provider,
 * audit; token-by-token streams) and `GET /v1/models`. Errors answer in OpenAI's shape so the official SDK raises
 * its documented exceptions.
 */
export const openAiCompatRoutes: FastifyPluginAsync<ModelRouteOptions> = async (app, deps) => {
  installCompatErrorHandler(app, openAiErrorBody);
  installServerTiming(app);

  app.get('/v1/models', { config: { auth: { require: 'any', feature: 'llm' } } }, async () => {
    const router = deps.llm;
    const created = Math.floor(deps.now().getTime() / 1000);
    const data = router.names.map((name) => ({
      id: `${name}/${router.get(name).defaultModel}`,
      object: 'model' as const,
      created,
      owned_by: name,
    }));
    return { object: 'list' as const, data };
  });

  app.post(
    '/v1/chat/completions',
    { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } },
    async (req, reply) => {
      const body = parseBody(chatCompletionRequest, req.body);
      refuseUnserved(body);
      const identity = identityOf(req);
      const choice = chooseModel(deps.llm, body.model);
      return serveChat(
        deps,
        req,
        reply,
        {
          messages: messagesOf(body),
          provider: choice.provider,
          model: choice.model,
          temperature: body.temperature ?? undefined,
          maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
          ...toolsOf(body),
          clientId: identity.clientId ?? 'openai-compat',
          userToken: body.user ?? identity.clientId ?? 'anonymous',
          ...(body.user !== undefined ? { user: body.user } : {}),
          ...(body.messages.some((m) => m.name !== undefined) ? { names: body.messages.map((m) => m.name) } : {}),
          stream: body.stream === true,
          via: 'chat_completions',
        },
        openAiFormat(body.stream_options?.include_usage === true),
      );
    },
  );
};

const usageBody = (a: ChatAnswer) => ({
  prompt_tokens: a.usage.promptTokens,
  completion_tokens: a.usage.completionTokens,
  total_tokens: a.usage.totalTokens,
});

/**
 * Chat Completions' shapes: a `chat.completion`, or `chat.completion.chunk` events (the role, text deltas, tool-call
 * deltas, the finish reason, with `stream_options.include_usage` a last chunk with empty `choices` and the
 * usage) then `data: [DONE]`. A mid-stream error is a `data: {"error": …}` event, which the SDK raises as an
 * APIError.
 */
function openAiFormat(includeUsage: boolean): ChatFormat {
  return {
    whole(a, created) {
      const toolCalls = a.toolCalls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      }));
      return {
        id: `chatcmpl-${a.auditId}`,
        object: 'chat.completion',
        created,
        model: a.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: a.text === '' && toolCalls.length > 0 ? null : a.text,
              refusal: null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            logprobs: null,
            finish_reason: FINISH[a.finishReason],
          },
        ],
        usage: usageBody(a),
      };
    },
    stream(head) {
      const id = `chatcmpl-${head.auditId}`;
      let model = head.model;
      const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: head.created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
      return {
        start: () => chunk({ role: 'assistant', content: '', refusal: null }, null),
        text: (text) => (text === '' ? '' : chunk({ content: text }, null)),
        toolCall(index, callId, name, args) {
          if (callId === undefined && name === undefined && args === '') return '';
          const fn = name !== undefined ? { name, arguments: args } : { arguments: args };
          return chunk(
            {
              tool_calls: [{ index, ...(callId !== undefined ? { id: callId, type: 'function' } : {}), function: fn }],
            },
            null,
          );
        },
        end(a) {
          model = a.model;
          let out = chunk({}, FINISH[a.finishReason]);
          if (includeUsage)
            out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: head.created, model, choices: [], usage: usageBody(a) })}\n\n`;
          return `${out}data: [DONE]\n\n`;
        },
        error: (e) => `data: ${JSON.stringify(openAiErrorBody(e, head.requestId))}\n\n`,
      };
    },
  };
}
