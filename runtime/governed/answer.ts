/** The output stage of a governed call: the upstream's answer through the output scan, then its audit row. */
import { LlmAbortedError, type LlmStreamEvent, type LlmToolCall } from '../llm/index.js';
import type { PolicyEvaluation } from '../policy/types.js';
import { NO_USAGE, type AuditRecord, type Outcome } from './audit-record.js';
import { AuditFailedError, PolicyBlockedError } from './errors.js';
import type { InputCheck } from './input-check.js';
import type { OutputScan } from './output-scan.js';
import type { Source } from './source.js';
import type { GovernedAnswer, GovernedDeps, GovernedEvent, GovernedRequest, Upstream } from './types.js';

/** One opened call, as the answer loop needs it. */
export interface AnswerContext {
  deps: GovernedDeps;
  req: GovernedRequest;
  upstream: Upstream;
  source: Source;
  scan: OutputScan;
  audit: AuditRecord;
  check: InputCheck;
  /** when the upstream was called (performance.now()) */
  started: number;
}

/**
 * The answer loop: every upstream event passes the output scan before it is yielded; the audit row is written
 * before the end event or the error. Times spent waiting on the upstream and on the consumer are kept apart, so
 * that the row records Steward's own time.
 */
export function answer(ctx: AnswerContext): AsyncGenerator<GovernedEvent, void, undefined> {
  return new AnswerRun(ctx).events();
}

/** Sent text of one answer, for the audit row and the end event. */
interface Transcript {
  text: string;
  calls: Map<number, LlmToolCall>;
}

type ToolCallEvent = Extract<LlmStreamEvent, { type: 'tool_call' }>;

/** The state of one answer loop, and its steps. */
class AnswerRun {
  private readonly provider: string;
  private readonly sent: Transcript = { text: '', calls: new Map() };
  private firstEventMs: number | undefined;
  private done: Extract<LlmStreamEvent, { type: 'done' }> | undefined;
  private blocked: PolicyEvaluation | undefined;
  private failure: unknown;
  private redactions: Record<string, number> = {};
  private lastEvaluation: PolicyEvaluation | null = null;
  private readonly outputStart = performance.now();
  private waitedMs = 0;
  /** The events to yield after a scan step (dropped once the answer is blocked). */
  private readonly pending: GovernedEvent[] = [];
  /** The channel the model writes now: the text, or a tool call's index. */
  private channel: 'text' | number | undefined;
  /** Whether the audit row is written; a consumer that stops early (a client gone) leaves it to `finally`. */
  private audited = false;

  constructor(private readonly ctx: AnswerContext) {
    this.provider = ctx.source.provider ?? ctx.upstream.provider;
  }

  async *events(): AsyncGenerator<GovernedEvent, void, undefined> {
    const { req, check } = this.ctx;
    try {
      try {
        yield* this.relay();
        if (!this.blocked) await this.finishScan();
      } catch (err) {
        this.failure = err;
      }
      if (this.blocked) {
        this.pending.length = 0;
        this.redactions = (await this.ctx.scan.finish()).redactions;
      }
      const clientGone = this.failure instanceof LlmAbortedError || req.signal?.aborted === true;
      await this.recordEnd(clientGone);
      if (clientGone) throw this.failure instanceof LlmAbortedError ? this.failure : new LlmAbortedError(this.provider);
      if (this.blocked) throw new PolicyBlockedError('output', this.blocked, check.contextId);
      if (this.failure) throw this.failure;
      for (const p of this.pending) yield p;
      yield { type: 'end', answer: this.answerOf() };
    } finally {
      if (!this.audited) await this.abandon();
    }
  }

  /**
   * Reads the upstream until it ends or the scan blocks. A whole answer goes in one piece at its end; a stream's
   * pieces go as they pass the scan.
   */
  private async *relay(): AsyncGenerator<GovernedEvent, void, undefined> {
    const { source, audit } = this.ctx;
    for (;;) {
      const w = performance.now();
      const next = await source.events.next();
      audit.upstreamMs += performance.now() - w;
      if (next.done) return;
      const ev = next.value;
      if (ev.type === 'done') {
        this.done = ev;
        continue;
      }
      this.firstEvent();
      if (ev.type === 'text' && ev.text === '') continue;
      const passed = ev.type === 'text' ? await this.scanText(ev.text) : await this.scanToolCall(ev);
      if (!passed) return;
      if (!source.whole) {
        const y = performance.now();
        for (const p of this.pending.splice(0)) yield p;
        this.waitedMs += performance.now() - y;
      }
    }
  }

  /** Times the first event of a stream (time to first token). */
  private firstEvent(): void {
    if (this.firstEventMs !== undefined) return;
    const { deps, source, upstream, started } = this.ctx;
    this.firstEventMs = performance.now() - started;
    if (!source.whole)
      deps.telemetry.llmFirstEvent(this.provider, source.model ?? upstream.model, this.firstEventMs / 1000);
  }

  /** One piece of text through the scan; false when the scan blocked the answer. */
  private async scanText(text: string): Promise<boolean> {
    this.leave('text');
    const step = await this.ctx.scan.text(text);
    if (step.blocked) {
      this.blocked = step.evaluation;
      return false;
    }
    this.rest('text', step.emit);
    return true;
  }

