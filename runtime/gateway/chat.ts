import { once } from 'node:events';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { identityOf } from '../auth/plugin.js';
import type { Identity } from '../auth/identity.js';
import {
  LlmAbortedError,
  type FinishReason,
  type LlmMessage,
  type LlmRequest,
  type LlmResponseFormat,
  type LlmStream,
  type LlmStreamEvent,
  type LlmTool,
  type LlmToolCall,
  type LlmToolChoice,
  type LlmUsage,
} from '../llm/index.js';
import { newId } from '../store/index.js';
import type { PolicyEvaluation } from '../policy/types.js';
import type { GatewayDeps } from './deps.js';
import { admitTokens, checkAndStartRecord, policyMessages, providerOf, requireProvider, toApiError, writeLlmRecords } from './governed.js';
import { compatErrorOf, policyViolation, promptOf, serverTimingOf, type CompatError } from './compat.js';
import { openOutputScan, type OutputScan, type OutputStep } from './output/scan.js';
import { clientSignal } from './routes/llm.js';

/**
 * The governed chat of the provider-compatible endpoints (`/v1/chat/completions`, `/v1/messages`), streamed or
 * not: token admission → input policies → provider → output policies (block, or redact in place) → audit. The
 * wire format is the route's (`ChatFormat`); everything else is here, once.
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

/** Sent text of one answer, kept for the audit entry. */
interface Transcript {
  text: string;
  calls: Map<number, LlmToolCall>;
}

/**
 * Serves one compatible chat request; returns the JSON body (not streamed) or undefined once the stream is
 * written (the reply is hijacked). Errors before the first byte are thrown and answered in the caller's format.
 */
export async function serveChat(deps: GatewayDeps, req: FastifyRequest, reply: FastifyReply, call: ChatCall, format: ChatFormat): Promise<unknown> {
  const identity = identityOf(req);
  const timing = serverTimingOf(req);
  const prompt = promptOf(call.messages);
  await admitTokens(deps, identity, prompt, call.maxTokens);
  const policyStart = performance.now();
  const { evaluation, contextId, committed } = await checkAndStartRecord(deps, identity, {
    query: prompt,
    surface: 'llm',
    clientId: call.clientId,
    userToken: call.userToken,
    llm: {
      provider: call.provider,
      model: call.model,
      messages: policyMessages(call.messages, call.names),
      ...(call.tools ? { tools: call.tools } : {}),
      ...(call.user !== undefined ? { user: call.user } : {}),
    },
  });
  void reply.header('x-steward-context-id', contextId);
  if (!evaluation.approved) {
    await writeLlmRecords(deps, () => committed);
    timing.add('policy', performance.now() - policyStart);
    deps.metrics?.outcome(req, 'blocked');
    throw policyViolation(evaluation, contextId);
  }
  // NB: an approved call goes on while its context row commits; the audit entry waits for it (its foreign key).
  timing.add('policy', performance.now() - policyStart);
  let target;
  try {
    target = requireProvider(deps, call.provider).get(call.provider);
  } catch (err) {
    await committed;
    throw err;
  }
  const scan = openOutputScan(deps.policies, {
    organizationId: identity.organizationId,
    tenantId: identity.tenantId,
    clientId: call.clientId,
    userToken: call.userToken,
    provider: target.name,
    model: call.model ?? target.defaultModel,
  });
  const request: LlmRequest & { provider?: string } = {
    provider: call.provider,
    messages: call.messages,
    model: call.model,
    temperature: call.temperature,
    maxTokens: call.maxTokens,
    ...(call.tools ? { tools: call.tools } : {}),
    ...(call.toolChoice ? { toolChoice: call.toolChoice } : {}),
    ...(call.responseFormat ? { responseFormat: call.responseFormat } : {}),
    signal: clientSignal(reply),
  };
  const audit = { deps, identity, call, prompt, contextId, committed };
  return call.stream ? streamed(audit, req, reply, request, scan, format) : whole(audit, req, reply, request, scan, format);
}

interface AuditParts {
  deps: GatewayDeps;
  identity: Identity;
  call: ChatCall;
  prompt: string;
  contextId: string;
  /** The context row's commit, which the audit entry waits for. */
  committed: Promise<void>;
}

