/**
 * A role one replica holds at a time (the writer of some status), over a Lease: campaigns, tells `onChange` when
 * this replica starts and stops holding it, and campaigns again after losing it (a LeaderElector leads once per
 * start; a status writer, unlike the operator, has no reason to exit).
 */
import { LeaderElector } from '../../platform/kube/leader.js';
import type { KubeClient } from '../../platform/kube/index.js';
import type { Logger } from '../../platform/log.js';

export interface LeaseRoleOptions {
  client: KubeClient;
  namespace: string;
  /** The Lease, e.g. `O-gateway-status`. */
  lease: string;
  /** This pod's name. */
  identity: string;
  onChange: (holding: boolean) => void;
  /** Lease timings (tests shorten them). */
  timing?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  log?: Logger;
}

export class LeaseRole {
  private elector: LeaderElector | undefined;
  private stopped = false;

  constructor(private readonly opts: LeaseRoleOptions) {}

  start(): void {
    if (this.stopped) return;
    const { client, namespace, lease, identity, log, timing } = this.opts;
    this.elector = new LeaderElector({
      client,
      namespace,
      name: lease,
      identity,
      ...timing,
      log,
      onStartedLeading: () => this.opts.onChange(true),
      onStoppedLeading: (how) => {
        this.opts.onChange(false);
        if (how === 'lost' && !this.stopped) this.start();
      },
    });
    this.elector.start();
  }

  get holding(): boolean {
    return this.elector?.isLeader ?? false;
  }

  /** Stops campaigning and releases a held Lease, so another replica takes the role at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.elector?.stop();
  }
}
