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
import { jsonEqual, Resources, type KubeClient, type KubeObject } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';
import type { PolicyReports, PolicySummary } from '../policy/reports/index.js';
import { LeaseStatusWriter } from './lease-status-writer.js';

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

export class PolicyReportWriter {
  private readonly writer: LeaseStatusWriter<PolicySummary>;

  constructor(opts: PolicyReportWriterOptions) {
    const { source, reports } = opts;
    this.writer = new LeaseStatusWriter<PolicySummary>(
      {
        what: 'policy reports',
        resource: Resources.Policy,
        async read(at) {
          // NB: only the Policies that are objects of the namespace (not the pack's) have a status to write.
          const names = source
            .list('Policy')
            .map((p) => p.metadata.name)
            .filter((name) => source.object('Policy', name) !== undefined);
          return reports.summaries(names, at);
        },
        object: (name) => source.object('Policy', name),
        shows(obj, counts) {
          const shown = (obj as PolicyObject).status?.report;
          if (!shown) return false;
          const { updatedAt: _, ...rest } = shown;
          return jsonEqual(rest, counts);
        },
        patch: (_obj, counts, at) => ({
          report: { updatedAt: isoTimestamp(at), ...counts } satisfies PolicyReportStatus,
        }),
      },
      { ...opts, intervalMs: opts.intervalMs ?? POLICY_REPORT_INTERVAL_MS },
    );
  }

  /** Status patches sent (tests, logs). */
  get writes(): number {
    return this.writer.writes;
  }

  /** Starts (true) or stops (false) counting and writing: the Lease's holder writes. */
  setLeading(leading: boolean): void {
    this.writer.setLeading(leading);
  }

  /** Takes the counts now and writes what changed (lease-status-writer.ts); the timer's work, tests call it. */
  count(): Promise<void> {
    return this.writer.run();
  }

  /** Stops for good; resolves once a count in flight has ended. */
  close(): Promise<void> {
    return this.writer.close();
  }
}
