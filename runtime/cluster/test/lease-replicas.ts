/**
 * Gateway replicas of a status writer for the tests of the Lease-held writers (policy reports, budget status):
 * each replica has its own Kubernetes source and writer, and competes for one Lease with short timings; the holder
 * writes.
 */
import type { KubeClient } from '../../../platform/kube/index.js';
import type { Logger } from '../../../platform/log.js';
import { KubernetesSource } from '../../source/index.js';
import { LeaseRole } from '../lease-role.js';

interface Writer {
  readonly writes: number;
  setLeading(leading: boolean): void;
  close(): Promise<void>;
}

export interface Replica<W extends Writer> {
  writer: W;
  role: LeaseRole;
  source: KubernetesSource;
}

export function leaseReplicas<W extends Writer>(
  o: { client: KubeClient; namespace: string; lease: string; log: Logger; replicas?: Replica<W>[] },
  writerOf: (source: KubernetesSource) => W,
) {
  const replicas = o.replicas ?? [];
  return {
    replicas,
    /** Status patches sent by every replica. */
    writes: () => replicas.reduce((sum, r) => sum + r.writer.writes, 0),
    leader: () => replicas.find((r) => r.role.holding)!,
    async start(pod: string): Promise<Replica<W>> {
      const source = new KubernetesSource({
        client: o.client,
        namespace: o.namespace,
        informer: { backoffMs: 20, maxBackoffMs: 200 },
        log: o.log,
      });
      await source.ready();
      const writer = writerOf(source);
      const role = new LeaseRole({
        client: o.client,
        namespace: o.namespace,
        lease: o.lease,
        identity: pod,
        timing: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 },
        onChange: (holding) => writer.setLeading(holding),
        log: o.log,
      });
      role.start();
      const replica = { writer, role, source };
      replicas.push(replica);
      return replica;
    },
    async close(): Promise<void> {
      for (const r of replicas) {
        await r.role.stop();
        await r.writer.close();
        await r.source.close();
      }
    },
  };
}