  /** One piece of a tool call through the scan (its first piece names it); false when the scan blocked the answer. */
  private async scanToolCall(ev: ToolCallEvent): Promise<boolean> {
    this.leave(ev.index);
    let call = this.sent.calls.get(ev.index);
    const first = !call;
    if (!call)
      this.sent.calls.set(
        ev.index,
        (call = { id: ev.id ?? `call_${this.ctx.audit.id}_${ev.index}`, name: ev.name ?? '', arguments: '' }),
      );
    const step = await this.ctx.scan.toolArguments(ev.index, ev.arguments, ev.name);
    if (step.blocked) {
      this.blocked = step.evaluation;
      return false;
    }
    call.arguments += step.emit;
    if (first || step.emit !== '')
      this.pending.push({
        type: 'tool',
        index: ev.index,
        ...(first ? { id: call.id, name: call.name } : {}),
        arguments: step.emit,
      });
    return true;
  }

  /** The scan's end: what it held back of each channel, or a block of the whole answer. */
  private async finishScan(): Promise<void> {
    const end = await this.ctx.scan.finish();
    this.redactions = end.redactions;
    this.lastEvaluation = end.evaluation;
    if (end.blocked) this.blocked = end.evaluation;
    else {
      this.rest('text', end.emit);
      for (const [i, r] of end.toolArguments) this.rest(i, r);
    }
  }

  /** Text the scan let through on a channel: added to what was sent, and pending. */
  private rest(of: 'text' | number, text: string): void {
    if (text === '') return;
    if (of === 'text') {
      this.sent.text += text;
      this.pending.push({ type: 'text', text });
      return;
    }
    const call = this.sent.calls.get(of);
    if (!call) return;
    call.arguments += text;
    this.pending.push({ type: 'tool', index: of, arguments: text });
  }

  /** The model moved to another channel: the scan lets go of what it held back of the last one. */
  private leave(next: 'text' | number): void {
    if (this.channel !== undefined && this.channel !== next) this.rest(this.channel, this.ctx.scan.close(this.channel));
    this.channel = next;
  }

  private model(): string {
    return this.done?.model ?? this.ctx.source.model ?? this.ctx.upstream.model;
  }

  private decision(clientGone: boolean): Outcome['decision'] {
    if (this.blocked) return 'blocked_output';
    if (clientGone) return 'client_closed';
    if (this.failure) return 'provider_error';
    return Object.keys(this.redactions).length ? 'redacted' : 'allowed';
  }

  private record(o: Outcome): Promise<void> {
    this.audited = true;
    return this.ctx.audit.write(o);
  }

  /** The answer's telemetry and its audit row; a row that cannot be written fails the answer (AuditFailedError). */
  private async recordEnd(clientGone: boolean): Promise<void> {
    const { deps, req, source, scan, audit } = this.ctx;
    const usage = this.done?.usage ?? NO_USAGE;
    deps.telemetry.llmCall(this.provider, this.model(), audit.upstreamMs / 1000, this.failure ? undefined : usage);
    deps.telemetry.llmOutput(this.redactions, this.blocked ? { stream: !source.whole } : undefined);
    if (scan.active)
      req.timing?.('output', Math.max(0, performance.now() - this.outputStart - audit.upstreamMs - this.waitedMs));
    audit.waitedMs = this.waitedMs;
    try {
      await this.record({
        decision: this.decision(clientGone),
        provider: this.provider,
        model: this.model(),
        usage,
        // NB: what the caller got: nothing of a whole answer that was blocked, the part sent of a stream
        response: this.blocked && source.whole ? undefined : this.sent.text,
        redactions: this.redactions,
        toolCalls: [...this.sent.calls.values()].map((c) => c.name),
        blocked: this.blocked,
        output: this.lastEvaluation ?? undefined,
        error: clientGone ? undefined : this.failure,
        facts: source.facts,
        stream: {
          whole: source.whole,
          ttftMs: this.firstEventMs,
          finishReason: this.done?.finishReason ?? null,
          usageReported: this.done?.usageReported ?? false,
        },
      });
    } catch (err) {
      deps.log.error({ err, auditId: audit.id }, 'audit row of a governed answer failed');
      throw new AuditFailedError(audit.id, { cause: err });
    }
  }

  private answerOf(): GovernedAnswer {
    const { audit, check } = this.ctx;
    return {
      auditId: audit.id,
      contextId: check.contextId,
      provider: this.provider,
      model: this.model(),
      text: this.sent.text,
      toolCalls: [...this.sent.calls.values()],
      finishReason: this.done?.finishReason ?? 'other',
      usage: this.done?.usage ?? NO_USAGE,
      redactions: this.redactions,
      warnings: [
        ...check.evaluation.warnings,
        ...(this.lastEvaluation?.warnings ?? []),
        ...(this.ctx.audit.budget?.warnings ?? []),
      ],
      evaluation: check.evaluation,
    };
  }

  /** The consumer stopped reading mid-answer (the client went away): the upstream is closed, the call recorded. */
  private async abandon(): Promise<void> {
    const { deps, source, audit } = this.ctx;
    await source.events.return?.().catch(() => undefined);
    audit.waitedMs = this.waitedMs;
    await this.record({
      decision: 'client_closed',
      provider: this.provider,
      model: this.model(),
      usage: this.done?.usage,
      response: this.sent.text,
      redactions: {},
    }).catch((err: unknown) => deps.log.error({ err, auditId: audit.id }, 'audit row of an abandoned answer failed'));
  }
}
