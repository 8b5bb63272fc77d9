import { callWithDeadline } from './call.js';
import { LlmAbortedError, LlmError, LlmProviderError, LlmTimeoutError } from './errors.js';
import type { FinishReason, LlmStream, LlmStreamEvent, NormalizedRequest } from './types.js';

/** A `text` or `tool_call` event: what a decoder makes of the provider's chunks. */
export type StreamPiece = Exclude<LlmStreamEvent, { type: 'done' }>;

/** How a streamed answer ended, as the provider said; absent counts are estimated by the wrapper. */
export interface StreamEnd {
  /** The model that answered; absent: the requested one. */
  model?: string;
  finishReason: FinishReason;
  rawFinishReason: string | null;
  promptTokens?: number;
  completionTokens?: number;
}

/** Turns one upstream stream's chunks into events. Pure and stateful: one decoder per stream. */
export interface StreamDecoder<C> {
  push(chunk: C): StreamPiece[];
  /** After the last chunk: how the answer ended. Throws LlmProviderError when the stream stopped short. */
  end(): StreamEnd;
}

/** An accepted upstream stream: the SDK's chunks and their decoder. */
export interface UpstreamStream {
  chunks: AsyncIterable<unknown>;
  decoder: StreamDecoder<unknown>;
}

/** Pairs an SDK's chunk iterable with its decoder (the chunk type stays the adapter's business). */
export function upstream<C>(chunks: AsyncIterable<C>, decoder: StreamDecoder<C>): UpstreamStream {
  return { chunks, decoder: decoder as StreamDecoder<unknown> };
}

/** The error for a stream that ended without the provider's end marker. */
export function streamEndedEarly(provider: string): LlmProviderError {
  return new LlmProviderError(provider, 'INVALID_RESPONSE', 'the stream ended before the answer was complete');
}

/** Steward's token estimate for one text when the provider reports none: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Estimated prompt tokens: system text, every message's content and tool-call arguments, the tool definitions as JSON. */
export function estimatePromptTokens(req: NormalizedRequest): number {
  const texts = [
    req.system ?? '',
    ...req.messages.flatMap((m) => [m.content, ...(m.toolCalls ?? []).map((c) => c.arguments)]),
  ];
  if (req.tools) texts.push(JSON.stringify(req.tools));
  return texts.reduce((n, t) => n + estimateTokens(t), 0);
}

function reportedCount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined;
}

export interface OpenStreamOptions {
  provider: string;
  req: NormalizedRequest;
  maxRetries: number;
  signal?: AbortSignal;
  classify: (err: unknown) => LlmError;
  /** Sends the request; resolves when the provider accepted it (2xx and headers). */
  open: (signal: AbortSignal) => Promise<UpstreamStream>;
}

/**
 * Opens a stream: until acceptance it is a call like `complete()` (one deadline, retries of retryable errors);
 * after it, `req.timeoutMs` bounds each wait for the provider's next chunk. One AbortController spans the
 * stream's life, so a caller abort, an idle timeout or the consumer leaving the loop all close the upstream
 * request.
 */
export async function openStream(opts: OpenStreamOptions): Promise<LlmStream> {
  const lifetime = new AbortController();
  try {
    const up = await callWithDeadline(
      {
        provider: opts.provider,
        timeoutMs: opts.req.timeoutMs,
        maxRetries: opts.maxRetries,
        signal: opts.signal,
        classify: opts.classify,
      },
      (attemptSignal) => opts.open(AbortSignal.any([attemptSignal, lifetime.signal])),
    );
    return new AcceptedStream(opts, up, lifetime);
  } catch (err) {
    lifetime.abort(err); // NB: an attempt that lost the race to the deadline may still be opening.
    throw err;
  }
}

class AcceptedStream implements LlmStream {
  readonly provider: string;
  readonly model: string;
  #iterated = false;
  #finished = false;
  #stopError: LlmError | undefined;
  readonly #stopped: Promise<never>;
  #rejectStop!: (err: LlmError) => void;
  readonly #onCallerAbort = () => this.#stop(new LlmAbortedError(this.provider, { cause: this.opts.signal?.reason }));

