import type { FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import { anthropicMessagesRequest } from '../../../api/http/gateway.js';
import { identityOf } from '../../auth/plugin.js';
import { ApiError, echo } from '../../http/errors.js';
import type { FinishReason, LlmMessage, LlmToolCall } from '../../llm/index.js';
import type { ModelRouteOptions } from '../deps.js';
import { serveChat, type ChatCall, type ChatFormat } from '../chat.js';
import {
  chooseModel,
  installCompatErrorHandler,
  installServerTiming,
  textOf,
  unsupported,
  type CompatErrorBody,
} from '../compat.js';
import { parseBody } from '../validation.js';

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
  error: {
    type: anthropicType(e.status),
    message: e.message,
    code: e.code,
    ...(e.details ? { details: e.details } : {}),
  },
  request_id: requestId,
});

const STOP: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  content_filter: 'refusal',
  tool_use: 'tool_use',
  other: 'end_turn',
};

type MessagesRequest = z.infer<typeof anthropicMessagesRequest>;
type Block = Exclude<MessagesRequest['system'], string | undefined>[number];

/** Text blocks joined by newlines; a `tool_result`'s content is a string or text blocks. */
function blockText(content: unknown, field: string): string {
  return textOf(content as Parameters<typeof textOf>[0], field);
}

/**
 * The conversation in the common model. A user turn's `tool_result` blocks become `tool` messages (before its
 * text, as the API requires them first); an assistant turn's `tool_use` blocks become its tool calls. Other
 * blocks (images, documents, thinking) are refused with 400.
 */
function messagesOf(body: MessagesRequest): LlmMessage[] {
  const messages: LlmMessage[] = [];
  const system = body.system === undefined ? '' : textOf(body.system as Parameters<typeof textOf>[0], 'system');
  if (system.trim() !== '') messages.push({ role: 'system', content: system });
  body.messages.forEach((m, i) => {
    if (typeof m.content === 'string') {
      messages.push({ role: m.role, content: m.content });
      return;
    }
    const text: string[] = [];
    const calls: LlmToolCall[] = [];
    m.content.forEach((b: Block, j) => {
      const field = `messages[${i}].content[${j}]`;
      if (b.type === 'text' && typeof b.text === 'string') text.push(b.text);
      else if (b.type === 'tool_use' && m.role === 'assistant' && b.id && b.name)
        calls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
      else if (b.type === 'tool_result' && m.role === 'user' && b.tool_use_id) {
        const result = b.content === undefined ? '' : blockText(b.content, `${field}.content`);
        messages.push({
          role: 'tool',
          content: b.is_error === true ? `error: ${result}` : result,
          toolCallId: b.tool_use_id,
        });
      } else
        throw unsupported(
          field,
          `a ${echo(b.type)} block${b.type === 'tool_use' || b.type === 'tool_result' ? ' without its ids, or in the wrong role' : ''}`,
        );
    });
    if (text.length > 0 || calls.length > 0) {
      messages.push({ role: m.role, content: text.join('\n'), ...(calls.length > 0 ? { toolCalls: calls } : {}) });
    }
  });
  return messages;
}

function toolsOf(body: MessagesRequest): Pick<ChatCall, 'tools' | 'toolChoice'> {
  const out: Pick<ChatCall, 'tools' | 'toolChoice'> = {};
  if (body.tools && body.tools.length > 0) {
    out.tools = body.tools.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.input_schema,
    }));
  }
  const c = body.tool_choice;
  if (c) {
    if (c.type === 'tool' && !c.name)
      throw new ApiError('gateway', 'INVALID_REQUEST', 'tool_choice.name: a tool choice of type tool names the tool', {
        field: 'tool_choice.name',
      });
    out.toolChoice = c.type === 'tool' ? { name: c.name! } : c.type === 'any' ? 'required' : c.type;
  }
  return out;
}

/**
 * Anthropic-compatible `POST /v1/messages`: the same governance as `/v1/chat/completions`, in the Messages
 * format. The SDK's `x-api-key` header is accepted as the gateway API key (runtime/auth/authenticate.ts).
 */
