/**
 * The cache of a selected resource (`Selection`): the union of one informer per label selector and one per named
 * object, the latter started and stopped as the objects naming them come, change and go. What the controllers
 * see is one resource cache: `get`, `list` and events over all of them.
 */
import type { Logger } from 'pino';
import type { KubeClient, KubeObject } from '../../platform/kube/client.js';
import {
  Informer,
  objectKey,
  type InformerEvent,
  type InformerListener,
  type InformerOptions,
} from '../../platform/kube/informer.js';
import type { ResourceRef } from '../../platform/kube/resources.js';
import type { LabelSelection, NameSelection, ResourceCache } from './types.js';

export type InformerCounts = Informer['stats'];

/** How the selected informers are made (the cache's own settings). */
export interface SelectedOptions {
  /** Only this namespace; absent: every namespace. */
  namespace?: string;
  log?: Logger;
  backoffMs?: number;
  maxBackoffMs?: number;
}

interface Named<T extends KubeObject> {
  informer: Informer<T>;
  /** Objects naming it. */
  refs: number;
}

export class SelectedResource<T extends KubeObject = KubeObject> implements ResourceCache<T> {
  private readonly labelled = new Map<string, Informer<T>>();
  private readonly named = new Map<string, Named<T>>();
  private readonly listeners = new Set<InformerListener<T>>();
  /** Counts of the named informers stopped so far, so that the totals never go down (they are counters). */
  private readonly retired: InformerCounts = { lists: 0, watches: 0, relistsOnGone: 0 };
  private readonly untrack: (() => void)[] = [];
  /** Resolved (and replaced) on every release. */
  private released = signal();
  /** Named informers released and still stopping. */
  private readonly stopping = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly client: KubeClient,
    readonly resource: ResourceRef,
    private readonly opts: SelectedOptions,
  ) {}

  /** Holds the objects with these labels. */
  addLabelSelection(s: LabelSelection): void {
    if (this.labelled.has(s.labelSelector)) return;
    this.labelled.set(s.labelSelector, this.start({ namespace: this.opts.namespace, labelSelector: s.labelSelector }));
  }

  /** Holds the objects that the objects of `by` name; `by` is the cache of `s.namedBy`. */
  addNameSelection(s: NameSelection, by: ResourceCache): void {
    const held = new Map<string, string[]>();
    const track = (obj: KubeObject | undefined, key: string) => {
      const before = held.get(key) ?? [];
      const after = obj ? this.namesOf(s, obj) : [];
      for (const k of after) if (!before.includes(k)) this.acquire(k);
      for (const k of before) if (!after.includes(k)) this.release(k);
      if (after.length) held.set(key, after);
      else held.delete(key);
    };
    this.untrack.push(by.on((e) => track(e.type === 'deleted' ? undefined : e.object, objectKey(e.object))));
    for (const obj of by.list()) track(obj, objectKey(obj));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    const ns = this.resource.namespaced ? namespace : undefined;
    const hit = this.named.get(ns ? `${ns}/${name}` : name)?.informer.get(ns, name);
    if (hit) return hit;
    for (const i of this.labelled.values()) {
      const o = i.get(ns, name);
      if (o) return o;
    }
    return undefined;
  }

  list(namespace?: string): T[] {
    const out = new Map<string, T>();
    for (const i of this.informers()) for (const o of i.list(namespace)) out.set(objectKey(o), o);
    return [...out.values()];
  }

  on(listener: InformerListener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced);
  }

  /** Resolves when every informer, those started while waiting included, has its first list. */
  async synced(): Promise<void> {
    for (;;) {
      const pending = this.informers().filter((i) => !i.hasSynced);
      if (!pending.length) return;
      // NB: an informer released before its first list never syncs: a release wakes the wait to look again.
      await Promise.race([Promise.all(pending.map((i) => i.synced())), this.released.promise]);
    }
  }

  /** Lists and watches of its informers, stopped ones included. */
  get stats(): InformerCounts {
    const total = { ...this.retired };
    for (const i of this.informers()) {
      total.lists += i.stats.lists;
      total.watches += i.stats.watches;
      total.relistsOnGone += i.stats.relistsOnGone;
    }
    return total;
  }

  /** The informers running now: one per label selector, one per named object. */
  informers(): Informer<T>[] {
    return [...this.labelled.values(), ...[...this.named.values()].map((n) => n.informer)];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const u of this.untrack.splice(0)) u();
    await Promise.all([...this.informers().map((i) => i.stop()), ...this.stopping]);
  }

  private namesOf(s: NameSelection, obj: KubeObject): string[] {
    const ns = this.resource.namespaced ? obj.metadata.namespace : undefined;
    try {
      return [...new Set(s.names(obj))].map((name) => (ns ? `${ns}/${name}` : name));
    } catch (err) {
      this.opts.log?.error({ err, resource: this.resource.plural, by: objectKey(obj) }, 'selection names failed');
      return [];
    }
  }

  private acquire(key: string): void {
    const n = this.named.get(key);
    if (n) {
      n.refs++;
      return;
    }
    if (this.stopped) return;
    const slash = key.indexOf('/');
    const namespace = slash < 0 ? undefined : key.slice(0, slash);
    const name = key.slice(slash + 1);
    this.named.set(key, { informer: this.start({ namespace, fieldSelector: `metadata.name=${name}` }), refs: 1 });
  }

  /**
   * NB: the object leaves the cache without an event: it was not deleted, only no longer named, and what named it
   * changed (so its own controller reconciles it anyway).
   */
  private release(key: string): void {
    const n = this.named.get(key);
    if (!n || --n.refs > 0) return;
    this.named.delete(key);
    this.retired.lists += n.informer.stats.lists;
    this.retired.watches += n.informer.stats.watches;
    this.retired.relistsOnGone += n.informer.stats.relistsOnGone;
    const stopping = n.informer.stop().finally(() => this.stopping.delete(stopping));
    this.stopping.add(stopping);
    this.released.resolve();
    this.released = signal();
  }

  private start(query: Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>): Informer<T> {
    const informer = new Informer<T>(this.client, this.resource, {
      ...query,
      log: this.opts.log,
      backoffMs: this.opts.backoffMs,
      maxBackoffMs: this.opts.maxBackoffMs,
    });
    informer.on((e) => this.forward(informer, e));
    return informer.start();
  }

  /** An object held by two informers (labelled and named) leaves the union only when neither holds it. */
  private forward(from: Informer<T>, e: InformerEvent<T>): void {
    let event = e;
    if (e.type === 'deleted') {
      const { namespace, name } = e.object.metadata;
      const still = this.informers().find((i) => i !== from && i.get(namespace, name!));
      if (still) event = { type: 'modified', object: still.get(namespace, name!)!, old: e.old };
    }
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.opts.log?.error({ err, resource: this.resource.plural }, 'informer listener failed');
      }
    }
  }
}

/** A promise and its resolve. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
