/**
 * A work queue for one controller: keys are deduplicated while they wait and processed one at a time
 * (so never concurrently for the same key). A reconcile that throws is retried: at once after a
 * conflict or a vanished object (409, 404: the next read sees why), with backoff otherwise. A
 * reconcile may ask to run again after a delay. `whenQuiet()` lets `idle()` wait without polling;
 * keys waiting out a backoff or a delay do not count, so a persistent failure cannot hold it up.
 */
import { statusCode } from './util.js';

/** What a reconcile may ask for; throwing means "retry". */
export interface ReconcileResult {
  /** Run the key again after this long (real time: the reconciler re-checks the test clock). */
  requeueAfterMs?: number;
}

export type ReconcileFn = (key: string) => ReconcileResult | void;

/** Retries stop after this many consecutive failures of one key (the next event starts over). */
const MAX_RETRIES = 12;
const BASE_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 1_000;

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly delayTimers = new Map<string, NodeJS.Timeout>();
  private scheduled = false;
  private running = false;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly reconcile: ReconcileFn,
    private readonly log: (msg: string) => void,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.schedule();
  }

  /** True when nothing waits or runs. */
  get quiet(): boolean {
    return this.pending.size === 0 && !this.running;
  }

  whenQuiet(): Promise<void> {
    if (this.quiet || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    for (const t of [...this.retryTimers.values(), ...this.delayTimers.values()]) clearTimeout(t);
    this.retryTimers.clear();
    this.delayTimers.clear();
    this.notify();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    if (this.stopped) return;
    const keys = [...this.pending];
    this.pending.clear();
    this.running = true;
    try {
      for (const key of keys) this.runOne(key);
    } finally {
      this.running = false;
    }
    this.notify();
  }

  private runOne(key: string): void {
    try {
      const r = this.reconcile(key);
      this.failures.delete(key);
      if (r?.requeueAfterMs !== undefined) this.later(this.delayTimers, key, Math.max(1, r.requeueAfterMs));
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.log(`reconcile ${key} failed (attempt ${n}): ${err instanceof Error ? err.message : String(err)}`);
      if (n >= MAX_RETRIES) {
        this.failures.delete(key);
        return;
      }
      this.failures.set(key, n);
      if (statusCode(err) === 409 || statusCode(err) === 404) this.add(key);
      else this.later(this.retryTimers, key, Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (n - 1)));
    }
  }

  private later(timers: Map<string, NodeJS.Timeout>, key: string, ms: number): void {
    clearTimeout(timers.get(key));
    const t = setTimeout(() => {
      timers.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    timers.set(key, t);
  }

  private notify(): void {
    if (!this.quiet && !this.stopped) return;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }
}
