/**
 * Governance of LLM output: the provider's answer text and tool-call arguments pass the llm_output policies before
 * they reach the client. Redact policies mask detector kinds in place, streaming-safe (runtime/redact/stream.ts);
 * block policies (action block, warn or log, scoped to llm_output) are evaluated by the Rego engine on the answer so
 * far — on a stream at most once per `EVALUATE_EVERY_CHARS` new characters (or a quarter of the answer so far, if
 * more) and once at the end, never per chunk.
 * A whole answer (`whole`) or a connector call's result (`value`) is judged once, on all of it, by the same judge.
 * NB: text already sent cannot be recalled: a block mid-stream stops the answer where it is, and a block found at
 * `finish()` only withholds what was still held back (the redactor's window).
 */
import { LLM_OUTPUT_SURFACE } from '../../api/index.js';
import { PolicyInputTooLargeError } from '../policy/input-size.js';
import type {
  ObservedRedaction,
  PolicyEvaluation,
  PolicyEvaluator,
  PolicyInput,
  PolicyOutcome,
  PolicyResult,
  PolicyScope,
} from '../policy/types.js';
import { detectorsOf, redactText, redactValue, StreamRedactor, type RedactionCounts } from '../redact/index.js';

/**
 * New answer characters (text and tool arguments together) between two block evaluations of a stream; a quarter of
 * the answer so far when that is more.
 */
export const EVALUATE_EVERY_CHARS = 512;

export interface OutputScanMeta {
  organizationId?: string;
  tenantId?: string;
  clientId: string;
  userToken: string;
  /** the provider and model of an LLM answer (`input.llm`); absent for a connector call's result */
  provider?: string;
  model?: string;
  context?: Record<string, unknown>;
  /** `input.mcp` of a connector call's result: which connector, operation and tool answered */
  mcp?: Record<string, unknown>;
}

/** A whole (not streamed) LLM answer. */
export interface WholeAnswer {
  text: string;
  toolCalls: readonly { name: string; arguments: string }[];
}

/** The scan of a whole answer or value: `value` redacted, or the block (nothing of it may be sent). */
export type WholeEnd<T> =
  | { blocked: false; value: T; redactions: Record<string, number>; evaluation: PolicyEvaluation | null }
  | { blocked: true; evaluation: PolicyEvaluation; redactions: Record<string, number> };

export type OutputStep = { blocked: false; emit: string } | { blocked: true; evaluation: PolicyEvaluation };

/** The end of a scan: the rest of the text (or the block), redaction counts, the last evaluation, tool-argument rests. */
export type OutputEnd = OutputStep & {
  /** replacements per detector kind, text and tool arguments together */
  redactions: Record<string, number>;
  /** the final block evaluation (its warnings are the answer's); null when no block policy is in scope */
  evaluation: PolicyEvaluation | null;
  /** per tool call index: the rest of its arguments, redacted (empty when blocked) */
  toolArguments: Map<number, string>;
};

export interface OutputScan {
  /** false when no output policy (block or redact) is in scope: callers may pass text through untouched */
  readonly active: boolean;
  /** feed answer text; returns what may be sent now (redacted), or a block */
  text(chunk: string): OutputStep | Promise<OutputStep>;
  /**
   * feed tool-call argument text of call `index` (redacted with its own window); `name`, when known, is what block
   * policies see as `input.llm.output.tool_calls[index].name`
   */
  toolArguments(index: number, chunk: string, name?: string): OutputStep | Promise<OutputStep>;
  /**
   * The model moved on from a channel (`'text'`, or a tool call's index): its held-back text, redacted, so that it
   * goes out before the next block begins. A channel fed again later starts a new window.
   */
  close(channel: 'text' | number): string;
  /** end of the answer: flushes every window and runs the final block evaluation on the whole answer */
  finish(): Promise<OutputEnd>;
  /**
   * A whole answer, instead of feeding it: block policies evaluated once on all of it (text and tool arguments),
   * then its text and each tool call's arguments redacted. Once per scan, on a scan fed nothing else.
   */
  whole(answer: WholeAnswer): Promise<WholeEnd<WholeAnswer>>;
  /**
   * A connector call's result (rows, a tool's result): block policies evaluated once on its text (its string
   * values, joined by newlines, as `input.query` and `input.llm.output.text`), then every string value (not keys)
   * masked in place. Once per scan, on a scan fed nothing else.
   */
  value(value: unknown): Promise<WholeEnd<unknown>>;
}

/** Opens the scan of one answer. Cheap when nothing is in scope (`active` false, every method a pass-through). */
export function openOutputScan(policies: PolicyEvaluator, meta: OutputScanMeta): OutputScan {
  const scope: PolicyScope = {
    surface: LLM_OUTPUT_SURFACE,
    organizationId: meta.organizationId,
    tenantId: meta.tenantId,
  };
  const kinds = policies.redactKinds(scope);
  const blocking = policies.hasPolicies(scope);
  const observed = policies.observedRedactions(scope);
  if (kinds.length === 0 && !blocking && observed.length === 0) return PASS_THROUGH;
  return new ActiveScan(policies, meta, scope, kinds, blocking, observed);
}

