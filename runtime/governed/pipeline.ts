/**
 * The one governed path of every call that reaches a model, whatever the surface it came in on (docs/architecture.md,
 * ADR 0011): admission (tokens per minute) → input policies → context row → upstream (a provider, whole or streamed,
 * or a pool agent) → output scan (block, or mask streaming-safe) → audit row, written before the answer's end.
 * Surfaces differ only in how they render `GovernedRun.events()`; none of them re-implements a stage.
 */
import { LLM_OUTPUT_SURFACE } from '../../api/index.js';
import type { Identity } from '../auth/identity.js';
import { asApiError } from '../http/error-model.js';
import { ApiError } from '../http/errors.js';
import {
  DEFAULT_MAX_TOKENS,
  LlmAbortedError,
  type LlmStreamEvent,
  type LlmToolCall,
  type LlmUsage,
} from '../llm/index.js';
import { RateLimitStoreError, type RateLimitDecision } from '../limits/index.js';
import type { PolicyEvaluation } from '../policy/types.js';
import { policyClient, requestTypeOf } from '../policy/caller.js';
import { evaluatePolicies } from './policy-call.js';
import { detectorsOf, redactText, type Detector, type RedactionCounts } from '../redact/index.js';
import { newId } from '../store/index.js';
import { AuditFailedError, PolicyBlockedError } from './errors.js';
import { openOutputScan, type OutputScan } from './output-scan.js';
import type {
  GovernedAnswer,
  GovernedDeps,
  GovernedEvent,
  GovernedRequest,
  GovernedRun,
  InputSurface,
  Upstream,
  UpstreamAnswer,
} from './types.js';

const NO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** An input stage's outcome: the decision, and the context row on its way to the database. */
export interface InputCheck {
  evaluation: PolicyEvaluation;
  contextId: string;
  /** When the context row expires (a pre-check's audit must come before). */
  expiresAt: Date;
  /** Resolves once the context row is committed (the audit row's foreign key needs it first). Handled: awaiting later is safe. */
  committed: Promise<void>;
}

/** What the input stage asks the policies about (the pre-check and a plan's forwarding use it alone). */
export type InputCall = Pick<
  GovernedRequest,
  'identity' | 'clientId' | 'userToken' | 'prompt' | 'requestType' | 'context' | 'llm'
> & {
  surface: InputSurface | 'pre-check';
  /**
   * Whether Steward writes the call's audit row itself. @default true. A pre-check's context waits for the
   * caller's own `POST /api/audit/llm-call`.
   */
  auditedHere?: boolean;
};

/**
 * The input stage: the organization's policies for the surface, and the call's context row (approved or blocked).
 * The only writer of context rows.
 */
export async function checkInput(deps: GovernedDeps, call: InputCall): Promise<InputCheck> {
  const { identity } = call;
  const evaluation = await evaluatePolicies(
    deps.policies,
    {
      query: call.prompt,
      surface: call.surface,
      client_id: call.clientId,
      client: policyClient(identity),
      request_type: requestTypeOf(call.surface, call.requestType),
      user: { id: call.userToken },
      context: call.context ?? {},
      ...(call.llm ? { llm: call.llm } : {}),
    },
    { surface: call.surface, organizationId: identity.organizationId, tenantId: identity.tenantId },
  );
  const createdAt = deps.now();
  const expiresAt = new Date(createdAt.getTime() + deps.contextTtlMs);
  const contextId = newId('ctx');
  const committed = deps.store.contexts
    .record({
      id: contextId,
      organizationId: identity.organizationId,
      clientId: call.clientId,
      userToken: call.userToken,
      // NB: the context keeps only the query's SHA-256 (runtime/store/contexts.ts), never its text
      query: call.prompt,
      approved: evaluation.approved,
      policies: evaluation.triggered,
      blockReason: evaluation.blockReason,
      warnings: evaluation.warnings,
      createdAt,
      expiresAt,
      // NB: a governed call writes its own audit row: POST /api/audit/llm-call cannot add a second one
      auditedByGateway: call.auditedHere ?? true,
    })
    .then(() => undefined);
  committed.catch(() => {});
  return { evaluation, contextId, expiresAt, committed };
}

