/**
 * The manager's shared informers: one per resource type, over the watched namespace (or every namespace),
 * created and started on first use, so that three controllers reading Secrets share one list and one watch.
 */
import type { Logger } from 'pino';
import type { KubeClient, KubeObject } from '../../platform/kube/client.js';
import { Informer } from '../../platform/kube/informer.js';
import type { ResourceRef } from '../../platform/kube/resources.js';
import type { Cache } from './types.js';

export interface SharedCacheOptions {
  /** Only this namespace; absent: every namespace. Cluster-scoped resources are always read whole. */
  namespace?: string;
  log?: Logger;
  /** First back-off after a failed list or watch (tests make it short). @default 250 */
  backoffMs?: number;
}

/** One informer's counts (`Informer.stats`) and its resource's plural. */
export interface InformerStats {
  resource: string;
  lists: number;
  watches: number;
  relistsOnGone: number;
}

const refKey = (r: ResourceRef): string => `${r.group}/${r.version}/${r.plural}`;

export class SharedCache implements Cache {
  private readonly informers = new Map<string, Informer>();
  private stopped = false;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: SharedCacheOptions = {},
  ) {}

  informer<T extends KubeObject = KubeObject>(ref: ResourceRef): Informer<T> {
    const key = refKey(ref);
    let informer = this.informers.get(key);
    if (!informer) {
      if (this.stopped) throw new Error(`the cache is stopped; no informer for ${ref.plural}`);
      informer = new Informer(this.client, ref, {
        namespace: ref.namespaced ? this.opts.namespace : undefined,
        log: this.opts.log,
        backoffMs: this.opts.backoffMs,
      });
      this.informers.set(key, informer);
      informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  /**
   * NB: a resource no controller declared (in `for`, `owns` or `watches`) gets its informer here, on first use,
   * and reads as empty until its first list arrives; declare what a reconciler reads.
   */
  get<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace: string, name: string): T | undefined {
    return this.informer<T>(ref).get(ref.namespaced ? namespace : undefined, name);
  }

  list<T extends KubeObject = KubeObject>(ref: ResourceRef, namespace?: string): T[] {
    return this.informer<T>(ref).list(namespace);
  }

  /** Lists and watches of each informer started so far (the `resource` is its plural). */
  informerStats(): InformerStats[] {
    return [...this.informers.values()].map((i) => ({ resource: i.resource.plural, ...i.stats }));
  }

  /** True when every informer started so far has its first list. */
  get hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced);
  }

  /** Resolves when every informer started so far (including any started while waiting) has synced. */
  async synced(): Promise<void> {
    for (;;) {
      const pending = [...this.informers.values()].filter((i) => !i.hasSynced);
      if (!pending.length) return;
      await Promise.all(pending.map((i) => i.synced()));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
