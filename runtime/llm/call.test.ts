import { describe, expect, it } from 'vitest';
import { callWithDeadline, isConnectionFailure, type CallOptions } from './call.js';
import { LlmAbortedError, LlmProviderError, LlmTimeoutError, type LlmError } from './errors.js';

const classify = (err: unknown): LlmError =>
  err instanceof LlmProviderError ? err : new LlmProviderError('p', 'UNKNOWN', String(err), { cause: err });
const opts = (o: Partial<CallOptions> = {}): CallOptions => ({
  provider: 'p',
  timeoutMs: 1000,
  maxRetries: 0,
  classify,
  backoffBaseMs: 1,
  ...o,
});
const serverError = () => new LlmProviderError('p', 'SERVER_ERROR', 'boom', { status: 500 });

describe('callWithDeadline', () => {
  it('returns what the attempt returns', async () => {
    await expect(callWithDeadline(opts(), async () => 42)).resolves.toBe(42);
  });

  it('rejects at the deadline even when the attempt ignores its signal', async () => {
    const started = performance.now();
    const err = await callWithDeadline(opts({ timeoutMs: 80 }), () => new Promise(() => {})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmTimeoutError);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('aborts the signal it gave the attempt when the deadline passes', async () => {
    let seen: AbortSignal | undefined;
    await callWithDeadline(opts({ timeoutMs: 30 }), (signal) => {
      seen = signal;
      return new Promise(() => {});
    }).catch(() => {});
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBeInstanceOf(LlmTimeoutError);
  });

  it('does not start when the caller signal is already aborted', async () => {
    let calls = 0;
    const err = await callWithDeadline(opts({ signal: AbortSignal.abort() }), async () => ++calls).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmAbortedError);
    expect(calls).toBe(0);
  });

  it('retries a retryable failure and returns the later success', async () => {
    let calls = 0;
    const value = await callWithDeadline(opts({ maxRetries: 2 }), async () => {
      if (++calls < 3) throw serverError();
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(calls).toBe(3);
  });

  it('stops after maxRetries retries and throws the last failure', async () => {
    let calls = 0;
    const err = await callWithDeadline(opts({ maxRetries: 2 }), async () => {
      calls++;
      throw serverError();
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(calls).toBe(3);
  });

  it('does not retry a failure that is not retryable', async () => {
    let calls = 0;
    await callWithDeadline(opts({ maxRetries: 3 }), async () => {
      calls++;
      throw new LlmProviderError('p', 'UNAUTHORIZED', 'no', { status: 401 });
    }).catch(() => {});
    expect(calls).toBe(1);
  });

  it('throws the provider error at once when its Retry-After outlasts the deadline', async () => {
    let calls = 0;
    const started = performance.now();
    const err = await callWithDeadline(opts({ maxRetries: 3, timeoutMs: 2000 }), async () => {
      calls++;
      throw new LlmProviderError('p', 'RATE_LIMITED', 'slow down', { status: 429, retryAfterSec: 30 });
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmProviderError);
    expect((err as LlmProviderError).code).toBe('RATE_LIMITED');
    expect(calls).toBe(1);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('reports a caller abort during an attempt as LlmAbortedError', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const err = await callWithDeadline(opts({ signal: ac.signal }), () => new Promise(() => {})).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmAbortedError);
  });
});

describe('isConnectionFailure', () => {
  it('finds a connection error code in the cause chain', () => {
    const err = new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    expect(isConnectionFailure(err)).toBe(true);
    expect(isConnectionFailure(new Error('other'))).toBe(false);
  });
});