/**
 * Opens one governed call: admission, the input stage and the upstream's start. Throws, before anything is sent,
 * the typed failures of these stages (a blocked input is a PolicyBlockedError; the upstream was never called).
 * Each of them is audited like an answer.
 */
export async function openGoverned(
  deps: GovernedDeps,
  req: GovernedRequest,
  upstreamOf: () => Upstream,
): Promise<GovernedRun> {
  const t0 = performance.now();
  const reservation = await admitTokens(deps, req.identity, req.prompt, req.maxTokens);
  let check: InputCheck;
  try {
    check = await checkInput(deps, req);
  } catch (err) {
    reservation?.settle(0);
    throw err;
  }
  const policyMs = performance.now() - t0;
  req.timing?.('policy', policyMs);
  const audit = new AuditRecord(deps, req, check, t0, reservation);
  if (!check.evaluation.approved) {
    await audit.write({
      decision: 'blocked_input',
      provider: req.llm?.provider,
      model: req.llm?.model,
      blocked: check.evaluation,
    });
    throw new PolicyBlockedError('input', check.evaluation, check.contextId);
  }
  let upstream: Upstream;
  try {
    // NB: after the policies: an input they block is blocked whether or not a provider is configured.
    upstream = upstreamOf();
  } catch (err) {
    await audit.write({ decision: 'refused', provider: req.llm?.provider, model: req.llm?.model, error: err });
    throw err;
  }
  const scan = openOutputScan(deps.policies, {
    organizationId: req.identity.organizationId,
    tenantId: req.identity.tenantId,
    clientId: req.clientId,
    userToken: req.userToken,
    provider: upstream.provider,
    model: upstream.model,
    ...(req.context ? { context: req.context } : {}),
  });
  const started = performance.now();
  let source: Source;
  try {
    source =
      req.stream && upstream.stream
        ? streamSource(await upstream.stream(req.signal))
        : wholeSource(await upstream.complete(req.signal));
  } catch (err) {
    const ms = performance.now() - started;
    audit.upstreamMs = ms;
    deps.telemetry.llmCall(providerOf(err, upstream.provider), upstream.model, ms / 1000);
    await audit.write({
      decision: err instanceof LlmAbortedError ? 'client_closed' : 'provider_error',
      provider: providerOf(err, upstream.provider),
      model: upstream.model,
      error: err,
      facts: factsOf(err),
    });
    throw err;
  }
  audit.upstreamMs = performance.now() - started;
  req.timing?.('upstream', audit.upstreamMs, req.stream ? 'until the upstream accepted' : undefined);
  return {
    contextId: check.contextId,
    auditId: audit.id,
    evaluation: check.evaluation,
    provider: source.provider ?? upstream.provider,
    model: source.model ?? upstream.model,
    events: () => answer(deps, req, upstream, source, scan, audit, check, started),
  };
}

/** The whole answer of a run: its events collected; throws what ended it. */
export async function collect(run: GovernedRun): Promise<GovernedAnswer> {
  for await (const ev of run.events()) if (ev.type === 'end') return ev.answer;
  throw new Error('a governed answer ended without its end event');
}

/** The upstream's answer as events: a provider's stream, or a whole answer replayed as one piece per channel. */
interface Source {
  provider?: string;
  model?: string;
  /** a whole answer: scanned as one piece (one evaluation of the block policies) */
  whole: boolean;
  events: AsyncIterator<LlmStreamEvent>;
  facts?: Record<string, unknown>;
}

function streamSource(stream: AsyncIterable<LlmStreamEvent> & { provider: string; model: string }): Source {
  return { provider: stream.provider, model: stream.model, whole: false, events: stream[Symbol.asyncIterator]() };
}

function wholeSource(a: UpstreamAnswer): Source {
  const events: LlmStreamEvent[] = [];
  if (a.text !== '') events.push({ type: 'text', text: a.text });
  a.toolCalls.forEach((c, index) =>
    events.push({ type: 'tool_call', index, id: c.id, name: c.name, arguments: c.arguments }),
  );
  events.push({
    type: 'done',
    model: a.model,
    finishReason: a.finishReason,
    rawFinishReason: null,
    usage: a.usage,
    usageReported: true,
  });
  return {
    provider: a.provider,
    model: a.model,
    whole: true,
    events: events[Symbol.iterator]() as unknown as AsyncIterator<LlmStreamEvent>,
    facts: a.facts,
  };
}