async function whole(a: AuditParts, req: FastifyRequest, reply: FastifyReply, request: LlmRequest & { provider?: string }, scan: OutputScan, format: ChatFormat) {
  const { deps } = a;
  const timing = serverTimingOf(req);
  const upstreamStart = performance.now();
  let response;
  try {
    response = await deps.llm!.complete(request);
  } catch (err) {
    return providerFailed(a, err, upstreamStart);
  }
  timing.add('upstream', performance.now() - upstreamStart);
  deps.telemetry.llmCall(response.provider, response.model, response.latencyMs / 1000, response.usage);
  const outputStart = performance.now();
  const end = await scan.whole(response);
  const blocked = end.blocked ? end.evaluation : undefined;
  const { redactions } = end;
  const sent: Transcript = end.blocked
    ? { text: '', calls: new Map(response.toolCalls.map((c, i) => [i, { ...c, arguments: '' }])) }
    : { text: end.value.text, calls: new Map(response.toolCalls.map((c, i) => [i, { ...c, arguments: end.value.toolCalls[i]!.arguments }])) };
  if (scan.active) timing.add('output', performance.now() - outputStart);
  deps.telemetry.llmOutput(redactions, blocked ? { stream: false } : undefined);
  const auditId = newId('aud');
  const entry = {
    ...auditOf(a, response.provider, response.model, response.latencyMs, response.usage),
    id: auditId,
    response: blocked ? undefined : sent.text,
    metadata: {
      finish_reason: response.finishReason,
      governed: true,
      stream: false,
      ...outcomeOf(sent, redactions, blocked),
    },
  };
  await writeLlmRecords(deps, () => a.committed.then(() => deps.store.audit.record(entry)));
  void reply.header('x-steward-audit-id', auditId);
  if (blocked) {
    deps.metrics?.outcome(req, 'blocked');
    throw outputViolation(blocked, a.contextId);
  }
  const answer: ChatAnswer = {
    auditId,
    model: response.model,
    text: sent.text,
    toolCalls: [...sent.calls.values()],
    finishReason: response.finishReason,
    usage: response.usage,
  };
  return format.whole(answer, Math.floor(deps.now().getTime() / 1000));
}

async function streamed(a: AuditParts, req: FastifyRequest, reply: FastifyReply, request: LlmRequest & { provider?: string }, scan: OutputScan, format: ChatFormat) {
  const { deps } = a;
  const timing = serverTimingOf(req);
  const upstreamStart = performance.now();
  let stream: LlmStream;
  try {
    stream = await deps.llm!.stream(request);
  } catch (err) {
    return providerFailed(a, err, upstreamStart);
  }
  // NB: a stream's headers go before its answer exists: `upstream` is the time until the provider accepted.
  timing.add('upstream', performance.now() - upstreamStart, 'until the provider accepted');
  const auditId = newId('aud');
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    // NB: what hooks set on the reply (X-RateLimit-*) goes out too: a hijacked reply skips fastify's own writing.
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
    'x-steward-context-id': a.contextId,
    'x-steward-audit-id': auditId,
    'server-timing': timing.header(reply.elapsedTime),
  });
  const writer = format.stream({ auditId, model: stream.model, created: Math.floor(deps.now().getTime() / 1000), requestId: req.id });
  const send = async (bytes: string) => {
    if (bytes === '' || raw.destroyed) return;
    if (!raw.write(bytes)) await drained(raw);
  };
  const sent: Transcript = { text: '', calls: new Map() };
  let firstEventMs: number | undefined;
  let done: Extract<LlmStreamEvent, { type: 'done' }> | undefined;
  let blocked: PolicyEvaluation | undefined;
  let failure: unknown;
  let redactions: Record<string, number> = {};
  await send(writer.start());
  /** The channel the model writes now: the text, or a tool call's index. */
  let channel: 'text' | number | undefined;
  /** Sends text the scan held back of a channel (the answer's text, or a tool call's arguments). */
  const sendRest = async (of: 'text' | number, rest: string) => {
    if (rest === '') return;
    if (of === 'text') {
      sent.text += rest;
      return send(writer.text(rest));
    }
    const call = sent.calls.get(of);
    if (!call) return;
    call.arguments += rest;
    return send(writer.toolCall(of, undefined, undefined, rest));
  };
  /** The model moved to another channel (a tool call began after text, the next call): the last one's rest goes first. */
  const leave = async (next: 'text' | number) => {
    if (channel !== undefined && channel !== next) await sendRest(channel, scan.close(channel));
    channel = next;
  };
  try {
    for await (const ev of stream) {
      if (ev.type === 'done') {
        done = ev;
        continue;
      }
      if (firstEventMs === undefined) {
        firstEventMs = performance.now() - upstreamStart;
        deps.telemetry.llmFirstEvent(stream.provider, stream.model, firstEventMs / 1000);
      }
      if (ev.type === 'text') {
        if (ev.text === '') continue;
        await leave('text');
        const step = await scan.text(ev.text);
        blocked = emit(step, (t) => (sent.text += t));
        if (blocked) break;
        await send(writer.text(step.blocked ? '' : step.emit));
        continue;
      }
      await leave(ev.index);
      let call = sent.calls.get(ev.index);
      if (!call) sent.calls.set(ev.index, (call = { id: ev.id ?? `call_${auditId}_${ev.index}`, name: ev.name ?? '', arguments: '' }));
      const step = await scan.toolArguments(ev.index, ev.arguments, ev.name);
      blocked = emit(step, (t) => (call.arguments += t));
      if (blocked) break;
      await send(writer.toolCall(ev.index, ev.id, ev.name, step.blocked ? '' : step.emit));
    }
    if (!blocked) {
      const end = await scan.finish();
      redactions = end.redactions;
      if (end.blocked) blocked = end.evaluation;
      else {
        await sendRest('text', end.emit);
        for (const [i, rest] of end.toolArguments) await sendRest(i, rest);
      }
    }
  } catch (err) {
    failure = err;
  }
  const clientGone = failure instanceof LlmAbortedError || raw.destroyed;
  const latencyMs = Math.round((performance.now() - upstreamStart) * 10) / 10;
  const usage = done?.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  deps.telemetry.llmCall(stream.provider, done?.model ?? stream.model, latencyMs / 1000, failure ? undefined : usage);
  deps.telemetry.llmOutput(redactions, blocked ? { stream: true } : undefined);
  // NB: written before the stream's last event: a client that saw the end of a stream knows it was audited.
  try {
    const entry = {
      ...auditOf(a, stream.provider, done?.model ?? stream.model, latencyMs, usage),
      id: auditId,
      response: sent.text,
      metadata: {
        finish_reason: done?.finishReason ?? null,
        governed: true,
        stream: true,
        ttft_ms: firstEventMs === undefined ? null : Math.round(firstEventMs * 10) / 10,
        usage_reported: done?.usageReported ?? false,
        ...outcomeOf(sent, redactions, blocked),
        ...(!blocked && clientGone ? { decision: 'client_closed' } : {}),
        ...(!blocked && failure && !clientGone ? { decision: 'provider_error' } : {}),
        ...(failure && !clientGone ? { error: failure instanceof Error ? failure.message : String(failure) } : {}),
      },
    };
    await writeLlmRecords(deps, () => a.committed.then(() => deps.store.audit.record(entry)));
  } catch (err) {
    // The answer was sent but not recorded: end the stream with an error so the client does not take it as done.
    req.log.error({ err, auditId }, 'audit entry of a streamed answer failed');
    await send(writer.error({ status: 503, code: 'AUDIT_FAILED', message: 'the answer could not be audited; discard it' }));
    raw.end();
    return;
  }
  if (clientGone) {
    req.log.info({ code: 'CLIENT_CLOSED', auditId }, 'client closed the stream before the answer ended');
    raw.destroy();
    return;
  }
  if (blocked) {
    deps.metrics?.outcome(req, 'blocked');
    await send(writer.error(compatErrorOf(outputViolation(blocked, a.contextId), req)));
  } else if (failure) {
    await send(writer.error(compatErrorOf(toApiError(failure) as Error, req)));
  } else {
    await send(
      writer.end({ auditId, model: done?.model ?? stream.model, text: sent.text, toolCalls: [...sent.calls.values()], finishReason: done?.finishReason ?? 'other', usage }),
    );
  }
  raw.end();
}

