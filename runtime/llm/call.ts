import { LlmAbortedError, LlmError, LlmProviderError, LlmTimeoutError } from './errors.js';

export interface CallOptions {
  provider: string;
  /** Deadline of the whole call, retries and back-off included. */
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
  /** Turns whatever the SDK threw into one of our errors. */
  classify: (err: unknown) => LlmError;
  /** First back-off step; doubles per retry. @default 250 ms */
  backoffBaseMs?: number;
}

/**
 * Runs `attempt` under one deadline with retries of retryable provider errors. The deadline aborts the
 * SDK's request through the signal and also rejects on its own, so an SDK that ignores its signal still
 * cannot hold the caller past the deadline.
 */
export async function callWithDeadline<T>(opts: CallOptions, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (opts.signal?.aborted) throw new LlmAbortedError(opts.provider, { cause: opts.signal.reason });
  const controller = new AbortController();
  const startedAt = performance.now();
  let cause: 'timeout' | 'caller' | undefined;
  let rejectStop!: (err: Error) => void;
  const stopped = new Promise<never>((_, reject) => (rejectStop = reject));
  stopped.catch(() => {}); // NB: handled through the race below; keeps Node from reporting it as unhandled.
  const stop = (why: 'timeout' | 'caller') => {
    if (cause) return;
    cause = why;
    const err =
      why === 'timeout' ? new LlmTimeoutError(opts.provider, opts.timeoutMs) : new LlmAbortedError(opts.provider);
    controller.abort(err);
    rejectStop(err);
  };
  const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
  const onCallerAbort = () => stop('caller');
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    for (let retry = 0; ; retry++) {
      try {
        return await Promise.race([attempt(controller.signal), stopped]);
      } catch (err) {
        if (cause) {
          // The race is usually won by our own stop error; a later SDK error is only its echo.
          if (err instanceof LlmTimeoutError || err instanceof LlmAbortedError) throw err;
          throw cause === 'timeout'
            ? new LlmTimeoutError(opts.provider, opts.timeoutMs, { cause: err })
            : new LlmAbortedError(opts.provider, { cause: err });
        }
        // NB: our own errors (a request the adapter refused, an unusable answer) pass through unchanged.
        const failure = err instanceof LlmError ? err : opts.classify(err);
        if (failure instanceof LlmTimeoutError)
          throw new LlmTimeoutError(opts.provider, opts.timeoutMs, { cause: err });
        if (!(failure instanceof LlmProviderError) || !failure.retryable || retry >= opts.maxRetries) throw failure;
        const waitMs = backoffMs(retry, failure.retryAfterSec, opts.backoffBaseMs ?? 250);
        const leftMs = opts.timeoutMs - (performance.now() - startedAt);
        // A wait that outlasts the deadline would only turn a clear provider error into a vaguer timeout.
        if (waitMs >= leftMs) throw failure;
        await Promise.race([sleep(waitMs), stopped]).catch((e: unknown) => {
          throw cause === 'timeout' ? new LlmTimeoutError(opts.provider, opts.timeoutMs, { cause: failure }) : e;
        });
      }
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCallerAbort);
  }
}

function backoffMs(retry: number, retryAfterSec: number | undefined, baseMs: number): number {
  if (retryAfterSec !== undefined) return retryAfterSec * 1000;
  const exp = baseMs * 2 ** retry;
  return exp / 2 + Math.random() * (exp / 2); // "equal jitter": spreads replicas that failed together
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds since `startedAt`, rounded to 0.1 ms. */
export function elapsedMs(startedAt: number): number {
  return Math.round((performance.now() - startedAt) * 10) / 10;
}

/** Network-level failures (no HTTP answer) that Node's fetch and http clients report by code. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
]);

/** True when `err` (or one of its causes) is a connection failure rather than an HTTP answer. */
export function isConnectionFailure(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  }
  return false;
}