/** Sent text of one answer, for the audit row and the end event. */
interface Transcript {
  text: string;
  calls: Map<number, LlmToolCall>;
}

/**
 * The answer loop: every upstream event passes the output scan before it is yielded; the audit row is written
 * before the end event or the error. Times spent waiting on the upstream and on the consumer are kept apart, so
 * that the row records Steward's own time.
 */
async function* answer(
  deps: GovernedDeps,
  req: GovernedRequest,
  upstream: Upstream,
  source: Source,
  scan: OutputScan,
  audit: AuditRecord,
  check: InputCheck,
  started: number,
): AsyncGenerator<GovernedEvent, void, undefined> {
  const provider = source.provider ?? upstream.provider;
  const sent: Transcript = { text: '', calls: new Map() };
  let firstEventMs: number | undefined;
  let done: Extract<LlmStreamEvent, { type: 'done' }> | undefined;
  let blocked: PolicyEvaluation | undefined;
  let failure: unknown;
  let redactions: Record<string, number> = {};
  let lastEvaluation: PolicyEvaluation | null = null;
  const outputStart = performance.now();
  let waitedMs = 0;
  /** The events to yield after a scan step; `undefined` once the answer is blocked. */
  const pending: GovernedEvent[] = [];
  /** The channel the model writes now: the text, or a tool call's index. */
  let channel: 'text' | number | undefined;
  const rest = (of: 'text' | number, text: string) => {
    if (text === '') return;
    if (of === 'text') {
      sent.text += text;
      pending.push({ type: 'text', text });
      return;
    }
    const call = sent.calls.get(of);
    if (!call) return;
    call.arguments += text;
    pending.push({ type: 'tool', index: of, arguments: text });
  };
  const leave = (next: 'text' | number) => {
    if (channel !== undefined && channel !== next) rest(channel, scan.close(channel));
    channel = next;
  };
  /** Whether the audit row is written; a consumer that stops early (a client gone) leaves it to `finally`. */
  let audited = false;
  const record = (o: Outcome) => {
    audited = true;
    return audit.write(o);
  };
  try {
    try {
      for (;;) {
        const w = performance.now();
        const next = await source.events.next();
        audit.upstreamMs += performance.now() - w;
        if (next.done) break;
        const ev = next.value;
        if (ev.type === 'done') {
          done = ev;
          continue;
        }
        if (firstEventMs === undefined) {
          firstEventMs = performance.now() - started;
          if (!source.whole)
            deps.telemetry.llmFirstEvent(provider, source.model ?? upstream.model, firstEventMs / 1000);
        }
        if (ev.type === 'text') {
          if (ev.text === '') continue;
          leave('text');
          const step = await scan.text(ev.text);
          if (step.blocked) {
            blocked = step.evaluation;
            break;
          }
          rest('text', step.emit);
        } else {
          leave(ev.index);
          let call = sent.calls.get(ev.index);
          const first = !call;
          if (!call)
            sent.calls.set(
              ev.index,
              (call = { id: ev.id ?? `call_${audit.id}_${ev.index}`, name: ev.name ?? '', arguments: '' }),
            );
          const step = await scan.toolArguments(ev.index, ev.arguments, ev.name);
          if (step.blocked) {
            blocked = step.evaluation;
            break;
          }
          call.arguments += step.emit;
          if (first || step.emit !== '')
            pending.push({
              type: 'tool',
              index: ev.index,
              ...(first ? { id: call.id, name: call.name } : {}),
              arguments: step.emit,
            });
        }
        if (!source.whole) {
          // NB: a whole answer goes in one piece at its end; a stream's pieces go as they pass the scan.
          const y = performance.now();
          for (const p of pending.splice(0)) yield p;
          waitedMs += performance.now() - y;
        }
      }
      if (!blocked) {
        const end = await scan.finish();
        redactions = end.redactions;
        lastEvaluation = end.evaluation;
        if (end.blocked) blocked = end.evaluation;
        else {
          rest('text', end.emit);
          for (const [i, r] of end.toolArguments) rest(i, r);
        }
      }
    } catch (err) {
      failure = err;
    }
    if (blocked) {
      pending.length = 0;
      redactions = (await scan.finish()).redactions;
    }
    const clientGone = failure instanceof LlmAbortedError || req.signal?.aborted === true;
    const model = done?.model ?? source.model ?? upstream.model;
    const usage = done?.usage ?? NO_USAGE;
    deps.telemetry.llmCall(provider, model, audit.upstreamMs / 1000, failure ? undefined : usage);
    deps.telemetry.llmOutput(redactions, blocked ? { stream: !source.whole } : undefined);
    if (scan.active) req.timing?.('output', Math.max(0, performance.now() - outputStart - audit.upstreamMs - waitedMs));
    audit.waitedMs = waitedMs;
    try {
      await record({
        decision: blocked
          ? 'blocked_output'
          : clientGone
            ? 'client_closed'
            : failure
              ? 'provider_error'
              : Object.keys(redactions).length
                ? 'redacted'
                : 'allowed',
        provider,
        model,
        usage,
        // NB: what the caller got: nothing of a whole answer that was blocked, the part sent of a stream
        response: blocked && source.whole ? undefined : sent.text,
        redactions,
        toolCalls: [...sent.calls.values()].map((c) => c.name),
        blocked,
        error: clientGone ? undefined : failure,
        facts: source.facts,
        stream: {
          whole: source.whole,
          ttftMs: firstEventMs,
          finishReason: done?.finishReason ?? null,
          usageReported: done?.usageReported ?? false,
        },
      });
    } catch (err) {
      deps.log.error({ err, auditId: audit.id }, 'audit row of a governed answer failed');
      throw new AuditFailedError(audit.id, { cause: err });
    }
    if (clientGone) throw failure instanceof LlmAbortedError ? failure : new LlmAbortedError(provider);
    if (blocked) throw new PolicyBlockedError('output', blocked, check.contextId);
    if (failure) throw failure;
    for (const p of pending) yield p;
    yield {
      type: 'end',
      answer: {
        auditId: audit.id,
        contextId: check.contextId,
        provider,
        model,
        text: sent.text,
        toolCalls: [...sent.calls.values()],
        finishReason: done?.finishReason ?? 'other',
        usage,
        redactions,
        warnings: [...check.evaluation.warnings, ...(lastEvaluation?.warnings ?? [])],
        evaluation: check.evaluation,
      },
    };
  } finally {
    if (!audited) {
      // The consumer stopped reading mid-answer (the client went away): the upstream is closed, the call recorded.
      await source.events.return?.().catch(() => undefined);
      audit.waitedMs = waitedMs;
      await record({
        decision: 'client_closed',
        provider,
        model: done?.model ?? source.model ?? upstream.model,
        usage: done?.usage,
        response: sent.text,
        redactions: {},
      }).catch((err: unknown) => deps.log.error({ err, auditId: audit.id }, 'audit row of an abandoned answer failed'));
    }
  }
}

