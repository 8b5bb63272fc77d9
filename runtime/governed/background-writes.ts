import type { Logger } from '../../platform/log.js';

/**
 * The records of governed LLM calls written behind their answers (`STEWARD_LLM_AUDIT=background`): each write is
 * tracked until it settles, a failure is logged and counted (it cannot reach the caller any more), and shutdown
 * waits for what is in flight. At most `max` writes are in flight: past that, callers wait for their own write
 * as in `commit` mode, so a slow database slows answers instead of growing memory without bound.
 */
export class BackgroundWrites {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly log: Logger,
    private readonly onFailure: () => void,
    readonly max = 10_000,
  ) {}

  /** Writes in flight now. */
  get size(): number {
    return this.inFlight.size;
  }

  get full(): boolean {
    return this.inFlight.size >= this.max;
  }

  track(write: Promise<unknown>): void {
    const tracked = write.then(
      () => undefined,
      (err: unknown) => {
        this.onFailure();
        this.log.error({ err }, 'audit record of a governed LLM call failed after its answer was sent');
      },
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  /** Waits for every write in flight, at most `timeoutMs`; reports what was left. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const outcome = await Promise.race([Promise.all(this.inFlight).then(() => 'done' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      this.log.error(
        { pending: this.inFlight.size, timeoutMs },
        'shutdown: audit records still unwritten after the drain timeout',
      );
  }
}
