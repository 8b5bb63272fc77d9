import { checkKeyAndCost, checkWindows, decide, windowIndex } from './windows.js';
import type { Clock, RateLimitDecision, RateLimiter, RateLimitWindow } from './types.js';

export interface MemoryRateLimiterOptions {
  windows: readonly RateLimitWindow[];
  /** Most keys held at once; past it the least recently used key is dropped (its counts restart). @default 100000 */
  maxKeys?: number;
  /** @default Date.now */
  now?: Clock;
}

/** Per key: parallel arrays over the windows seen for it, so a hit allocates nothing. */
interface Entry {
  lastMs: number;
  windowSec: number[];
  index: number[];
  count: number[];
}

/**
 * Fixed-window counters in this process (one replica's view). Memory is bounded: keys sit in a Map in
 * least-recently-used order, idle keys (no hit for the longest window) are swept from the front as hits
 * arrive, and `maxKeys` caps the rest.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly windows: readonly RateLimitWindow[];
  private readonly entries = new Map<string, Entry>();
  private readonly maxKeys: number;
  private readonly now: Clock;
  private readonly scratch: number[] = [];
  /** the key set last, which is last in the Map's order as long as it is there */
  private latest: string | undefined;
  private maxWindowMs: number;
  /** Keys dropped by the `maxKeys` cap (not by idleness): a sign the cap is too small. */
  evictions = 0;

  constructor(options: MemoryRateLimiterOptions) {
    this.windows = checkWindows(options.windows);
    this.maxKeys = options.maxKeys ?? 100_000;
    this.now = options.now ?? Date.now;
    this.maxWindowMs = Math.max(...this.windows.map((w) => w.windowSec)) * 1000;
  }

  get size(): number {
    return this.entries.size;
  }

  async hit(key: string, cost = 1, windows: readonly RateLimitWindow[] = this.windows): Promise<RateLimitDecision> {
    return this.hitSync(key, cost, windows);
  }

  /** The same as `hit`, without the promise, for callers on a hot path. */
  hitSync(key: string, cost = 1, windows: readonly RateLimitWindow[] = this.windows): RateLimitDecision {
    checkKeyAndCost(key, cost);
    if (windows !== this.windows) {
      checkWindows(windows);
      for (const w of windows) this.maxWindowMs = Math.max(this.maxWindowMs, w.windowSec * 1000);
    }
    const nowMs = this.now();
    this.sweep(nowMs);
    let entry = this.entries.get(key);
    // Map order is recency order: a key is moved to the end (delete, set below) unless it is there already.
    // NB: one organization hitting again and again (community mode) then costs no delete and re-insert.
    const latest = entry !== undefined && key === this.latest;
    if (entry === undefined) entry = { lastMs: nowMs, windowSec: [], index: [], count: [] };
    else if (!latest) this.entries.delete(key);

    const counts = this.scratch;
    counts.length = windows.length;
    let allowed = true;
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i]!;
      let slot = entry.windowSec.indexOf(w.windowSec);
      if (slot < 0) {
        slot = entry.windowSec.push(w.windowSec) - 1;
        entry.index.push(-1);
        entry.count.push(0);
      }
      const idx = windowIndex(nowMs, w.windowSec);
      // NB: only a later window resets the count; a clock stepping back keeps counting in the newer window.
      if (idx > entry.index[slot]!) {
        entry.index[slot] = idx;
        entry.count[slot] = 0;
      }
      counts[i] = entry.count[slot]!;
      if (counts[i]! + cost > w.limit) allowed = false;
    }
    if (allowed && cost > 0) {
      for (let i = 0; i < windows.length; i++) {
        const slot = entry.windowSec.indexOf(windows[i]!.windowSec);
        entry.count[slot]! += cost;
        counts[i]! += cost;
      }
    }
    entry.lastMs = nowMs;
    if (!latest) {
      this.entries.set(key, entry);
      this.latest = key;
    }
    if (this.entries.size > this.maxKeys) {
      this.entries.delete(this.entries.keys().next().value!);
      this.evictions++;
    }
    return decide(windows, counts, cost, allowed, nowMs);
  }

  async release(
    key: string,
    cost: number,
    atMs: number,
    windows: readonly RateLimitWindow[] = this.windows,
  ): Promise<void> {
    this.releaseSync(key, cost, atMs, windows);
  }

  /** The same as `release`, without the promise. */
  releaseSync(key: string, cost: number, atMs: number, windows: readonly RateLimitWindow[] = this.windows): void {
    checkKeyAndCost(key, cost);
    const entry = this.entries.get(key);
    if (entry === undefined || cost === 0) return;
    for (const w of windows) {
      const slot = entry.windowSec.indexOf(w.windowSec);
      if (slot >= 0 && entry.index[slot] === windowIndex(atMs, w.windowSec))
        entry.count[slot] = Math.max(0, entry.count[slot]! - cost);
    }
  }

  /** Drops keys idle for longer than the longest window: every window they counted in has ended. */
  private sweep(nowMs: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.lastMs + this.maxWindowMs > nowMs) return;
      this.entries.delete(key);
    }
  }
}
