/**
 * A small informer over the in-process API: a cache of one resource kept current by a watch, re-listed
 * when the watch closes (cluster.reset/restore, closeWatches), with one callback per change.
 */
import type { ClusterApi } from '../client.js';
import type { ResourceRef } from '../registry.js';
import type { JsonObject } from '../schema/types.js';
import type { QueryOptions } from '../store/query.js';
import type { WatchHandle } from '../store/watch.js';

export type Change = 'upsert' | 'delete';

export function keyOf(o: JsonObject): string {
  const m = (o.metadata ?? {}) as JsonObject;
  return m.namespace ? `${String(m.namespace)}/${String(m.name)}` : String(m.name);
}

export class Informer {
  readonly cache = new Map<string, JsonObject>();
  private handle: WatchHandle | undefined;
  private stopped = false;

  constructor(
    private readonly api: ClusterApi,
    private readonly ref: ResourceRef,
    private readonly query: QueryOptions,
    private readonly onChange: (change: Change, obj: JsonObject) => void,
  ) {}

  start(): void {
    if (this.stopped) return;
    const list = this.api.list(this.ref, this.query);
    const seen = new Set<string>();
    for (const o of list.items) {
      const k = keyOf(o);
      seen.add(k);
      this.cache.set(k, o);
      this.onChange('upsert', o);
    }
    for (const [k, o] of [...this.cache]) {
      if (seen.has(k)) continue;
      this.cache.delete(k);
      this.onChange('delete', o);
    }
    this.handle = this.api.watch(
      this.ref,
      { ...this.query, resourceVersion: list.resourceVersion },
      (ev) => {
        if (this.stopped || ev.type === 'BOOKMARK' || ev.type === 'ERROR') return;
        const k = keyOf(ev.object);
        if (ev.type === 'DELETED') {
          this.cache.delete(k);
          this.onChange('delete', ev.object);
        } else {
          this.cache.set(k, ev.object);
          this.onChange('upsert', ev.object);
        }
      },
      // NB: a closed watch (reset, restore, compaction) re-lists on the next tick, as a reflector would.
      () => {
        if (!this.stopped) setImmediate(() => this.start());
      },
    );
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
  }

  get(namespace: string | undefined, name: string): JsonObject | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  values(): JsonObject[] {
    return [...this.cache.values()];
  }
}
