/** One counting window: at most `limit` units of cost per `windowSec` seconds. */
export interface RateLimitWindow {
  /** Units allowed per window (requests, when every hit costs 1). Integer ≥ 1. */
  limit: number;
  /** Window length in seconds. Integer ≥ 1; windows are aligned to the Unix epoch. */
  windowSec: number;
}

/**
 * The outcome of a hit, described by the most restrictive window: when allowed, the window with the fewest
 * units left; when refused, the refusing window that resets last (the earliest moment a retry can pass).
 * The fields map onto X-RateLimit-Limit / -Remaining / -Reset and Retry-After.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time in seconds at which that window's count starts again from zero. */
  resetAtSec: number;
  /** Whole seconds to wait before retrying; 0 when allowed. */
  retryAfterSec: number;
  /** That window's length, for error details such as `period`. */
  windowSec: number;
  /** When the hit was counted (ms since the epoch, the limiter's clock): a `release` names the windows by it. */
  atMs: number;
}

/**
 * Fixed-window rate limiting per key (an organization id) across several windows at once. A refused hit
 * counts in no window, so a client that keeps retrying while refused does not push its own reset back.
 */
export interface RateLimiter {
  /**
   * Counts `cost` units against every window of `key`, atomically: either all windows take the cost or none
   * does. Cost 0 reports the state without counting.
   * @param windows overrides the limiter's windows for this call (for example a tier's limits).
   */
  hit(key: string, cost?: number, windows?: readonly RateLimitWindow[]): Promise<RateLimitDecision>;
  /** The same as `hit` without a promise, for limiters that answer in this process (the hot path takes it). */
  hitSync?(key: string, cost?: number, windows?: readonly RateLimitWindow[]): RateLimitDecision;
  /**
   * Gives back `cost` units of an allowed hit counted at `atMs` (a reservation larger than what was used): every
   * window that is still the hit's own is credited, never below zero; a window that has ended since keeps its
   * count (it is gone anyway). Pass the same `windows` as the hit.
   */
  release(key: string, cost: number, atMs: number, windows?: readonly RateLimitWindow[]): Promise<void>;
}

/** Milliseconds since the Unix epoch; injected so tests control time. */
export type Clock = () => number;

/** A key, cost or window the limiter cannot use. */
export class RateLimitInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'RateLimitInputError';
  }
}

/**
 * The shared counter store (Redis) failed or did not answer in time. The caller decides whether to fail open
 * (allow, log) or closed (503); the limiter does not guess.
 */
export class RateLimitStoreError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'RateLimitStoreError';
  }
}

/** A lease on one of a key's concurrency slots. */
export interface ConcurrencyLease {
  /** Gives the slot back. Idempotent. */
  release(): Promise<void>;
}

export type ConcurrencyResult =
  | { acquired: true; active: number; limit: number; lease: ConcurrencyLease }
  | { acquired: false; active: number; limit: number };

/** At most `limit` concurrent operations (for example plans) per key. */
export interface ConcurrencyLimiter {
  /** Takes a slot when fewer than `limit` are held. @param limit overrides the default cap (a tier's). */
  tryAcquire(key: string, limit?: number): Promise<ConcurrencyResult>;
  /** Slots held now. */
  active(key: string): Promise<number>;
}
