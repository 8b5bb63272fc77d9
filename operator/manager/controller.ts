/**
 * One controller at run time: informer events become keys in its work queue, and `concurrency` workers run the
 * reconciler on them. The event handlers are installed once; the workers run only while the manager leads
 * (a queue per term, so keys of a lost term are not carried into the next).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeObject } from '../../platform/kube/client.js';
import { objectKey, type InformerEvent } from '../../platform/kube/informer.js';
import type { SharedCache } from './cache.js';
import { TerminalError, type ControllerSpec, type ReconcileTimer } from './types.js';
import { WorkQueue, type WorkQueueCounts, type WorkQueueOptions, type WorkQueueState } from './workqueue.js';

export interface ControllerStats extends WorkQueueCounts {
  /** Reconciles run (finished, failed or not). */
  reconciles: number;
  /** Reconciles that returned without `requeueAfterMs`. */
  successes: number;
  /** Reconciles that returned `requeueAfterMs`. */
  requeues: number;
  /** Reconciles that threw, terminal errors included; not those cut by the end of their term (stop, lost Lease). */
  errors: number;
  /** Reconciles that threw a TerminalError (not retried). */
  terminalErrors: number;
}

const IDLE: WorkQueueState = Object.freeze({ depth: 0, processing: 0, longestRunningMs: 0, unfinishedWorkMs: 0 });

export class Controller {
  /** NB: also the queues' counts (adds, retries), so that they add up across leadership terms. */
  readonly stats: ControllerStats = {
    reconciles: 0,
    successes: 0,
    requeues: 0,
    errors: 0,
    terminalErrors: 0,
    adds: 0,
    retries: 0,
  };
  private queue: WorkQueue | undefined;
  private term: AbortController | undefined;
  private readonly log: Logger;

  constructor(
    readonly spec: ControllerSpec,
    private readonly cache: SharedCache,
    log: Logger,
    private readonly backoff: WorkQueueOptions = {},
    private readonly timer?: ReconcileTimer,
  ) {
    this.log = log.child({ controller: spec.name });
  }

  /** The current term's queue; idle while not leading. */
  queueState(now?: number): WorkQueueState {
    return this.queue?.state(now) ?? IDLE;
  }

  /** Subscribes to the informers of `for`, `owns` and `watches` (starting them). */
  watch(): void {
    const { spec } = this;
    this.cache.informer(spec.for).on((e) => this.enqueue(objectKey(e.object)));
    for (const owned of spec.owns ?? []) this.cache.informer(owned).on((e) => this.enqueueOwner(e));
    for (const w of spec.watches ?? []) {
      this.cache.informer(w.resource).on((e) => {
        try {
          for (const key of w.map(e.object)) this.enqueue(key);
        } catch (err) {
          this.log.error({ err, resource: w.resource.plural }, 'watch map failed');
        }
      });
    }
  }

  /** Starts a term: every cached primary object is queued (changes made while not leading were not). */
  start(concurrency: number): void {
    if (this.queue) return;
    const term = (this.term = new AbortController());
    const queue = (this.queue = new WorkQueue({ ...this.backoff, counts: this.stats }));
    for (const obj of this.cache.list(this.spec.for)) queue.add(objectKey(obj));
    queue.run(this.spec.concurrency ?? concurrency, (key) => this.process(queue, key, term.signal));
  }

  /** Ends the term: aborts the reconciles' signal and waits for those in flight. */
  async stop(): Promise<void> {
    const queue = this.queue;
    this.term?.abort();
    this.queue = undefined;
    this.term = undefined;
    await queue?.shutdown();
  }

  private enqueue(key: string): void {
    this.queue?.add(key);
  }

  private enqueueOwner(e: InformerEvent<KubeObject>): void {
    // NB: an update may move the ownerReference; the old owner must hear of losing its object too.
    for (const obj of e.old ? [e.object, e.old] : [e.object]) {
      const ref = obj.metadata.ownerReferences?.find((r) => r.controller && r.kind === this.spec.for.kind);
      if (!ref) continue;
      const namespace = this.spec.for.namespaced ? obj.metadata.namespace : undefined;
      this.enqueue(namespace ? `${namespace}/${ref.name}` : ref.name);
    }
  }

  private async process(queue: WorkQueue, key: string, signal: AbortSignal): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = slash < 0 ? '' : key.slice(0, slash);
    const name = slash < 0 ? key : key.slice(slash + 1);
    const reconcileId = randomUUID();
    const log = this.log.child({ namespace, name, reconcileId });
    this.stats.reconciles++;
    const startedAt = performance.now();
    try {
      // NB: an object that names another (a Connector its Secret) starts that one's watch in the same event; its
      // first list must be in before a reconcile reads the cache, which would otherwise find it missing.
      if (!this.cache.hasSynced) await this.cache.synced(signal);
      const result = await this.spec.reconciler.reconcile({ namespace, name, key, log, signal });
      queue.forget(key);
      if (result?.requeueAfterMs !== undefined) {
        this.stats.requeues++;
        queue.addAfter(key, result.requeueAfterMs);
      } else {
        this.stats.successes++;
      }
    } catch (err) {
      if (signal.aborted) {
        // NB: the term's signal cut the reconcile's client calls (KubeApiError Aborted): no failure, no retry.
        log.debug({ err }, 'reconcile ended by the stop of the controller');
        return;
      }
      this.stats.errors++;
      if (err instanceof TerminalError) {
        this.stats.terminalErrors++;
        log.error({ err }, 'reconcile failed; not retried until something changes');
        queue.forget(key);
      } else {
        log.error({ err, retries: queue.numRequeues(key) }, 'reconcile failed; retrying with back-off');
        queue.addRateLimited(key);
      }
    } finally {
      this.timer?.((performance.now() - startedAt) / 1000);
    }
  }
}
