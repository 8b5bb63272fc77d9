/**
 * Status writes of one runtime, at most one per object per `minIntervalMs`, with a trailing write: a change that
 * arrives inside the interval is written when it ends, from the state current then, so the last state always lands.
 * One write per object runs at a time; a failed write is retried with a doubling delay (up to a minute).
 */
import type { Logger } from '../../platform/log.js';

interface Slot {
  lastAt: number;
  timer?: NodeJS.Timeout;
  running: boolean;
  again: boolean;
  failures: number;
  write: () => Promise<void>;
}

const MAX_RETRY_DELAY_MS = 60_000;

export class StatusThrottle {
  private readonly slots = new Map<string, Slot>();
  private closed = false;

  constructor(
    private readonly minIntervalMs: number,
    private readonly log?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes `key` now or when its interval ends; `write` reads the state to write when it runs. */
  schedule(key: string, write: () => Promise<void>): void {
    if (this.closed) return;
    const slot = this.slots.get(key) ?? { lastAt: -Infinity, running: false, again: false, failures: 0, write };
    this.slots.set(key, slot);
    slot.write = write;
    if (slot.running) {
      slot.again = true;
      return;
    }
    if (slot.timer) return;
    const delay = slot.failures
      ? Math.min(this.minIntervalMs * 2 ** slot.failures, MAX_RETRY_DELAY_MS)
      : this.minIntervalMs;
    const wait = slot.lastAt + Math.max(delay, slot.failures ? 1000 : 0) - this.now();
    if (wait <= 0) void this.run(key, slot);
    else {
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        void this.run(key, slot);
      }, wait);
      slot.timer.unref();
    }
  }

  /** Forgets pending writes (an object deleted, leadership lost). */
  cancel(key?: string): void {
    for (const [k, slot] of this.slots) {
      if (key !== undefined && k !== key) continue;
      clearTimeout(slot.timer);
      slot.timer = undefined;
      slot.again = false;
      if (!slot.running) this.slots.delete(k);
    }
  }

  close(): void {
    this.closed = true;
    this.cancel();
  }

  private async run(key: string, slot: Slot): Promise<void> {
    if (this.closed) return;
    slot.running = true;
    slot.lastAt = this.now();
    try {
      await slot.write();
      slot.failures = 0;
    } catch (err) {
      slot.failures++;
      slot.again = true;
      this.log?.warn({ err, object: key, failures: slot.failures }, 'status write failed; retrying');
    } finally {
      slot.running = false;
    }
    // NB: the slot stays with its lastAt, so that a change right after this write waits out the interval.
    if (slot.again && !this.closed) {
      slot.again = false;
      this.schedule(key, slot.write);
    }
  }
}
