/**
 * The manager, as controller-runtime's: it owns the shared cache, the event recorder and the controllers, and
 * runs the controllers' workers only while this replica leads. Informers run on every replica, so a standby
 * has a warm cache and is ready (`/readyz`) without leading, and takes over without a cold list.
 *
 * Losing leadership stops the workers and calls `onLostLeadership`; `steward operator` exits there, as
 * controller-runtime does, and Kubernetes restarts the pod, which campaigns again with a fresh state.
 */
import type { Logger } from 'pino';
import type { KubeClient } from '../../platform/kube/client.js';
import { KubeEventRecorder } from '../../platform/kube/events.js';
import type { Component } from '../../platform/lifecycle.js';
import { LeaderElector, type LeaderElectorOptions } from '../../platform/kube/leader.js';
import { SharedCache } from './cache.js';
import { Controller, type ControllerStats } from './controller.js';
import type { ControllerContext, ControllerSettings, ControllerSpec, EventRecorder, ManagerMetrics } from './types.js';
import type { WorkQueueOptions, WorkQueueState } from './workqueue.js';

export type LeaderElectionSettings = Pick<
  LeaderElectorOptions,
  'namespace' | 'name' | 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'
>;

export interface ManagerOptions {
  client: KubeClient;
  log: Logger;
  /** Watch only this namespace; absent: every namespace. */
  namespace?: string;
  /** Absent: no election, the workers start with the manager (one replica, or tests). */
  leaderElection?: LeaderElectionSettings;
  /** Reconciles at once per controller unless its spec says. @default 4 */
  concurrency?: number;
  /** Back-off of failed reconciles. @default 5 ms doubling to 5 min */
  backoff?: WorkQueueOptions;
  /** Events' `source.component`. @default steward-operator */
  component?: string;
  /** Injected so tests control time. @default () => new Date() */
  now?: () => Date;
  /** Called after the workers stopped because the Lease was lost (not on `stop()`). */
  onLostLeadership?: () => void;
  /** First back-off of the informers after a failed list or watch. @default 250 */
  informerBackoffMs?: number;
  /** Reconcile durations go here; absent: not measured. */
  metrics?: ManagerMetrics;
  /**
   * Runs the process's leader-only components (`workers` among them) for one term of leadership: the process
   * lifecycle's `lead` (platform/lifecycle.ts). Absent: the manager starts and stops its own workers.
   */
  lead?: (term: AbortSignal) => void;
}

export class Manager {
  readonly cache: SharedCache;
  readonly events: EventRecorder & { flush(): Promise<void> };
  readonly client: KubeClient;
  private readonly log: Logger;
  private readonly controllers: Controller[] = [];
  private elector: LeaderElector | undefined;
  private started = false;
  private stopping = false;
  private leadingNow = false;
  private firstListed = false;
  private workersStopped: Promise<void> = Promise.resolve();
  private readonly stopped = new AbortController();
  /** The controllers' workers, a leader-only component: they run while this replica leads (or always, unelected). */
  readonly workers: Component = {
    name: 'controllers',
    leaderOnly: true,
    start: () => this.startWorkers(),
    stop: () => this.stopWorkers(),
  };

  constructor(private readonly opts: ManagerOptions) {
    this.client = opts.client;
    this.log = opts.log;
    this.cache = new SharedCache(opts.client, {
      namespace: opts.namespace,
      log: opts.log.child({ module: 'informer' }),
      backoffMs: opts.informerBackoffMs,
    });
    this.events = new KubeEventRecorder({
      client: opts.client,
      component: opts.component ?? 'steward-operator',
      host: opts.leaderElection?.identity,
      log: opts.log.child({ module: 'events' }),
      now: opts.now,
    });
  }

  /** What controller factories get (`allControllers(manager.context())`). */
  context(settings?: ControllerSettings): ControllerContext {
    return {
      client: this.client,
      cache: this.cache,
      events: this.events,
      now: this.opts.now ?? (() => new Date()),
      log: this.log,
      settings,
    };
  }

