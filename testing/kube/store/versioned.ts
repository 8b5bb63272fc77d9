/**
 * The raw versioned key-value store (what etcd is to the real server): one global resourceVersion
 * counter, buckets of immutable objects, a bounded event history for watch replay and consistent
 * paginated lists, and synchronous fan-out to subscribers. It knows nothing about kinds.
 */
import { expired } from '../status-errors.js';
import type { JsonObject } from '../schema/types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  type: EventType;
  rv: number;
  bucket: string;
  key: string;
  /** The object after the change (for DELETED: its last state, carrying the deletion's RV). */
  object: JsonObject;
  /** The object before the change (MODIFIED, DELETED). */
  prev?: JsonObject;
}

export type Subscriber = (ev: StoredEvent) => void;

export interface VersionedSnapshot {
  buckets: Map<string, Map<string, JsonObject>>;
}

export class VersionedStore {
  private rv: number;
  private readonly buckets = new Map<string, Map<string, JsonObject>>();
  private history: StoredEvent[] = [];
  private compacted: number;
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  /** @param historyLimit events kept for watch replay; older resourceVersions answer 410 Expired. */
  constructor(
    private readonly historyLimit = 5000,
    startRv = 0,
  ) {
    this.rv = startRv;
    this.compacted = startRv;
  }

  /** The latest resourceVersion handed out. */
  get currentRv(): number {
    return this.rv;
  }

  /** Events at or below this resourceVersion are no longer in the history. */
  get compactedRv(): number {
    return this.compacted;
  }

  nextRv(): number {
    return ++this.rv;
  }

  get(bucket: string, key: string): JsonObject | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  /** Objects of a bucket whose key starts with `prefix`, sorted by key (etcd order). */
  list(bucket: string, prefix = ''): [string, JsonObject][] {
    const b = this.buckets.get(bucket);
    if (!b) return [];
    const out: [string, JsonObject][] = [];
    for (const entry of b) if (entry[0].startsWith(prefix)) out.push(entry);
    out.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    return out;
  }

  count(bucket: string): number {
    return this.buckets.get(bucket)?.size ?? 0;
  }

  /** Stores `obj` (whose metadata.resourceVersion must be `rv`) and notifies subscribers. */
  put(bucket: string, key: string, obj: JsonObject, rv: number): StoredEvent {
    let b = this.buckets.get(bucket);
    if (!b) {
      b = new Map();
      this.buckets.set(bucket, b);
    }
    const prev = b.get(key);
    b.set(key, obj);
    const ev: StoredEvent = prev
      ? { type: 'MODIFIED', rv, bucket, key, object: obj, prev }
      : { type: 'ADDED', rv, bucket, key, object: obj };
    this.record(ev);
    return ev;
  }

  /** Removes an object; `last` is its final state stamped with the deletion's resourceVersion. */
  remove(bucket: string, key: string, last: JsonObject, rv: number): StoredEvent | undefined {
    const b = this.buckets.get(bucket);
    const prev = b?.get(key);
    if (!b || !prev) return undefined;
    b.delete(key);
    const ev: StoredEvent = { type: 'DELETED', rv, bucket, key, object: last, prev };
    this.record(ev);
    return ev;
  }

  /** Drops a whole bucket without events (its watchers are closed by the caller). */
  dropBucket(bucket: string): void {
    this.buckets.delete(bucket);
  }

  private record(ev: StoredEvent): void {
    this.history.push(ev);
    if (this.history.length > this.historyLimit) {
      const drop = this.history.length - this.historyLimit;
      this.compacted = this.history[drop - 1]!.rv;
      this.history = this.history.slice(drop);
    }
    const subs = this.subscribers.get(ev.bucket);
    if (subs) for (const fn of [...subs]) fn(ev);
  }

  /** Throws 410 Expired when events after `rv` may be missing from the history. */
  assertNotCompacted(rv: number): void {
    if (rv < this.compacted) throw expired(`too old resource version: ${rv} (${this.compacted})`);
  }

  /** Events of a bucket with resourceVersion > rv, oldest first. */
  eventsSince(bucket: string, rv: number): StoredEvent[] {
    this.assertNotCompacted(rv);
    const out: StoredEvent[] = [];
    for (const ev of this.history) if (ev.rv > rv && ev.bucket === bucket) out.push(ev);
    return out;
  }

  /**
   * The bucket's objects as they were at resourceVersion `rv` (for continue tokens and exact-RV lists):
   * the current state with every later event undone.
   */
  listAt(bucket: string, rv: number, prefix = ''): [string, JsonObject][] {
    if (rv >= this.rv) return this.list(bucket, prefix);
    this.assertNotCompacted(rv);
    const state = new Map(this.list(bucket, prefix));
    for (let i = this.history.length - 1; i >= 0; i--) {
      const ev = this.history[i]!;
      if (ev.rv <= rv) break;
      if (ev.bucket !== bucket || !ev.key.startsWith(prefix)) continue;
      if (ev.type === 'ADDED') state.delete(ev.key);
      else state.set(ev.key, ev.prev!);
    }
    return [...state].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  }

  subscribe(bucket: string, fn: Subscriber): () => void {
    let s = this.subscribers.get(bucket);
    if (!s) {
      s = new Set();
      this.subscribers.set(bucket, s);
    }
    s.add(fn);
    return () => s!.delete(fn);
  }

  /** Test hook: forget history up to `rv` (default: everything), so older watches get 410. */
  compact(rv = this.rv): void {
    const upTo = Math.min(rv, this.rv);
    this.history = this.history.filter((ev) => ev.rv > upTo);
    this.compacted = Math.max(this.compacted, upTo);
  }

  snapshot(): VersionedSnapshot {
    const buckets = new Map<string, Map<string, JsonObject>>();
    for (const [name, b] of this.buckets) buckets.set(name, new Map(b));
    return { buckets };
  }

  /**
   * Puts the buckets back as they were. The counter keeps rising and the history is compacted, so a
   * client that re-watches from a version it saw before the restore gets 410 and re-lists.
   */
  restore(snap: VersionedSnapshot): void {
    this.buckets.clear();
    for (const [name, b] of snap.buckets) this.buckets.set(name, new Map(b));
    this.nextRv();
    this.compact(this.rv);
  }
}
