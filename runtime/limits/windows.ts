import { RateLimitInputError, type RateLimitDecision, type RateLimitWindow } from './types.js';

/** Longest window accepted: 31 days. Longer ones belong in a quota system, not a rate limiter. */
export const MAX_WINDOW_SEC = 31 * 24 * 3600;
export const MAX_KEY_LENGTH = 256;
export const MAX_COST = 1_000_000;

export function checkWindows(windows: readonly RateLimitWindow[]): readonly RateLimitWindow[] {
  if (!Array.isArray(windows) || windows.length === 0 || windows.length > 8) {
    throw new RateLimitInputError('windows', 'give 1 to 8 windows');
  }
  const seen = new Set<number>();
  windows.forEach((w, i) => {
    if (!Number.isInteger(w?.limit) || w.limit < 1)
      throw new RateLimitInputError(`windows[${i}].limit`, 'must be an integer ≥ 1');
    if (!Number.isInteger(w.windowSec) || w.windowSec < 1 || w.windowSec > MAX_WINDOW_SEC) {
      throw new RateLimitInputError(`windows[${i}].windowSec`, `must be an integer from 1 to ${MAX_WINDOW_SEC}`);
    }
    if (seen.has(w.windowSec))
      throw new RateLimitInputError(`windows[${i}].windowSec`, `duplicate window of ${w.windowSec}s`);
    seen.add(w.windowSec);
  });
  return windows;
}

export function checkKeyAndCost(key: string, cost: number): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new RateLimitInputError('key', `must be a string of 1 to ${MAX_KEY_LENGTH} characters`);
  }
  if (!Number.isInteger(cost) || cost < 0 || cost > MAX_COST) {
    throw new RateLimitInputError('cost', `must be an integer from 0 to ${MAX_COST}`);
  }
}

/** Index of the fixed window holding `nowMs`; windows start at multiples of their length since the epoch. */
export function windowIndex(nowMs: number, windowSec: number): number {
  return Math.floor(nowMs / (windowSec * 1000));
}

/**
 * The decision both implementations report, from each window's count after the hit (or, when refused, the
 * unchanged count). Shared so memory and Redis cannot drift apart.
 */
export function decide(
  windows: readonly RateLimitWindow[],
  counts: ArrayLike<number>,
  cost: number,
  allowed: boolean,
  nowMs: number,
): RateLimitDecision {
  let pick = -1;
  let pickRemaining = 0;
  let pickReset = 0;
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i]!;
    const remaining = Math.max(0, w.limit - counts[i]!);
    const resetAtSec = (windowIndex(nowMs, w.windowSec) + 1) * w.windowSec;
    if (allowed) {
      // Fewest units left; on a tie the window that resets later binds longer.
      if (pick < 0 || remaining < pickRemaining || (remaining === pickRemaining && resetAtSec > pickReset)) {
        pick = i;
        pickRemaining = remaining;
        pickReset = resetAtSec;
      }
    } else if (counts[i]! + cost > w.limit && (pick < 0 || resetAtSec > pickReset)) {
      // Every refusing window must reset before a retry can pass: report the last of them.
      pick = i;
      pickRemaining = remaining;
      pickReset = resetAtSec;
    }
  }
  // NB: a refusal with no refusing window means the caller's counts disagree with its verdict; report the
  // tightest window rather than index past the array.
  if (pick < 0) return { ...decide(windows, counts, 0, true, nowMs), allowed: false, retryAfterSec: 1 };
  const w = windows[pick]!;
  return {
    allowed,
    limit: w.limit,
    remaining: pickRemaining,
    resetAtSec: pickReset,
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((pickReset * 1000 - nowMs) / 1000)),
    windowSec: w.windowSec,
    atMs: nowMs,
  };
}