/**
 * The audit row of a call governed elsewhere (a plan forwarded to the orchestrator): the same shape and writer as
 * the pipeline's own rows. Returns the row's id.
 */
export async function recordOutcome(
  deps: GovernedDeps,
  req: GovernedRequest,
  check: InputCheck,
  t0: number,
  outcome: Outcome & { upstreamMs?: number },
): Promise<string> {
  const audit = new AuditRecord(deps, req, check, t0);
  audit.upstreamMs = outcome.upstreamMs ?? 0;
  await audit.write(outcome);
  return audit.id;
}

/** What one audit row says of its call's outcome. */
export interface Outcome {
  decision:
    'allowed' | 'redacted' | 'blocked_input' | 'blocked_output' | 'refused' | 'provider_error' | 'client_closed';
  provider?: string;
  model?: string;
  usage?: LlmUsage;
  response?: string;
  redactions?: Record<string, number>;
  toolCalls?: string[];
  blocked?: PolicyEvaluation;
  error?: unknown;
  stream?: { whole: boolean; ttftMs: number | undefined; finishReason: string | null; usageReported: boolean };
  /** the upstream's own facts (UpstreamAnswer.facts) */
  facts?: Record<string, unknown>;
}

/**
 * The audit row of one governed call, whatever the surface: one shape, one writer. It waits for the context row
 * (its foreign key) and is committed before the answer's end, or behind it under `STEWARD_LLM_AUDIT=background`.
 */
