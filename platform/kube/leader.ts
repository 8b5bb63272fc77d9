/**
 * Leader election over a coordination.k8s.io/v1 Lease, as client-go's LeaderElector: one replica holds the
 * Lease and renews it every `retryPeriodMs`; the others try every `retryPeriodMs` and take it once it has
 * expired (`renewTime + leaseDurationSeconds` is past) or was released (no holder). Every write carries the
 * resourceVersion read, so two replicas racing for the same Lease cannot both win: the loser gets 409.
 *
 * Safety rests on `renewDeadlineMs < leaseDurationMs`: a leader that has not renewed for `renewDeadlineMs`
 * stops leading (aborts the signal it gave `onStartedLeading`) before any other replica may consider the Lease
 * expired. That assumes the replicas' clocks agree to within the difference.
 *
 * A replica leads once per `start()`: after it loses the Lease it does not campaign again (client-go's `Run`
 * returns too). The operator exits then and lets Kubernetes restart it with a clean state.
 */
import type { Logger } from 'pino';
import type { KubeClient, KubeObject } from './client.js';
import { isAborted, isAlreadyExists, isConflict } from './errors.js';
import { leaseExpired, leaseSpec, type LeaseSpec } from './lease.js';
import { Resources } from './resources.js';

export interface LeaderElectorOptions {
  client: KubeClient;
  namespace: string;
  /** The Lease's name. */
  name: string;
  /** This replica's name in `holderIdentity`: unique among replicas (the pod name). */
  identity: string;
  /** How long a Lease stays valid after its last renewal. @default 15s */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long stops leading. Less than `leaseDurationMs`. @default 10s */
  renewDeadlineMs?: number;
  /** Interval of renewals and of the attempts to acquire. @default 2s */
  retryPeriodMs?: number;
  /** Called on becoming leader; `signal` aborts when leadership ends (lost or stopped). */
  onStartedLeading: (signal: AbortSignal) => void;
  /** Called when leadership ends, lost or stopped (after `signal` aborted). */
  onStoppedLeading?: (how: 'lost' | 'stopped') => void;
  /** Called when another holder is observed. */
  onNewLeader?: (identity: string) => void;
  log?: Logger;
  now?: () => Date;
}

type Lease = KubeObject & { spec?: LeaseSpec };

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => Date;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private leading: AbortController | undefined;
  private observedHolder = '';
  /** The Lease as last written by us, for release. */
  private held: Lease | undefined;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    this.now = opts.now ?? (() => new Date());
    if (!(this.retryPeriodMs < this.renewDeadlineMs && this.renewDeadlineMs < this.leaseDurationMs)) {
      throw new RangeError('leader election needs retryPeriodMs < renewDeadlineMs < leaseDurationMs');
    }
  }

  get isLeader(): boolean {
    return this.leading !== undefined;
  }

  /** The holder last observed in the Lease ('' when none). */
  get leader(): string {
    return this.observedHolder;
  }

  /** Campaigns in the background until leading, then renews until stopped or lost. */
  start(): void {
    this.loop ??= this.run().catch((err: unknown) => this.opts.log?.error({ err }, 'leader election failed'));
  }

  /**
   * Stops campaigning or leading. With `release` (the default; a graceful stop) a held Lease is given up at
   * once so another replica takes over without waiting for it to expire; `release: false` leaves it to
   * expire, as a crashed process would.
   */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    this.stopping.abort();
    await this.loop;
    if (opts.release !== false && this.held) await this.release(this.held);
    this.held = undefined;
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted && !(await this.tryAcquireOrRenew(signal)))
      await sleep(this.retryPeriodMs * (1 + Math.random() * 0.2), signal);
    if (signal.aborted) return;
    const leading = (this.leading = new AbortController());
    this.opts.log?.info({ lease: this.opts.name, identity: this.opts.identity }, 'became leader');
    this.opts.onStartedLeading(leading.signal);
    let renewedAt = Date.now();
    let how: 'lost' | 'stopped' = 'stopped';
    while (!signal.aborted) {
      await sleep(this.retryPeriodMs, signal);
      if (signal.aborted) break;
      const left = renewedAt + this.renewDeadlineMs - Date.now();
      // NB: the renewal is cancelled at the deadline; one the server applied before the cancel still names us
      // for one more duration while we do not lead. That delays the next leader; it never makes two.
      const renewed = left > 0 && (await this.tryAcquireOrRenew(AbortSignal.any([signal, AbortSignal.timeout(left)])));
      if (renewed) renewedAt = Date.now();
      else if (Date.now() - renewedAt >= this.renewDeadlineMs) {
        how = 'lost';
        this.held = undefined;
        break;
      }
    }
    this.leading = undefined;
    leading.abort();
    if (how === 'lost')
      this.opts.log?.error(
        { lease: this.opts.name, renewDeadlineMs: this.renewDeadlineMs },
        'leadership lost: the Lease could not be renewed in time',
      );
    this.opts.onStoppedLeading?.(how);
  }

  /**
   * One attempt; false when another replica holds the Lease, the write lost a race, the API failed, or `signal`
   * (stopping, or the renew deadline) cut it.
   */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity } = this.opts;
    const now = this.now();
    try {
      const current = await client.tryGet<Lease>(Resources.Lease, namespace, name, { signal });
      if (!current) {
        const lease: Lease = {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: leaseSpec(identity, this.leaseDurationMs, now),
        };
        this.held = await client.create(Resources.Lease, lease, { signal });
        this.observe(identity);
        return true;
      }
      const spec = current.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      this.observe(holder);
      if (holder && holder !== identity && !leaseExpired(spec, now)) return false;
      const next = leaseSpec(
        identity,
        this.leaseDurationMs,
        now,
        holder === identity ? spec : { leaseTransitions: (spec.leaseTransitions ?? 0) + 1 },
      );
      this.held = await client.replace(Resources.Lease, { ...current, spec: next }, { signal });
      this.observe(identity);
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err) || isAborted(err)) return false;
      this.opts.log?.warn({ err, lease: name }, 'could not acquire or renew the Lease');
      return false;
    }
  }

  private async release(lease: Lease): Promise<void> {
    try {
      const spec: LeaseSpec = {
        ...lease.spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        renewTime: leaseSpec('', 1000, this.now()).renewTime,
      };
      await this.opts.client.replace(Resources.Lease, { ...lease, spec });
      this.opts.log?.info({ lease: this.opts.name }, 'Lease released');
    } catch (err) {
      // NB: a 409 means someone wrote the Lease since our last renewal; it is no longer ours to release.
      this.opts.log?.warn({ err, lease: this.opts.name }, 'could not release the Lease; it will expire');
    }
  }

  private observe(holder: string): void {
    if (holder === this.observedHolder) return;
    this.observedHolder = holder;
    if (holder) this.opts.onNewLeader?.(holder);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