/**
 * What output governance did to an answer, for its audit metadata: `decision` (blocked_output, redacted or allowed),
 * the redaction counts, the names of the tools called and the block's reason.
 */
function outcomeOf(sent: Transcript, redactions: Record<string, number>, blocked: PolicyEvaluation | undefined) {
  const redacted = Object.keys(redactions).length > 0;
  return {
    decision: blocked ? 'blocked_output' : redacted ? 'redacted' : 'allowed',
    ...(redacted ? { redactions } : {}),
    ...(sent.calls.size > 0 ? { tool_calls: [...sent.calls.values()].map((c) => c.name) } : {}),
    ...(blocked ? { block_reason: blocked.blockReason } : {}),
  };
}

/** Applies a scan step: calls `take` with the text to send, or returns the block. */
function emit(step: OutputStep, take: (text: string) => void): PolicyEvaluation | undefined {
  if (step.blocked) return step.evaluation;
  if (step.emit !== '') take(step.emit);
  return undefined;
}

/** Waits until the socket takes more, or is gone. */
async function drained(raw: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
  if (raw.destroyed) return;
  await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
}

/** A provider call that failed before any answer: counted, the context row written, the error in the catalogue's terms. */
async function providerFailed(a: AuditParts, err: unknown, startedAt: number): Promise<never> {
  a.deps.telemetry.llmCall(providerOf(err, a.call.provider), a.call.model ?? 'default', (performance.now() - startedAt) / 1000);
  await writeLlmRecords(a.deps, () => a.committed);
  throw toApiError(err);
}

function auditOf(a: AuditParts, provider: string, model: string, latencyMs: number, usage: LlmUsage) {
  return {
    organizationId: a.identity.organizationId,
    clientId: a.call.clientId,
    contextId: a.contextId,
    userToken: a.call.userToken,
    provider,
    model,
    prompt: a.prompt,
    latencyMs,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
  };
}

/** An answer an output policy stopped: 403 POLICY_VIOLATION with `details.stage: output`. */
function outputViolation(evaluation: PolicyEvaluation, contextId: string): ApiError {
  return new ApiError('gateway', 'POLICY_VIOLATION', `the answer was blocked by policy: ${evaluation.blockReason ?? 'policy'}`, {
    stage: 'output',
    block_reason: evaluation.blockReason,
    policies: evaluation.triggered,
    context_id: contextId,
  });
}
