/**
 * The loop every simulated controller shares: list each watched resource, enqueue the keys its objects
 * map to, then watch from the list's resourceVersion; when a watch ends (timeout, 410, restore), list
 * and watch again. A reconciler only says which resources it watches and how an object maps to keys.
 */
import type { ClusterApi } from '../client.js';
import type { TestClock } from '../clock.js';
import type { JsonObject } from '../schema/types.js';
import type { WatchHandle } from '../store/watch.js';
import { WorkQueue, type ReconcileResult } from './queue.js';

/** What every controller gets: the in-process API, the cluster clock, and where to report failures. */
export interface ControllerDeps {
  api: ClusterApi;
  clock: TestClock;
  log: (msg: string) => void;
}

export interface WatchSpec {
  /** A resource reference for `ClusterApi` (`pods`, `replicasets.apps`, ...). */
  resource: string;
  /** Keys to enqueue for an object of this resource (added, changed, deleted, or seen on resync). */
  keys(obj: JsonObject, event: 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC'): string[];
}

export interface Reconciler {
  readonly name: string;
  readonly watches: WatchSpec[];
  reconcile(key: string): ReconcileResult | void;
  /** Lets a reconciler watch more resources later (the garbage collector, as CRDs come and go). */
  bind?(addWatch: (w: WatchSpec) => void): void;
}

export class ControllerLoop {
  readonly queue: WorkQueue;
  private readonly handles = new Map<string, WatchHandle>();
  private readonly watching = new Map<string, WatchSpec>();
  private stopped = false;
  private relists = 0;

  constructor(
    private readonly api: ClusterApi,
    private readonly reconciler: Reconciler,
    private readonly log: (msg: string) => void,
  ) {
    this.queue = new WorkQueue(
      (key) => reconciler.reconcile(key),
      (msg) => log(`${reconciler.name}: ${msg}`),
    );
  }

  start(): void {
    this.reconciler.bind?.((w) => {
      if (!this.handles.has(w.resource) && !this.watching.has(w.resource)) this.listAndWatch(w);
    });
    for (const w of this.reconciler.watches) this.listAndWatch(w);
  }

  /** Nothing queued, running, or waiting to re-list. */
  get quiet(): boolean {
    return this.relists === 0 && this.queue.quiet;
  }

  /** Enqueues every key of every watched object again (after the test clock moved, say). */
  resync(): void {
    for (const w of this.watching.values()) {
      try {
        this.enqueueAll(w);
      } catch (err) {
        this.log(`${this.reconciler.name}: resync of ${w.resource} failed: ${(err as Error).message}`);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.handles.values()) h.stop();
    this.handles.clear();
    this.queue.stop();
  }

  /** NB: keys() may read the API; a throw must not escape into a watch's delivery loop. */
  private keysOf(w: WatchSpec, o: JsonObject, ev: Parameters<WatchSpec['keys']>[1]): string[] {
    try {
      return w.keys(o, ev);
    } catch (err) {
      this.log(`${this.reconciler.name}: mapping a ${w.resource} event failed: ${(err as Error).message}`);
      return [];
    }
  }

  private enqueueAll(w: WatchSpec): string {
    const list = this.api.list(w.resource);
    for (const o of list.items) for (const k of this.keysOf(w, o, 'SYNC')) this.queue.add(k);
    return list.resourceVersion;
  }

  private listAndWatch(w: WatchSpec): void {
    if (this.stopped) return;
    let rv: string;
    try {
      rv = this.enqueueAll(w);
    } catch (err) {
      // NB: only a custom resource can stop being served (its CRD was deleted); stop watching it.
      this.watching.delete(w.resource);
      this.log(`${this.reconciler.name}: stopped watching ${w.resource}: ${(err as Error).message}`);
      return;
    }
    this.watching.set(w.resource, w);
    const handle = this.api.watch(
      w.resource,
      { resourceVersion: rv },
      (ev) => {
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') return;
        for (const k of this.keysOf(w, ev.object, ev.type)) this.queue.add(k);
      },
      () => {
        this.handles.delete(w.resource);
        // NB: relist on a macrotask, so a watch that closes at once (410) cannot spin synchronously.
        if (this.stopped) return;
        this.relists++;
        setImmediate(() => {
          this.relists--;
          this.listAndWatch(w);
        });
      },
    );
    if (!this.stopped) this.handles.set(w.resource, handle);
  }
}