const PASS_THROUGH: OutputScan = Object.freeze({
  active: false,
  text: (chunk: string): OutputStep => ({ blocked: false, emit: chunk }),
  toolArguments: (_index: number, chunk: string): OutputStep => ({ blocked: false, emit: chunk }),
  close: () => '',
  finish: () =>
    Promise.resolve({
      blocked: false as const,
      emit: '',
      redactions: {},
      evaluation: null,
      toolArguments: new Map<number, string>(),
    }),
  whole: (answer: WholeAnswer) =>
    Promise.resolve({ blocked: false as const, value: answer, redactions: {}, evaluation: null }),
  value: (value: unknown) => Promise.resolve({ blocked: false as const, value, redactions: {}, evaluation: null }),
});

interface ToolCall {
  name: string;
  raw: string;
  redactor: StreamRedactor | undefined;
}

class ActiveScan implements OutputScan {
  readonly active = true;
  private readonly detectors;
  private readonly answer: StreamRedactor | undefined;
  private raw = '';
  private readonly calls = new Map<number, ToolCall>();
  /** answer characters (text and arguments) seen, and seen by the last evaluation */
  private seen = 0;
  private evaluatedAt = 0;
  private last: PolicyEvaluation | null = null;
  private block: PolicyEvaluation | undefined;

  constructor(
    private readonly policies: PolicyEvaluator,
    private readonly meta: OutputScanMeta,
    private readonly scope: PolicyScope,
    kinds: readonly string[],
    private readonly blocking: boolean,
    /** redact policies in warn or audit mode: what they would mask is looked for at the end, never masked */
    private readonly observed: readonly ObservedRedaction[],
  ) {
    this.detectors = detectorsOf(kinds);
    this.answer = this.detectors.length ? new StreamRedactor(this.detectors) : undefined;
  }

  text(chunk: string): OutputStep | Promise<OutputStep> {
    if (this.block) return { blocked: true, evaluation: this.block };
    this.raw += chunk;
    return this.step(chunk.length, () => (this.answer ? this.answer.push(chunk) : chunk));
  }

  toolArguments(index: number, chunk: string, name?: string): OutputStep | Promise<OutputStep> {
    if (this.block) return { blocked: true, evaluation: this.block };
    let call = this.calls.get(index);
    if (!call)
      this.calls.set(
        index,
        (call = {
          name: name ?? '',
          raw: '',
          redactor: this.detectors.length ? new StreamRedactor(this.detectors) : undefined,
        }),
      );
    if (name && !call.name) call.name = name;
    call.raw += chunk;
    const redactor = call.redactor;
    return this.step(chunk.length, () => (redactor ? redactor.push(chunk) : chunk));
  }

  close(channel: 'text' | number): string {
    if (this.block) return '';
    const redactor = channel === 'text' ? this.answer : this.calls.get(channel)?.redactor;
    return redactor ? redactor.end() : '';
  }

  async finish(): Promise<OutputEnd> {
    const toolArguments = new Map<number, string>();
    if (!this.block && this.blocking && (this.last === null || this.evaluatedAt < this.seen))
      this.conclude(await this.evaluate());
    if (this.block) return { blocked: true, evaluation: this.block, redactions: this.redactions(), toolArguments };
    const emit = this.answer ? this.answer.end() : '';
    for (const [i, call] of this.calls) toolArguments.set(i, call.redactor ? call.redactor.end() : '');
    return { blocked: false, emit, redactions: this.redactions(), evaluation: this.observe(), toolArguments };
  }

  async whole(answer: WholeAnswer): Promise<WholeEnd<WholeAnswer>> {
    this.raw = answer.text;
    answer.toolCalls.forEach((c, i) =>
      this.calls.set(i, {
        name: c.name,
        raw: c.arguments,
        redactor: this.detectors.length ? new StreamRedactor(this.detectors) : undefined,
      }),
    );
    const blocked = await this.judgeWhole();
    if (blocked) return blocked;
    const redact = (r: StreamRedactor | undefined, text: string) => (r ? r.push(text) + r.end() : text);
    const text = redact(this.answer, answer.text);
    const toolCalls = answer.toolCalls.map((c, i) => ({
      ...c,
      arguments: redact(this.calls.get(i)!.redactor, c.arguments),
    }));
    return { blocked: false, value: { text, toolCalls }, redactions: this.redactions(), evaluation: this.observe() };
  }

  async value(value: unknown): Promise<WholeEnd<unknown>> {
    this.raw = stringsOf(value).join('\n');
    const blocked = await this.judgeWhole();
    if (blocked) return blocked;
    if (this.detectors.length === 0) return { blocked: false, value, redactions: {}, evaluation: this.observe() };
    const counts: RedactionCounts = {};
    // NB: one detector set for the scan: the same kinds as the answer's StreamRedactor, masked per string value
    const masked = redactValue(value, counts, this.detectors);
    return { blocked: false, value: masked, redactions: counts, evaluation: this.observe() };
  }

