/**
 * A status that one gateway replica writes for every replica: the holder of the Lease `O-gateway-status`. While it
 * holds the Lease it reads the figures of every object of one kind every `intervalMs` (from the database, so that
 * every replica's calls are in them) and merge-patches the status of each object whose figures differ from what it
 * shows, at most once per `intervalMs` per object: a change within the interval is written by the first reading
 * after it (so at most an interval late). The policy reports (policy-report-status.ts) and the budgets' spend
 * (budget-status.ts) are two of these; each says what it reads, how a status shows it and what it patches.
 */
import {
  jsonEqual,
  patchStatus,
  type KubeClient,
  type KubeObject,
  type ResourceRef,
} from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';

/** What one kind's status writer reads and writes. */
export interface StatusFigures<F> {
  /** What the logs call it: `policy report`, `budget status`. */
  what: string;
  resource: ResourceRef;
  /** The figures of each object, read at `at`. */
  read(at: Date): Promise<Iterable<readonly [string, F]>>;
  /** The object as the server holds it (the informer's cache); absent: nothing to write. */
  object(name: string): KubeObject | undefined;
  /** Whether the object's status shows `figures` already. */
  shows(obj: KubeObject, figures: F): boolean;
  /** The merge patch of the status that writes `figures` read at `at`. */
  patch(obj: KubeObject, figures: F, at: Date): Record<string, unknown>;
}

export interface LeaseStatusWriterOptions {
  client: KubeClient;
  intervalMs: number;
  now?: () => Date;
  fieldManager?: string;
  log?: Logger;
}

/** Deadline of one status write. */
const WRITE_TIMEOUT_MS = 10_000;

export class LeaseStatusWriter<F> {
  private readonly now: () => Date;
  private leading = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private serial: Promise<void> = Promise.resolve();
  /** Counts the times leadership changed: a timer belongs to one term. */
  private term = 0;
  /**
   * What this replica last wrote to each object while leading: when (the rate limit), the figures, and the
   * resourceVersion its cache had then (the informer may not show the write yet).
   */
  private readonly written = new Map<string, { at: number; resourceVersion?: string; figures: F }>();
  /** Status patches sent (tests, logs). */
  writes = 0;

  constructor(
    private readonly figures: StatusFigures<F>,
    private readonly opts: LeaseStatusWriterOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  get intervalMs(): number {
    return this.opts.intervalMs;
  }

  /** Starts (true) or stops (false) reading and writing: the Lease's holder writes. */
  setLeading(leading: boolean): void {
    if (this.closed || leading === this.leading) return;
    this.leading = leading;
    this.term++;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (leading) {
      this.opts.log?.info({ intervalMs: this.opts.intervalMs }, `writing the ${this.figures.what}`);
      this.tick();
    } else this.written.clear();
  }

  /** Stops for good; resolves once a reading in flight has ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.leading = false;
    clearTimeout(this.timer);
    await this.reading;
  }

  /**
   * Reads the figures now and writes those an object's status does not show yet, unless this replica wrote that
   * object less than an interval ago (the next reading writes it then). The timer's work; tests call it.
   */
  run(): Promise<void> {
    // NB: one reading at a time: the timer's and a caller's would otherwise both write the same change.
    const run = this.serial.then(() => this.runOnce());
    this.serial = run.catch(() => undefined);
    return run;
  }

  private async runOnce(): Promise<void> {
    if (!this.leading) return;
    const at = this.now();
    for (const [name, figures] of await this.figures.read(at)) {
      const obj = this.figures.object(name);
      if (!this.leading) return;
      if (!obj || this.upToDate(name, obj, figures)) continue;
      const last = this.written.get(name)?.at;
      if (last !== undefined && at.getTime() - last < this.opts.intervalMs) continue;
      await this.write(name, obj, figures, at).catch((err: unknown) =>
        this.opts.log?.warn({ err, object: name }, `${this.figures.what} write failed; the next reading tries again`),
      );
    }
  }

  private tick(): void {
    const term = this.term;
    this.reading = this.run()
      .catch((err: unknown) => this.opts.log?.warn({ err }, `${this.figures.what} reading failed; trying again`))
      .finally(() => {
        this.reading = undefined;
        // NB: a reading of an earlier term (leadership lost and won back meanwhile) leaves the timer to the new one.
        if (term !== this.term || !this.leading || this.closed) return;
        this.timer = setTimeout(() => this.tick(), this.opts.intervalMs);
        this.timer.unref();
      });
  }

  /** Whether the object shows these figures, or this replica's write of them is on its way. */
  private upToDate(name: string, obj: KubeObject, figures: F): boolean {
    if (this.figures.shows(obj, figures)) return true;
    const w = this.written.get(name);
    return w !== undefined && w.resourceVersion === obj.metadata.resourceVersion && jsonEqual(w.figures, figures);
  }

  private async write(name: string, obj: KubeObject, figures: F, at: Date): Promise<void> {
    this.written.set(name, { at: at.getTime(), resourceVersion: obj.metadata.resourceVersion, figures });
    this.writes++;
    const result = await patchStatus(
      this.opts.client,
      this.figures.resource,
      obj,
      this.figures.patch(obj, figures, at),
      {
        fieldManager: this.opts.fieldManager ?? 'steward-gateway',
        signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
      },
    );
    if (result === 'updated') this.opts.log?.debug({ object: name }, `${this.figures.what} written`);
  }
}
