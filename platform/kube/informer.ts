/**
 * An informer: a list, then a watch from the list's resourceVersion, keeping an in-memory copy of every object
 * and telling listeners what changed. No polling: a watch that ends is re-opened from the last resourceVersion
 * seen (bookmarks keep it fresh); a 410 Gone (the history was compacted) re-lists, and the re-list's differences
 * with the cache come out as events, deletions included, so no change is lost across a gap.
 */
import type { Logger } from 'pino';
import type { KubeClient, KubeObject } from './client.js';
import { KubeApiError, isGone } from './errors.js';
import type { ResourceRef } from './resources.js';

export type InformerEventType = 'added' | 'modified' | 'deleted';
export interface InformerEvent<T> {
  type: InformerEventType;
  object: T;
  /** The cached object before a modification or deletion. */
  old?: T;
}
export type InformerListener<T> = (event: InformerEvent<T>) => void;

export interface InformerOptions {
  /** Only this namespace; absent: every namespace. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  log?: Logger;
  /** The server ends each watch after about this long; it is then re-opened. @default 300 */
  watchTimeoutSeconds?: number;
  /** Objects per list page. @default 500 */
  pageSize?: number;
  /** First back-off after a failed list or watch; doubles up to `maxBackoffMs`. @default 250 */
  backoffMs?: number;
  /** @default 30s */
  maxBackoffMs?: number;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key work queues and caches use. */
export function objectKey(o: KubeObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : String(o.metadata.name);
}

export class Informer<T extends KubeObject = KubeObject> {
  private readonly cache = new Map<string, T>();
  private readonly listeners = new Set<InformerListener<T>>();
  private resourceVersion = '';
  private abort = new AbortController();
  private running: Promise<void> | undefined;
  private syncedResolve!: () => void;
  private readonly syncedPromise = new Promise<void>((resolve) => (this.syncedResolve = resolve));
  private isSynced = false;
  /** Lists made, watches opened: for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, relistsOnGone: 0 };

  constructor(
    private readonly client: KubeClient,
    readonly resource: ResourceRef,
    private readonly opts: InformerOptions = {},
  ) {}

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /** Resolves after the first full list is in the cache and its events were delivered. */
  synced(): Promise<void> {
    return this.syncedPromise;
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  /** What it lists and watches: its namespace and selectors (tests list the same to compare). */
  get query(): Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> {
    const { namespace, labelSelector, fieldSelector } = this.opts;
    return { namespace, labelSelector, fieldSelector };
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  list(namespace?: string): T[] {
    const all = [...this.cache.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** Subscribes; objects already cached are not replayed (read `list()` for them). */
  on(listener: InformerListener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => undefined);
    this.running = undefined;
    this.abort = new AbortController();
  }

  private emit(event: InformerEvent<T>): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.opts.log?.error({ err, resource: this.resource.plural }, 'informer listener failed');
      }
    }
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    let backoff = this.opts.backoffMs ?? 250;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          needList = false;
        }
        await this.watchOnce(signal);
        backoff = this.opts.backoffMs ?? 250;
      } catch (err) {
        if (signal.aborted) return;
        if (isGone(err)) {
          this.stats.relistsOnGone++;
          needList = true;
          continue;
        }
        this.opts.log?.warn(
          { err, resource: this.resource.plural, backoffMs: backoff },
          'informer list or watch failed; retrying',
        );
        await sleep(backoff * (0.8 + Math.random() * 0.4), signal);
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 30_000);
      }
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv = '';
    do {
      if (signal.aborted) return;
      const page = await this.client.list<T>(this.resource, {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        limit: this.opts.pageSize ?? 500,
        continue: cont,
        signal,
      });
      for (const item of page.items) fresh.set(objectKey(item), withKind(item, this.resource));
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion;
    } while (cont);
    // NB: differences with the cache are the events a watch would have delivered during the gap.
    for (const [key, old] of this.cache) {
      if (!fresh.has(key)) {
        this.cache.delete(key);
        this.emit({ type: 'deleted', object: old, old });
      }
    }
    for (const [key, obj] of fresh) {
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (!old) this.emit({ type: 'added', object: obj });
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion)
        this.emit({ type: 'modified', object: obj, old });
    }
    this.resourceVersion = rv;
    if (!this.isSynced) {
      this.isSynced = true;
      this.syncedResolve();
    }
  }

  private async watchOnce(signal: AbortSignal): Promise<void> {
    this.stats.watches++;
    const query: Record<string, string> = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(Math.round((this.opts.watchTimeoutSeconds ?? 300) * (0.9 + Math.random() * 0.2))),
    };
    if (this.opts.labelSelector) query.labelSelector = this.opts.labelSelector;
    if (this.opts.fieldSelector) query.fieldSelector = this.opts.fieldSelector;
    const res = await this.client.openWatch(this.resource, query, this.opts.namespace, signal);
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line)
          this.apply(
            JSON.parse(line) as { type: string; object: T & { code?: number; reason?: string; message?: string } },
          );
      }
    }
  }

  private apply(event: { type: string; object: T & { code?: number; reason?: string; message?: string } }): void {
    const { type, object } = event;
    if (type === 'ERROR') {
      throw new KubeApiError(object.code ?? 500, object.reason ?? 'WatchError', object.message ?? 'watch error');
    }
    if (type === 'BOOKMARK') {
      this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
      return;
    }
    const obj = withKind(object, this.resource);
    const key = objectKey(obj);
    const old = this.cache.get(key);
    this.resourceVersion = obj.metadata.resourceVersion ?? this.resourceVersion;
    if (type === 'DELETED') {
      this.cache.delete(key);
      this.emit({ type: 'deleted', object: obj, old });
    } else {
      this.cache.set(key, obj);
      this.emit({ type: old ? 'modified' : 'added', object: obj, old });
    }
  }
}

/** List items come without apiVersion and kind; the cache's objects always carry them. */
function withKind<T extends KubeObject>(o: T, r: ResourceRef): T {
  if (o.kind && o.apiVersion) return o;
  return { ...o, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