  constructor(
    private readonly opts: OpenStreamOptions,
    private readonly up: UpstreamStream,
    private readonly lifetime: AbortController,
  ) {
    this.provider = opts.provider;
    this.model = opts.req.model;
    this.#stopped = new Promise<never>((_, reject) => (this.#rejectStop = reject));
    this.#stopped.catch(() => {}); // NB: observed through the races in #pull.
    if (opts.signal?.aborted) this.#onCallerAbort();
    else opts.signal?.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<LlmStreamEvent> {
    if (this.#iterated) throw new Error('an LlmStream can be iterated only once');
    this.#iterated = true;
    const events = this.#events();
    return {
      next: () => events.next(),
      // NB: a generator that never started skips its `finally`, so leaving early releases the upstream here too.
      return: async (value?: unknown) => {
        this.#release();
        return events.return(value as undefined);
      },
    };
  }

  /** Stops the stream with `err`: aborts the upstream request and wakes a pending read. */
  #stop(err: LlmError): void {
    if (this.#stopError) return;
    this.#stopError = err;
    this.lifetime.abort(err);
    this.#rejectStop(err);
  }

  /**
   * Idempotent clean-up: forget the caller's signal and, unless the answer is complete, abort the upstream
   * request (a read still pending, from a `return()` that did not wait for it, fails with LlmAbortedError).
   */
  #release(): void {
    this.opts.signal?.removeEventListener('abort', this.#onCallerAbort);
    if (!this.#finished) this.#stop(new LlmAbortedError(this.provider));
  }

  async *#events(): AsyncGenerator<LlmStreamEvent, void, undefined> {
    const chunks = this.up.chunks[Symbol.asyncIterator]();
    let textChars = 0;
    const argChars = new Map<number, number>();
    try {
      for (;;) {
        const r = await this.#pull(chunks);
        if (r.done) break;
        for (const piece of this.#decode(() => this.up.decoder.push(r.value))) {
          if (piece.type === 'text') textChars += piece.text.length;
          else argChars.set(piece.index, (argChars.get(piece.index) ?? 0) + piece.arguments.length);
          yield piece;
        }
      }
      const end = this.#decode(() => this.up.decoder.end());
      this.#finished = true;
      const { req } = this.opts;
      const prompt = reportedCount(end.promptTokens);
      const completion = reportedCount(end.completionTokens);
      const reported = prompt !== undefined && completion !== undefined;
      const promptTokens = prompt ?? estimatePromptTokens(req);
      // NB: ceil per text, like the prompt: the streamed text is one text, each tool call's arguments another.
      const completionTokens =
        completion ?? [textChars, ...argChars.values()].reduce((n, c) => n + Math.ceil(c / 4), 0);
      yield {
        type: 'done',
        model: end.model || req.model,
        finishReason: end.finishReason,
        rawFinishReason: end.rawFinishReason,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        usageReported: reported,
      };
    } finally {
      this.#release();
    }
  }

  /** The next chunk, within the idle deadline and unless the caller aborted. */
  async #pull(chunks: AsyncIterator<unknown>): Promise<IteratorResult<unknown>> {
    if (this.#stopError) throw this.#stopError;
    const { timeoutMs } = this.opts.req;
    const timer = setTimeout(() => this.#stop(new LlmTimeoutError(this.provider, timeoutMs)), timeoutMs);
    const next = chunks.next();
    next.catch(() => {}); // NB: when the stop wins the race, the SDK's read fails later with an abort error.
    try {
      return await Promise.race([next, this.#stopped]);
    } catch (err) {
      throw this.#failure(err);
    } finally {
      clearTimeout(timer);
    }
  }

  #decode<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      throw this.#failure(err);
    }
  }

  #failure(err: unknown): LlmError {
    if (this.#stopError) return this.#stopError;
    if (err instanceof LlmError) return err;
    const failure = this.opts.classify(err);
    if (failure instanceof LlmTimeoutError)
      return new LlmTimeoutError(this.provider, this.opts.req.timeoutMs, { cause: err });
    return failure;
  }
}