  /** Registers a controller; before `start()` only. */
  add(spec: ControllerSpec): this {
    if (this.started) throw new Error(`controller ${spec.name} added after the manager started`);
    if (this.controllers.some((c) => c.spec.name === spec.name)) throw new Error(`controller ${spec.name} added twice`);
    this.cache.select(spec.selects ?? []);
    this.controllers.push(
      new Controller(spec, this.cache, this.log, this.opts.backoff, this.opts.metrics?.reconcileTimer(spec.name)),
    );
    return this;
  }

  /**
   * Starts the informers and waits for their first lists, then campaigns for the Lease (workers start on
   * winning) or, without election, starts the workers. Resolves once the cache is synced, leading or not.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const c of this.controllers) c.watch();
    // NB: a stop while the first lists are still failing must not leave start() waiting forever.
    const stopped = new Promise<void>((resolve) =>
      this.stopped.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([this.cache.synced(), stopped]);
    if (this.stopping) return;
    this.firstListed = true;
    this.log.info(
      { controllers: this.controllers.map((c) => c.spec.name), namespace: this.opts.namespace ?? '(all)' },
      'caches synced',
    );
    const election = this.opts.leaderElection;
    if (!election) return this.lead(this.stopped.signal);
    this.elector = new LeaderElector({
      ...election,
      client: this.client,
      log: this.log.child({ module: 'leader' }),
      onStartedLeading: (signal) => this.lead(signal),
      onStoppedLeading: (how) => {
        if (how !== 'lost' || this.stopping) return;
        void this.workersStopped.then(() => this.opts.onLostLeadership?.());
      },
      onNewLeader: (identity) =>
        identity !== election.identity && this.log.info({ leader: identity }, 'another replica leads; standing by'),
    });
    this.elector.start();
  }

  /**
   * The informers had their first lists (what `/readyz` reports). NB: not `cache.hasSynced`, which a Secret's
   * watch started later (a resource naming it) makes false until that watch's own first list.
   */
  get ready(): boolean {
    return this.firstListed;
  }

  /** The workers are running (this replica leads, or runs without election). */
  get leading(): boolean {
    return this.leadingNow;
  }

  /** Reconciles, errors and queue adds per controller since start. */
  stats(): Record<string, ControllerStats> {
    return Object.fromEntries(this.controllers.map((c) => [c.spec.name, { ...c.stats }]));
  }

  /** Each controller's work queue now (idle while not leading). */
  queues(): Record<string, WorkQueueState> {
    const now = performance.now();
    return Object.fromEntries(this.controllers.map((c) => [c.spec.name, c.queueState(now)]));
  }

  /**
   * Stops in the order that keeps one writer: the workers first (waiting for reconciles in flight), then the
   * Lease (released unless `releaseLease: false`, which simulates a crash), then the informers and Events.
   */
  async stop(opts: { releaseLease?: boolean } = {}): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.stopped.abort();
    await this.stopWorkers();
    await this.elector?.stop({ release: opts.releaseLease !== false });
    await this.cache.stop();
    await this.events.flush();
    this.log.info('manager stopped');
  }

  /** One term: the process's leader-only components, or the workers alone. */
  private lead(term: AbortSignal): void {
    // NB: at once on abort, before onStoppedLeading waits for `workersStopped`: no reconcile starts after the loss.
    term.addEventListener('abort', () => void this.stopWorkers(), { once: true });
    if (this.opts.lead) return this.opts.lead(term);
    this.startWorkers();
  }

  private startWorkers(): void {
    if (this.leadingNow || this.stopping) return;
    this.leadingNow = true;
    for (const c of this.controllers) c.start(this.opts.concurrency ?? 4);
    this.log.info('controllers started');
  }

  private stopWorkers(): Promise<void> {
    if (!this.leadingNow) return this.workersStopped;
    this.leadingNow = false;
    this.workersStopped = Promise.all(this.controllers.map((c) => c.stop())).then(
      () => void this.log.info('controllers stopped'),
    );
    return this.workersStopped;
  }
}
