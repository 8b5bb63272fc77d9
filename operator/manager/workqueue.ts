/**
 * A rate-limited work queue, as client-go's: a key is queued at most once however often it is added, and it
 * is never handed to two workers at once (a key added while a worker holds it is queued again when the worker
 * is `done`). Failures back off per key, exponentially, until `forget` says the key succeeded.
 *
 * Keys, not objects, are queued on purpose: the reconciler re-reads the newest state when it runs, so ten
 * changes made while a key waits cost one reconcile.
 */

export interface WorkQueueOptions {
  /** Delay of the first retry after a failure; doubles with each further failure. @default 5 ms */
  baseDelayMs?: number;
  /** Longest delay between retries. @default 5 min */
  maxDelayMs?: number;
  /** Counted into, so that a controller's totals outlive the queue of one leadership term. @default a fresh one */
  counts?: WorkQueueCounts;
}

/** What a queue did since it was created (or since `counts` was first passed to a queue). */
export interface WorkQueueCounts {
  /** Keys queued; an add of a key already waiting is not one. */
  adds: number;
  /** Keys re-added after a failure (`addRateLimited`). */
  retries: number;
}

/** The queue now, for metrics: read at scrape time, not kept. */
export interface WorkQueueState {
  /** Keys waiting (`length`). */
  depth: number;
  /** Keys being processed (one worker each). */
  processing: number;
  /** How long the oldest key still being processed has been, in ms; 0 when none is. */
  longestRunningMs: number;
  /** The sum of how long each key being processed has been, in ms (client-go's unfinished work). */
  unfinishedWorkMs: number;
}

export class WorkQueue<K = string> {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private queue: K[] = [];
  /** Keys waiting to be processed (queued, or re-added while a worker holds them). */
  private readonly dirty = new Set<K>();
  /** Keys handed to a worker, and when (performance.now()). */
  private readonly processing = new Map<K, number>();
  private readonly failures = new Map<K, number>();
  private readonly timers = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private waiters: ((key: K | undefined) => void)[] = [];
  private workers: Promise<void>[] = [];
  private shuttingDown = false;
  readonly counts: WorkQueueCounts;

  constructor(opts: WorkQueueOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 300_000;
    this.counts = opts.counts ?? { adds: 0, retries: 0 };
  }

  /** Keys waiting (not counting those being processed or waiting for a delay). */
  get length(): number {
    return this.queue.length;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  state(now = performance.now()): WorkQueueState {
    let longestRunningMs = 0;
    let unfinishedWorkMs = 0;
    for (const since of this.processing.values()) {
      const ms = Math.max(0, now - since);
      unfinishedWorkMs += ms;
      if (ms > longestRunningMs) longestRunningMs = ms;
    }
    return { depth: this.queue.length, processing: this.processing.size, longestRunningMs, unfinishedWorkMs };
  }

  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.counts.adds++;
    // NB: a key being processed waits in `dirty`; `done` queues it, so no two workers ever hold it.
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) this.hand(key, waiter);
    else this.queue.push(key);
  }

  /** Adds the key after `delayMs`; of several pending delays for one key, the earliest wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Adds the key after its back-off: `baseDelayMs * 2^failures`, capped at `maxDelayMs`. */
  addRateLimited(key: K): void {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    this.counts.retries++;
    this.addAfter(key, this.backoffMs(failures));
  }

  /** The key succeeded: its next failure starts the back-off again from `baseDelayMs`. */
  forget(key: K): void {
    this.failures.delete(key);
  }

  /** Failures since the last `forget`. */
  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key, marked as being processed; undefined once the queue shuts down. Call `done` after it. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The worker finished `key`; if it was added meanwhile it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.shuttingDown || !this.dirty.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) this.hand(key, waiter);
    else this.queue.push(key);
  }

  /** Starts `workers` loops that take keys and run `handle`; it must not throw (a throw is swallowed). */
  run(workers: number, handle: (key: K) => Promise<void>): void {
    for (let i = 0; i < workers; i++) this.workers.push(this.work(handle));
  }

  /**
   * Stops handing out keys (queued and delayed keys are dropped) and resolves when every key being processed
   * is done. Further adds are ignored.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue = [];
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
    await Promise.all(this.workers);
  }

  private backoffMs(failures: number): number {
    // NB: 2 ** 60 would overflow the useful range long before; cap the exponent too.
    return Math.min(this.baseDelayMs * 2 ** Math.min(failures, 40), this.maxDelayMs);
  }

  private take(key: K): K {
    this.dirty.delete(key);
    this.processing.set(key, performance.now());
    return key;
  }

  private hand(key: K, waiter: (key: K) => void): void {
    waiter(this.take(key));
  }

  private async work(handle: (key: K) => Promise<void>): Promise<void> {
    for (;;) {
      const key = await this.get();
      if (key === undefined) return;
      try {
        await handle(key);
      } catch {
        // NB: the handler reports its own failures; a throw here must not kill the worker.
      } finally {
        this.done(key);
      }
    }
  }
}
