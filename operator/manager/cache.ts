/**
 * The manager's shared informers: one cache per resource type, over the watched namespace (or every namespace),
 * created and started on first use, so that three controllers reading Secrets share one list and one watch.
 *
 * A resource the controllers select (`ControllerSpec.selects`) is cached as the union of its selections
 * (`selected.ts`): the operator's own pods by label, the Secrets the resources name one by one, so that the
 * cluster's other Pods and Secrets never reach the operator's memory (docs/adr/0015).
 */
import type { Logger } from 'pino';
import type { KubeClient, KubeObject } from '../../platform/kube/client.js';
import { Informer } from '../../platform/kube/informer.js';
import type { ResourceRef } from '../../platform/kube/resources.js';
import { SelectedResource, type InformerCounts } from './selected.js';
import type { Cache, ResourceCache, Selection } from './types.js';

export interface SharedCacheOptions {
  /** Only this namespace; absent: every namespace. Cluster-scoped resources are always read whole. */
  namespace?: string;
  log?: Logger;
  /** First back-off after a failed list or watch (tests make it short). @default 250 */
  backoffMs?: number;
  /** Longest back-off after failed lists or watches. @default 30s */
  maxBackoffMs?: number;
}

/** One resource's informer counts (`Informer.stats`, summed over a selection's informers) and its plural. */
export interface InformerStats extends InformerCounts {
  resource: string;
}

type Entry = (Informer | SelectedResource) & ResourceCache;

const refKey = (r: ResourceRef): string => `${r.group}/${r.version}/${r.plural}`;

export class SharedCache implements Cache {
  private readonly entries = new Map<string, Entry>();
  private readonly selections = new Map<string, Set<Selection>>();
  private stopped = false;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: SharedCacheOptions = {},
  ) {}

  /**
   * Caches only what `selections` select of their resources (the union, when several select one resource).
   * Before the resource's first use: an informer already holding every object is not narrowed afterwards.
   */
  select(selections: readonly Selection[]): void {
    for (const s of selections) {
      const key = refKey(s.resource);
      if (this.entries.has(key))
        throw new Error(`${s.resource.plural} is cached already; select it before its first use`);
      const set = this.selections.get(key) ?? new Set();
      this.selections.set(key, set.add(s));
    }
  }

  informer<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceCache<T> {
    const key = refKey(ref);
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.stopped) throw new Error(`the cache is stopped; no informer for ${ref.plural}`);
      const namespace = ref.namespaced ? this.opts.namespace : undefined;
      const settings = { log: this.opts.log, backoffMs: this.opts.backoffMs, maxBackoffMs: this.opts.maxBackoffMs };
      const selections = this.selections.get(key);
      if (selections) {
        const selected = new SelectedResource(this.client, ref, { namespace, ...settings });
        this.entries.set(key, selected);
        for (const s of selections) {
          if ('labelSelector' in s) selected.addLabelSelection(s);
          else selected.addNameSelection(s, this.informer(s.namedBy));
        }
        entry = selected;
      } else {
        const informer = new Informer(this.client, ref, { namespace, ...settings });
        this.entries.set(key, informer);
        entry = informer.start();
      }
    }
    return entry as unknown as ResourceCache<T>;
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

  /** Every informer running now, each selection's apart (tests compare each with a list of its own query). */
  informers(): Informer[] {
    return [...this.entries.values()].flatMap((e) => (e instanceof SelectedResource ? e.informers() : [e]));
  }

  /** Lists and watches per resource since the start (the `resource` is its plural). */
  informerStats(): InformerStats[] {
    return [...this.entries.values()].map((e) => ({ resource: e.resource.plural, ...e.stats }));
  }

  /** True when every informer started so far has its first list. */
  get hasSynced(): boolean {
    return [...this.entries.values()].every((e) => e.hasSynced);
  }

  /**
   * Resolves when every informer started so far (including any started while waiting) has synced, or when `signal`
   * aborts (then it rejects with the signal's reason).
   */
  async synced(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const pending = [...this.entries.values()].filter((e) => !e.hasSynced);
      if (!pending.length) return;
      await untilAborted(Promise.all(pending.map((e) => e.synced())), signal);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.entries.values()].map((e) => e.stop()));
  }
}

/** `p`, or a rejection with the signal's reason when `signal` aborts first. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
