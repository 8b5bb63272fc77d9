import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { definedFields } from '../../platform/objects.js';
import { budgetHeaders } from '../budgets/gate.js';
import { warnCaller } from '../http/warning-header.js';
import { identityOf } from '../auth/plugin.js';
import {
  collect,
  llmUpstream,
  openGoverned,
  PolicyBlockedError,
  type GovernedAnswer,
  type GovernedRun,
} from '../governed/index.js';
import { isClientClosed } from '../http/error-model.js';
import type {
  FinishReason,
  LlmMessage,
  LlmResponseFormat,
  LlmTool,
  LlmToolCall,
  LlmToolChoice,
  LlmUsage,
} from '../llm/index.js';
import type { ModelRouteOptions } from './deps.js';
import { compatErrorOf, policyMessages, promptOf, serverTimingOf, type CompatError } from './compat.js';
import { clientSignal } from './routes/llm.js';

/**
 * The provider-compatible endpoints' rendering (`/v1/chat/completions`, `/v1/messages`) of the governed pipeline
 * (runtime/governed/): the request in the common model in, the answer in the route's wire format (`ChatFormat`)
 * out, whole or streamed. No stage of governance is here.
 */

/** One chat request in the common model, as a compatible route read it. */
export interface ChatCall {
  messages: LlmMessage[];
  provider?: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  tools?: LlmTool[];
  toolChoice?: LlmToolChoice;
  responseFormat?: LlmResponseFormat;
  clientId: string;
  userToken: string;
  /**
   * The end-user field of the body as sent (OpenAI `user`, Anthropic `metadata.user_id`): stored as the audit
   * entry's user, so the policies read it (`input.llm.user`) as they read the messages.
   */
  user?: string;
  /** The `name` of each message, by index (OpenAI): dropped on the way to the provider, but read by the policies. */
  names?: readonly (string | undefined)[];
  stream: boolean;
  /** The route, for the audit row. */
  via: 'chat_completions' | 'messages';
}

/** A finished answer, as the format renders it whole or in its last events. */
export interface ChatAnswer {
  /** `chatcmpl-…` / `msg_…` are made from it. */
  auditId: string;
  model: string;
  text: string;
  toolCalls: LlmToolCall[];
  finishReason: FinishReason;
  usage: LlmUsage;
}

/** The start of a stream: what the first events name. */
export interface StreamHead {
  auditId: string;
  model: string;
  /** Unix seconds. */
  created: number;
  /** The request's id, which error events carry. */
  requestId: string;
}

/** One streamed answer in a wire format: each call returns the bytes to send (possibly none). */
export interface StreamWriter {
  start(): string;
  text(text: string): string;
  /** A tool call's piece: `id` and `name` on its first piece, then argument text. */
  toolCall(index: number, id: string | undefined, name: string | undefined, args: string): string;
  /** The last events of a complete answer (finish reason, usage, the end marker). */
  end(answer: ChatAnswer): string;
  /** A well-formed error event that ends the stream. */
  error(e: CompatError): string;
}

export interface ChatFormat {
  /** The answer as one JSON body. */
  whole(answer: ChatAnswer, created: number): unknown;
  stream(head: StreamHead): StreamWriter;
}

/**
 * Serves one compatible chat request on the governed pipeline: returns the JSON body, or the event stream for
 * fastify to send (its head carries what hooks set: rate limits, Server-Timing, the request id). Errors before the
 * stream's head are thrown and answered in the caller's format; later ones are the stream's last event.
 */
export async function serveChat(
  deps: ModelRouteOptions,
  req: FastifyRequest,
  reply: FastifyReply,
  call: ChatCall,
  format: ChatFormat,
): Promise<unknown> {
  const identity = identityOf(req);
  const timing = serverTimingOf(req);
  let run: GovernedRun;
  try {
    run = await openGoverned(
      deps,
      {
        via: call.via,
        surface: 'llm',
        identity,
        clientId: call.clientId,
        userToken: call.userToken,
        prompt: promptOf(call.messages),
        llm: {
          provider: call.provider,
          model: call.model,
          messages: policyMessages(call.messages, call.names),
          ...(call.tools ? { tools: call.tools } : {}),
          ...(call.user !== undefined ? { user: call.user } : {}),
        },
        maxTokens: call.maxTokens,
        stream: call.stream,
        signal: clientSignal(reply),
        timing: (name, ms, desc) => timing.add(name, ms, desc),
      },
      () =>
        llmUpstream(deps.llm, {
          provider: call.provider,
          messages: call.messages,
          model: call.model,
          temperature: call.temperature,
          maxTokens: call.maxTokens,
          ...definedFields({ tools: call.tools, toolChoice: call.toolChoice, responseFormat: call.responseFormat }),
        }),
    );
  } catch (err) {
    if (err instanceof PolicyBlockedError) {
      void reply.header('x-steward-context-id', err.contextId);
      deps.metrics.outcome(req, 'blocked');
    }
    throw err;
  }
  void reply.header('x-steward-context-id', run.contextId).header('x-steward-audit-id', run.auditId);
  if (run.budget) void reply.headers(budgetHeaders(run.budget.view));
  const created = Math.floor(deps.now().getTime() / 1000);
  if (!call.stream) {
    let answer;
    try {
      answer = await collect(run);
    } catch (err) {
      if (err instanceof PolicyBlockedError) deps.metrics.outcome(req, 'blocked');
      throw err;
    }
    warnCaller(reply, answer.warnings);
    return format.whole(chatAnswer(answer), created);
  }
  // NB: a stream's head goes out before its answer: the input policies' and the budgets' warnings only (the answer's
  // are audited).
  warnCaller(reply, [...run.evaluation.warnings, ...(run.budget?.warnings ?? [])]);
  const writer = format.stream({ auditId: run.auditId, model: run.model, created, requestId: req.id });
  void reply
    .header('content-type', 'text/event-stream; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('x-accel-buffering', 'no');
  return reply.send(Readable.from(sse(deps, req, run, writer), { objectMode: false }));
}

/** A run's events in the format's bytes; an error after the head is the stream's last event. */
async function* sse(
  deps: Pick<ModelRouteOptions, 'metrics'>,
  req: FastifyRequest,
  run: GovernedRun,
  writer: StreamWriter,
): AsyncGenerator<string> {
  yield writer.start();
  try {
    for await (const ev of run.events()) {
      const bytes =
        ev.type === 'text'
          ? writer.text(ev.text)
          : ev.type === 'tool'
            ? writer.toolCall(ev.index, ev.id, ev.name, ev.arguments)
            : writer.end(chatAnswer(ev.answer));
      if (bytes !== '') yield bytes;
    }
  } catch (err) {
    if (isClientClosed(err)) {
      req.log.info({ code: 'CLIENT_CLOSED', auditId: run.auditId }, 'client closed the stream before the answer ended');
      return;
    }
    if (err instanceof PolicyBlockedError) deps.metrics.outcome(req, 'blocked');
    yield writer.error(compatErrorOf(err as Error, req));
  }
}

function chatAnswer(a: GovernedAnswer): ChatAnswer {
  return {
    auditId: a.auditId,
    model: a.model,
    text: a.text,
    toolCalls: a.toolCalls,
    finishReason: a.finishReason,
    usage: a.usage,
  };
}
