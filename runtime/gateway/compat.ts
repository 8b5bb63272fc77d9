import type { FastifyInstance, FastifyRequest } from 'fastify';
import { installErrorHandler } from '../http/error-handler.js';
import { httpErrorOf, type ErrorBodyRenderer, type ErrorMapping, type RenderedError } from '../http/error-model.js';
import { ApiError, echo } from '../http/errors.js';
import type { LlmMessage, LlmRouter } from '../llm/index.js';

/**
 * What the provider-compatible endpoints (`/v1/chat/completions`, `/v1/messages`, `/v1/models`) share: the rule
 * that picks a provider from `model`, and an error handler that answers in the caller's wire format.
 */

/** The provider and model a compatible request's `model` names; undefined fields take the router's defaults. */
export interface ModelChoice {
  provider?: string;
  model?: string;
}

/**
 * The model rule (docs/llm-proxy.md): `<provider>/<model>` when `<provider>` is a configured provider's name or
 * type; `<provider>` alone for that provider's configured model; a provider's configured model by itself for that
 * provider; anything else is a model of the default provider, passed as it is (so `gpt-4o` or
 * `meta-llama/Llama-3` reach the default provider unchanged).
 */
export function chooseModel(router: LlmRouter | undefined, model: string): ModelChoice {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const provider = model.slice(0, slash);
    const rest = model.slice(slash + 1);
    if (router?.hasProvider(provider)) return rest ? { provider, model: rest } : { provider };
  }
  if (router?.hasProvider(model)) return { provider: model };
  const owner = router?.names.find((name) => router.get(name).defaultModel === model);
  return owner ? { provider: owner, model } : { model };
}

/** One error as the compatible formats render it (error-model.ts). */
export type CompatError = RenderedError;

export type CompatErrorBody = ErrorBodyRenderer;

/** The compatible routes' mapping: the gateway's catalogue, with upstream 400/404/429 passed on. */
const COMPAT: ErrorMapping = { surface: 'gateway', passUpstream: true };

/**
 * Installs an error handler on the scope of compatible routes (it also catches the credential check and body
 * parsing of those routes): the same codes and statuses as the gateway's catalogue, in the caller's format.
 */
export function installCompatErrorHandler(app: FastifyInstance, render: CompatErrorBody): void {
  installErrorHandler(app, COMPAT, render);
}

/** An error as the compatible formats report it (a stream's error event): the compatible routes' mapping. */
export function compatErrorOf(err: Error, req: FastifyRequest): CompatError {
  return httpErrorOf(err, COMPAT, req.log);
}

/** The caller asked for something these endpoints do not serve yet: 400, never silently ignored. */
export function unsupported(field: string, what: string): ApiError {
  return new ApiError('gateway', 'INVALID_REQUEST', `${field}: ${what} is not supported by this endpoint yet`, {
    field,
  });
}

/** The text of a content field: a string, or text parts joined by newlines; any other part is refused. */
export function textOf(
  content: string | readonly { type: string; text?: string }[] | null | undefined,
  field: string,
): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type !== 'text' || typeof part.text !== 'string')
        throw unsupported(`${field}[${i}]`, `a content part of type ${echo(part.type)}`);
      return part.text;
    })
    .join('\n');
}

/**
 * The text the context and audit entry record (and `input.query`): every message, in order. NB: assistant turns
 * too: the caller writes them (a client may put anything there) and the provider reads them.
 */
export function promptOf(messages: readonly LlmMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.content !== '') parts.push(m.content);
    // NB: the arguments of calls the conversation says the model made are text the provider reads, like content.
    if (m.toolCalls) for (const c of m.toolCalls) parts.push(`${c.name}(${c.arguments})`);
  }
  return parts.join('\n');
}

/**
 * `Server-Timing` of one answer (auth, policy, upstream, output, total, in ms) so that callers see Steward's own
 * overhead: `auth` is the time from the request's arrival to its body (authentication, rate limits, reading the
 * body), `total` the time to the answer's head.
 */
export class ServerTiming {
  private readonly parts: string[] = [];

  constructor(authMs: number) {
    this.add('auth', authMs);
  }

  add(name: string, ms: number, desc?: string): void {
    this.parts.push(`${name};dur=${ms.toFixed(1)}${desc ? `;desc="${desc}"` : ''}`);
  }

  header(totalMs: number): string {
    return `${this.parts.join(', ')}, total;dur=${totalMs.toFixed(1)}`;
  }
}

const timings = new WeakMap<FastifyRequest, ServerTiming>();

/** The request's Server-Timing (made when its body starts, by `installServerTiming`; else now). */
export function serverTimingOf(req: FastifyRequest): ServerTiming {
  let t = timings.get(req);
  if (!t) timings.set(req, (t = new ServerTiming(0)));
  return t;
}

/** Puts `Server-Timing` on every answer of the scope, errors included (streams set theirs with their head). */
export function installServerTiming(app: FastifyInstance): void {
  app.addHook('preParsing', (req, reply, payload, done) => {
    timings.set(req, new ServerTiming(reply.elapsedTime));
    done(null, payload);
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    // NB: a request refused before its body (credentials, limits) has no timing yet: all of it was `auth`.
    if (!reply.hasHeader('server-timing'))
      void reply.header(
        'server-timing',
        (timings.get(req) ?? new ServerTiming(reply.elapsedTime)).header(reply.elapsedTime),
      );
    done(null, payload);
  });
}

/**
 * The conversation as the policies read it (`input.llm.messages`): `{role, content}` per turn, with
 * `tool_calls: [{id, name, arguments}]` on assistant turns that made calls, `tool_call_id` on tool turns and
 * `name` where the body gave one (`names`, by index).
 */
export function policyMessages(
  messages: readonly LlmMessage[],
  names?: readonly (string | undefined)[],
): Record<string, unknown>[] {
  return messages.map((m, i) => ({
    role: m.role,
    content: m.content,
    ...(names?.[i] !== undefined ? { name: names[i] } : {}),
    ...(m.toolCalls && m.toolCalls.length > 0
      ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
      : {}),
    ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
  }));
}
