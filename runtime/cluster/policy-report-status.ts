/**
 * `Policy.status.report`: each Policy's evaluations and violations over the last hour and day, and its decisions
 * over the day (docs/policy-reports.md), counted in the database so that every gateway replica's calls are in them.
 * One gateway replica writes them: the holder of the Lease `O-gateway-status` (the connector-status writer's). While
 * it holds the Lease it takes the counts of every Policy of the namespace in one query every `intervalMs`, and
 * merge-patches `status.report` of each Policy whose counts differ from what its status shows, at most once per
 * `intervalMs` per Policy: a change within the interval is written by the first count after it (so at most an
 * interval late). NB: the counts change as calls age out of a window too, so an idle Policy's report still moves.
 * Policies of the built-in pack are no objects: they have no status to write.
 */
import type { PolicyReportStatus, PolicyResource } from '../../api/index.js';
import { isoTimestamp } from '../../platform/iso-time.js';
import { jsonEqual, patchStatus, Resources, type KubeClient, type KubeObject } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import type { PolicyReports, PolicySummary } from '../policy/reports/index.js';

/** The least time between two counts, and between two writes of one Policy. */
export const POLICY_REPORT_INTERVAL_MS = 60_000;

export interface PolicyReportWriterOptions {
  client: KubeClient;
  /** The Kubernetes source: the namespace's Policies, and the objects as the server holds them. */
  source: {
    readonly namespace: string;
    list(kind: 'Policy'): readonly PolicyResource[];
    object(kind: 'Policy', name: string): KubeObject | undefined;
  };
  reports: Pick<PolicyReports, 'summaries'>;
  /** How often the counts are taken, and the least time between two writes of one Policy. @default 60s */
  intervalMs?: number;
  now?: () => Date;
  fieldManager?: string;
  log?: Logger;
}

type PolicyObject = KubeObject & { status?: { report?: PolicyReportStatus } & Record<string, unknown> };

/** Deadline of one status write. */
const WRITE_TIMEOUT_MS = 10_000;

export class PolicyReportWriter {
  private readonly intervalMs: number;
  private readonly now: () => Date;
  private leading = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private counting: Promise<void> | undefined;
  private serial: Promise<void> = Promise.resolve();
  /** Counts the times leadership changed: a timer belongs to one term. */
  private term = 0;
  /**
   * What this replica last wrote to each Policy while leading: when (the rate limit), the counts, and the
   * resourceVersion its cache had then (the informer may not show the write yet).
   */
  private readonly written = new Map<string, { at: number; resourceVersion?: string; counts: PolicySummary }>();
  /** Status patches sent (tests, logs). */
  writes = 0;

  constructor(private readonly opts: PolicyReportWriterOptions) {
    this.intervalMs = opts.intervalMs ?? POLICY_REPORT_INTERVAL_MS;
    this.now = opts.now ?? (() => new Date());
  }

  /** Starts (true) or stops (false) counting and writing: the Lease's holder writes. */
  setLeading(leading: boolean): void {
    if (this.closed || leading === this.leading) return;
    this.leading = leading;
    this.term++;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (leading) {
      this.opts.log?.info({ intervalMs: this.intervalMs }, 'writing the policy reports');
      this.tick();
    } else this.written.clear();
  }

  /** Stops for good; resolves once a count in flight has ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.leading = false;
    clearTimeout(this.timer);
    await this.counting;
  }

  /**
   * Takes the counts now and writes those a Policy's status does not show yet, unless this replica wrote that
   * Policy less than an interval ago (the next count writes it then). The timer's work; tests call it.
   */
  count(): Promise<void> {
    // NB: one count at a time: the timer's and a caller's would otherwise both write the same change.
    const run = this.serial.then(() => this.countOnce());
    this.serial = run.catch(() => undefined);
    return run;
  }

  private async countOnce(): Promise<void> {
    if (!this.leading) return;
    const { source, reports, log } = this.opts;
    const names = source
      .list('Policy')
      .map((p) => p.metadata.name)
      .filter((name) => source.object('Policy', name) !== undefined);
    const at = this.now();
    const counts = await reports.summaries(names, at);
    for (const [name, summary] of counts) {
      const obj = source.object('Policy', name) as PolicyObject | undefined;
      if (!this.leading) return;
      if (!obj || this.upToDate(name, obj, summary)) continue;
      const last = this.written.get(name)?.at;
      if (last !== undefined && at.getTime() - last < this.intervalMs) continue;
      await this.write(name, obj, summary, at).catch((err: unknown) =>
        log?.warn({ err, policy: name }, 'policy report write failed; the next count tries again'),
      );
    }
  }

  private tick(): void {
    const term = this.term;
    this.counting = this.count()
      .catch((err: unknown) => this.opts.log?.warn({ err }, 'policy report counts failed; trying again'))
      .finally(() => {
        this.counting = undefined;
        // NB: a count of an earlier term (leadership lost and won back meanwhile) leaves the timer to the new one.
        if (term !== this.term || !this.leading || this.closed) return;
        this.timer = setTimeout(() => this.tick(), this.intervalMs);
        this.timer.unref();
      });
  }

  /** Whether the Policy shows these counts (the time they were taken aside), or this replica's write of them is on its way. */
  private upToDate(name: string, obj: PolicyObject, counts: PolicySummary): boolean {
    const shown = obj.status?.report;
    if (shown) {
      const { updatedAt: _, ...rest } = shown;
      if (jsonEqual(rest, counts)) return true;
    }
    const w = this.written.get(name);
    return w !== undefined && w.resourceVersion === obj.metadata.resourceVersion && jsonEqual(w.counts, counts);
  }

  private async write(name: string, obj: PolicyObject, counts: PolicySummary, at: Date): Promise<void> {
    const report: PolicyReportStatus = { updatedAt: isoTimestamp(at), ...counts };
    this.written.set(name, { at: at.getTime(), resourceVersion: obj.metadata.resourceVersion, counts });
    this.writes++;
    const result = await patchStatus(
      this.opts.client,
      Resources.Policy,
      obj,
      { report },
      {
        fieldManager: this.opts.fieldManager ?? 'steward-gateway',
        signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
      },
    );
    if (result === 'updated')
      this.opts.log?.debug({ policy: name, violations24h: counts.last24h.violations }, 'policy report written');
  }
}