export const anthropicCompatRoutes: FastifyPluginAsync<ModelRouteOptions> = async (app, deps) => {
  installCompatErrorHandler(app, anthropicErrorBody);
  installServerTiming(app);

  app.post(
    '/v1/messages',
    { bodyLimit: deps.policyBodyLimitBytes, config: { auth: { require: 'any', feature: 'llm' } } },
    async (req, reply) => {
      const body = parseBody(anthropicMessagesRequest, req.body);
      const identity = identityOf(req);
      const choice = chooseModel(deps.llm, body.model);
      const user = userOf(body.metadata);
      return serveChat(
        deps,
        req,
        reply,
        {
          messages: messagesOf(body),
          provider: choice.provider,
          model: choice.model,
          temperature: body.temperature,
          maxTokens: body.max_tokens,
          ...toolsOf(body),
          clientId: identity.clientId ?? 'anthropic-compat',
          userToken: user ?? identity.clientId ?? 'anonymous',
          ...(user !== undefined ? { user } : {}),
          stream: body.stream === true,
          via: 'messages',
        },
        anthropicFormat,
      );
    },
  );
};

/** Anthropic's `metadata.user_id`, the end user the audit entry names. */
function userOf(metadata: unknown): string | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const id = (metadata as Record<string, unknown>).user_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** A tool call's arguments as the `input` object; text that is not a JSON object is kept under `_raw`. */
function inputOf(args: string): unknown {
  try {
    const v: unknown = JSON.parse(args === '' ? '{}' : args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { _raw: args };
  } catch {
    return { _raw: args };
  }
}

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Messages' shapes: a `message`, or its stream: message_start, content blocks (a text block, a tool_use block per
 * call with `input_json_delta`s; each opened when its first piece arrives and stopped before the next opens),
 * message_delta with the stop reason and usage, message_stop. A mid-stream error is an `error` event, which the
 * SDK raises.
 */
const anthropicFormat: ChatFormat = {
  whole(a) {
    const content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[] =
      [];
    if (a.text !== '' || a.toolCalls.length === 0) content.push({ type: 'text', text: a.text });
    for (const c of a.toolCalls)
      content.push({ type: 'tool_use', id: c.id, name: c.name, input: inputOf(c.arguments) });
    return {
      id: `msg_${a.auditId}`,
      type: 'message',
      role: 'assistant',
      model: a.model,
      content,
      stop_reason: STOP[a.finishReason],
      stop_sequence: null,
      usage: { input_tokens: a.usage.promptTokens, output_tokens: a.usage.completionTokens },
    };
  },
  stream(head) {
    let blocks = 0;
    /** The open block: 'text', a tool call's index, or none. */
    let open: 'text' | number | undefined;
    const toolBlocks = new Map<number, { id: string; name: string }>();
    const close = () => {
      if (open === undefined) return '';
      open = undefined;
      return event('content_block_stop', { type: 'content_block_stop', index: blocks - 1 });
    };
    return {
      start: () =>
        event('message_start', {
          type: 'message_start',
          message: {
            id: `msg_${head.auditId}`,
            type: 'message',
            role: 'assistant',
            model: head.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0 },
          },
        }),
      text(text) {
        if (text === '') return '';
        let out = '';
        if (open !== 'text') {
          out +=
            close() +
            event('content_block_start', {
              type: 'content_block_start',
              index: blocks,
              content_block: { type: 'text', text: '' },
            });
          blocks++;
          open = 'text';
        }
        return (
          out +
          event('content_block_delta', {
            type: 'content_block_delta',
            index: blocks - 1,
            delta: { type: 'text_delta', text },
          })
        );
      },
      toolCall(index, id, name, args) {
        let out = '';
        if (open !== index) {
          const known = toolBlocks.get(index) ?? { id: id ?? `toolu_${head.auditId}_${index}`, name: name ?? '' };
          // NB: never reopened in practice: serveChat sends what a channel held back before the next one begins.
          toolBlocks.set(index, known);
          out +=
            close() +
            event('content_block_start', {
              type: 'content_block_start',
              index: blocks,
              content_block: { type: 'tool_use', id: known.id, name: known.name, input: {} },
            });
          blocks++;
          open = index;
        }
        return args === ''
          ? out
          : out +
              event('content_block_delta', {
                type: 'content_block_delta',
                index: blocks - 1,
                delta: { type: 'input_json_delta', partial_json: args },
              });
      },
      end(a) {
        let out = close();
        if (blocks === 0) {
          out += event('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: '' },
          });
          out += event('content_block_stop', { type: 'content_block_stop', index: 0 });
        }
        out += event('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: STOP[a.finishReason], stop_sequence: null },
          usage: { input_tokens: a.usage.promptTokens, output_tokens: a.usage.completionTokens },
        });
        return out + event('message_stop', { type: 'message_stop' });
      },
      error: (e) => event('error', anthropicErrorBody(e, head.requestId)),
    };
  },
};