  /**
   * The last evaluation, with what the redact policies in warn or audit mode would have masked in the answer as sent
   * to the policies (their results; under warn, a warning the caller sees).
   */
  private observe(): PolicyEvaluation | null {
    if (this.observed.length === 0) return this.last;
    const texts = [this.raw, ...[...this.calls.values()].map((c) => c.raw)];
    const results: PolicyResult[] = [];
    const warnings: string[] = [];
    for (const o of this.observed) {
      const counts: RedactionCounts = {};
      const detectors = detectorsOf(o.kinds);
      for (const t of texts) if (t) redactText(t, counts, detectors);
      const found = Object.keys(counts);
      if (found.length === 0) continue;
      results.push({ policy: o.policy, mode: o.mode, would: 'redact', decision: o.mode === 'warn' ? 'warn' : 'audit' });
      if (o.mode === 'warn') warnings.push(`${o.policy}: would mask ${found.join(', ')} (enforcementAction: warn)`);
    }
    if (results.length === 0) return this.last;
    const last = this.last ?? EMPTY_EVALUATION;
    return {
      ...last,
      triggered: [...last.triggered, ...results.filter((r) => r.decision === 'warn').map((r) => r.policy)],
      warnings: [...last.warnings, ...warnings],
      results: [...last.results, ...results],
    };
  }

  /** The one evaluation of a whole answer or value (when a block policy is in scope); the block, if any. */
  private async judgeWhole(): Promise<WholeEnd<never> | undefined> {
    if (!this.blocking) return undefined;
    this.seen = this.raw.length + [...this.calls.values()].reduce((n, c) => n + c.raw.length, 0);
    this.conclude(await this.evaluate());
    return this.block ? { blocked: true, evaluation: this.block, redactions: {} } : undefined;
  }

  /** Evaluates when due (before the redactor takes the chunk: a blocked chunk is never emitted), then redacts. */
  private step(added: number, redact: () => string): OutputStep | Promise<OutputStep> {
    this.seen += added;
    // NB: every evaluation reads the whole answer so far: spacing them by a quarter of it keeps their total linear
    if (this.blocking && this.seen - this.evaluatedAt >= Math.max(EVALUATE_EVERY_CHARS, this.evaluatedAt >> 2)) {
      const outcome = this.evaluate();
      if (outcome instanceof Promise) return outcome.then((e) => this.after(e, redact));
      return this.after(outcome, redact);
    }
    return { blocked: false, emit: redact() };
  }

  private after(evaluation: PolicyEvaluation, redact: () => string): OutputStep {
    this.conclude(evaluation);
    return this.block ? { blocked: true, evaluation: this.block } : { blocked: false, emit: redact() };
  }

  private conclude(evaluation: PolicyEvaluation): void {
    this.last = evaluation;
    if (!evaluation.approved) this.block = evaluation;
  }

  private evaluate(): PolicyOutcome {
    this.evaluatedAt = this.seen;
    const input: PolicyInput = {
      query: this.raw,
      surface: LLM_OUTPUT_SURFACE,
      client_id: this.meta.clientId,
      user: { id: this.meta.userToken },
      context: this.meta.context ?? {},
      ...(this.meta.mcp ? { mcp: this.meta.mcp } : {}),
      llm: {
        ...(this.meta.provider !== undefined ? { provider: this.meta.provider } : {}),
        ...(this.meta.model !== undefined ? { model: this.meta.model } : {}),
        output: {
          text: this.raw,
          tool_calls: [...this.calls.entries()]
            .sort(([a], [b]) => a - b)
            .map(([, c]) => ({ name: c.name, arguments: c.raw })),
        },
      },
    };
    try {
      return this.policies.evaluate(input, this.scope);
    } catch (err) {
      // NB: an answer too large to evaluate is blocked (fail closed), as an input would be
      if (err instanceof PolicyInputTooLargeError) return tooLarge(err);
      throw err;
    }
  }

  private redactions(): Record<string, number> {
    const out: Record<string, number> = {};
    const add = (counts: Record<string, number>) => {
      for (const [k, n] of Object.entries(counts)) out[k] = (out[k] ?? 0) + n;
    };
    if (this.answer) add(this.answer.counts);
    for (const c of this.calls.values()) if (c.redactor) add(c.redactor.counts);
    return out;
  }
}

/** The string values of a JSON-like value, in order (keys are not its text). */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value))
    for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

const EMPTY_EVALUATION: PolicyEvaluation = Object.freeze({
  approved: true,
  triggered: [],
  warnings: [],
  logged: [],
  evaluated: [],
  results: [],
  evaluationMs: 0,
});

function tooLarge(err: PolicyInputTooLargeError): PolicyEvaluation {
  return {
    approved: false,
    triggered: [],
    blockReason: `llm_output: ${err.message}`,
    warnings: [],
    logged: [],
    evaluated: [],
    results: [],
    evaluationMs: 0,
  };
}