class AuditRecord {
  readonly id = newId('aud');
  /** time spent waiting on the upstream (the provider's latency as Steward sees it) */
  upstreamMs = 0;
  /** time a stream waited on its consumer */
  waitedMs = 0;

  constructor(
    private readonly deps: GovernedDeps,
    private readonly req: GovernedRequest,
    private readonly check: InputCheck,
    private readonly t0: number,
    /** the call's tokens-per-minute reservation, brought down to what it used once the outcome is known */
    private readonly reservation?: TokenReservation,
  ) {}

  async write(o: Outcome): Promise<void> {
    const { deps, req, check } = this;
    // NB: the usage the provider reported (or the adapter's estimate); without one (a pool agent's answer, a
    // stream cut short) characters / 4 of the prompt and of what was sent; nothing for a call that got no answer.
    const used =
      o.usage && o.usage.totalTokens > 0
        ? o.usage.totalTokens
        : o.response || o.decision === 'client_closed'
          ? Math.ceil((req.prompt.length + (o.response?.length ?? 0)) / 4)
          : 0;
    this.reservation?.settle(used);
    const prompt = auditText(deps, req.identity, req.prompt);
    // NB: the answer is stored as it was sent: the output scan masked it with the same kinds already.
    const response = o.response === undefined || o.response === '' ? undefined : { text: o.response };
    const totalMs = performance.now() - this.t0;
    const usage = o.usage ?? NO_USAGE;
    const entry = {
      id: this.id,
      organizationId: req.identity.organizationId,
      clientId: req.clientId,
      contextId: check.contextId,
      userToken: req.userToken,
      provider: o.provider,
      model: o.model,
      prompt: prompt.text,
      // NB: the answer as it was sent: masked where a redact policy applied
      response: response?.text,
      latencyMs: round(this.upstreamMs),
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      totalTokens: usage.totalTokens,
      metadata: {
        governed: true,
        via: req.via,
        surface: req.surface,
        decision: o.decision,
        stream: o.stream ? !o.stream.whole : req.stream === true,
        steward_ms: round(Math.max(0, totalMs - this.upstreamMs - this.waitedMs)),
        upstream_ms: round(this.upstreamMs),
        stored_text: deps.auditRawText ? 'raw' : 'masked',
        ...(o.stream ? { finish_reason: o.stream.finishReason } : {}),
        ...(o.stream && !o.stream.whole
          ? {
              ttft_ms: o.stream.ttftMs === undefined ? null : round(o.stream.ttftMs),
              usage_reported: o.stream.usageReported,
            }
          : {}),
        ...(o.redactions && Object.keys(o.redactions).length ? { redactions: o.redactions } : {}),
        ...(prompt.masked ? { prompt_redactions: prompt.masked } : {}),
        ...(o.toolCalls?.length ? { tool_calls: o.toolCalls } : {}),
        ...(o.blocked ? { block_reason: o.blocked.blockReason, policies: o.blocked.triggered } : {}),
        ...(o.error !== undefined ? errorFacts(o.error) : {}),
        ...(req.identity.tenantId ? { tenant_id: req.identity.tenantId } : {}),
        ...o.facts,
        ...req.metadata,
      },
    };
    const write = () => check.committed.then(() => deps.store.audit.record(entry));
    if (deps.llmAudit !== 'background' || !deps.backgroundWrites || deps.backgroundWrites.full) {
      await write();
      return;
    }
    deps.backgroundWrites.track(write());
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** The error's code (its own, or the catalogue's) and a bounded message, for the audit row. */
function errorFacts(err: unknown): Record<string, unknown> {
  const mapped = asApiError(err);
  const e =
    typeof mapped === 'object' && mapped !== null ? (mapped as { code?: unknown; message?: unknown }) : undefined;
  const code = typeof e?.code === 'string' ? e.code : 'INTERNAL_ERROR';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { error_code: code, error: message.slice(0, 300) };
}

/**
 * Text as audit rows store it: masked with the kinds of the organization's redact policies (and the
 * counts of what was masked), unless `auditRawText` asks for it raw.
 */
export function auditText(
  deps: GovernedDeps,
  identity: Identity,
  text: string,
): { text: string; masked?: RedactionCounts } {
  if (deps.auditRawText || text === '') return { text };
  const kinds = deps.policies.redactKinds({
    surface: LLM_OUTPUT_SURFACE,
    organizationId: identity.organizationId,
    tenantId: identity.tenantId,
  });
  if (kinds.length === 0) return { text };
  const counts: RedactionCounts = {};
  const masked = redactText(text, counts, detectorsFor(kinds));
  return Object.keys(counts).length ? { text: masked, masked: counts } : { text };
}

/** Detectors per kinds list: the policy engine hands out one list per organization and tenant until it rebuilds. */
const detectorCache = new WeakMap<readonly string[], Detector[]>();

function detectorsFor(kinds: readonly string[]): Detector[] {
  let detectors = detectorCache.get(kinds);
  if (!detectors) detectorCache.set(kinds, (detectors = detectorsOf(kinds)));
  return detectors;
}

/** The provider a failed call names (the LLM layer's errors carry it), else the one asked for. */
function providerOf(err: unknown, fallback: string): string {
  return err instanceof Error && 'provider' in err && typeof err.provider === 'string' ? err.provider : fallback;
}

/** The facts an upstream's failure carries for the audit row (as UpstreamAnswer.facts), if any. */
function factsOf(err: unknown): Record<string, unknown> | undefined {
  return err instanceof Error && 'facts' in err && typeof err.facts === 'object' && err.facts !== null
    ? (err.facts as Record<string, unknown>)
    : undefined;
}

/** Tokens a call reserved; `settle` gives back what it did not use (once). */
interface TokenReservation {
  settle(used: number): void;
}

/**
 * Reserves a call's worst case on its organization's tokens per minute (`deps.tokens`): the prompt's estimated
 * tokens (characters / 4) plus its token budget. A call larger than the whole limit is charged the limit (it passes
 * only in an unused minute). When the call ends, the reservation is brought down to the tokens it used (the
 * provider's usage; 0 for a call that never reached it), so the limit counts use, not worst cases. Refused: 429
 * RATE_LIMITED with Retry-After. NB: as for request limits, a failing Redis lets the call through and says so in
 * the log; a failed release is logged and forgotten (the window ends within the minute).
 */
async function admitTokens(
  deps: GovernedDeps,
  identity: Identity,
  prompt: string,
  maxTokens: number | undefined,
): Promise<TokenReservation | undefined> {
  if (!deps.tokens) return undefined;
  const { limiter, perMinute } = deps.tokens;
  const cost = Math.min(perMinute, Math.ceil(prompt.length / 4) + (maxTokens ?? DEFAULT_MAX_TOKENS));
  let decision: RateLimitDecision;
  try {
    decision = limiter.hitSync
      ? limiter.hitSync(identity.organizationId, cost)
      : await limiter.hit(identity.organizationId, cost);
  } catch (err) {
    if (!(err instanceof RateLimitStoreError)) throw err;
    deps.log.error({ err }, 'token limiter unavailable; allowing the call');
    return undefined;
  }
  if (decision.allowed) {
    let settled = false;
    return {
      settle(used) {
        if (settled) return;
        settled = true;
        const back = cost - Math.min(cost, Math.max(0, Math.ceil(used)));
        if (back <= 0) return;
        limiter
          .release(identity.organizationId, back, decision.atMs)
          .catch((err: unknown) => deps.log.warn({ err }, 'token reservation not released'));
      },
    };
  }
  deps.telemetry.rateLimitRejections.inc({ window: 'tokens-60s' });
  throw new ApiError(
    'gateway',
    'RATE_LIMITED',
    `token limit of ${decision.limit} LLM tokens per minute exceeded for this organization (this call reserves ${cost}: prompt characters / 4 plus max_tokens)`,
    {
      limit: decision.limit,
      period: `${decision.windowSec}s`,
      unit: 'tokens',
      requested: cost,
      remaining: decision.remaining,
      reset_at: new Date(decision.resetAtSec * 1000).toISOString(),
    },
    { headers: { 'retry-after': String(decision.retryAfterSec) } },
  );
}
