/**
 * Watches over the object store: initial ADDED events or replay from a resourceVersion, filtering with
 * selector enter/leave transitions (leaving turns into DELETED, entering into ADDED, as the watch cache
 * does), BOOKMARK events, and 410 Expired for compacted versions. Transport-free: the HTTP layer and
 * the in-process API both consume `WatchEvent`s.
 */
import type { ResourceType } from '../registry.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { ApiError, badRequest, timeoutError } from '../status-errors.js';
import type { ObjectStore } from './objects.js';
import { compileQuery, type QueryOptions } from './query.js';
import type { StoredEvent } from './versioned.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: JsonObject;
}

export interface WatchOptions extends QueryOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /** How often a BOOKMARK is sent when bookmarks are allowed. @default 60s (the real server: ~1 min) */
  bookmarkIntervalMs?: number;
}

export interface WatchHandle {
  stop(): void;
  /** Sends a BOOKMARK now (when allowed): before a timeout closes the stream, as the real server does. */
  bookmark(): void;
}

/** Every open watch, so that CRD deletion and snapshot restore can end them. */
export class WatchRegistry {
  private readonly open = new Map<WatchHandle, string>();

  add(h: WatchHandle, storageKey: string): void {
    this.open.set(h, storageKey);
  }

  remove(h: WatchHandle): void {
    this.open.delete(h);
  }

  /** Stops every watch on a storage key (or all), calling their `onClose`. */
  closeAll(storageKey?: string): void {
    for (const [h, key] of [...this.open]) if (storageKey === undefined || key === storageKey) h.stop();
  }

  get size(): number {
    return this.open.size;
  }
}

function bookmarkObject(type: ResourceType, rv: number, initialEventsEnd = false): JsonObject {
  const metadata: JsonObject = { resourceVersion: String(rv) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { kind: type.kind, apiVersion: type.group ? `${type.group}/${type.version}` : type.version, metadata };
}

function errorEvent(err: ApiError): WatchEvent {
  return { type: 'ERROR', object: err.status as unknown as JsonObject };
}

function withRv(o: JsonObject, rv: number): JsonObject {
  const meta = isObject(o.metadata) ? o.metadata : {};
  return { ...o, metadata: { ...meta, resourceVersion: String(rv) } };
}

/**
 * Starts a watch; `emit` receives events synchronously, `onClose` once when the watch ends (stopped,
 * expired, or its resource went away). Selector and namespace errors throw before anything is emitted.
 */
export function startWatch(
  store: ObjectStore,
  registry: WatchRegistry,
  type: ResourceType,
  opts: WatchOptions,
  emit: (ev: WatchEvent) => void,
  onClose: () => void,
): WatchHandle {
  store.checkVerb(type, 'watch');
  const { predicate } = compileQuery(type, opts);
  const versioned = store.versioned;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe = (): void => {};
  const handle: WatchHandle = {
    stop() {
      if (closed) return;
      closed = true;
      unsubscribe();
      if (timer) clearInterval(timer);
      registry.remove(handle);
      onClose();
    },
    bookmark() {
      if (!closed && opts.allowWatchBookmarks)
        emit({ type: 'BOOKMARK', object: bookmarkObject(type, versioned.currentRv) });
    },
  };

  const send = (ev: StoredEvent): void => {
    if (closed) return;
    const now = predicate(ev.object);
    const before = ev.prev !== undefined && predicate(ev.prev);
    let out: WatchEvent | undefined;
    if (ev.type === 'ADDED') out = now ? { type: 'ADDED', object: ev.object } : undefined;
    else if (ev.type === 'DELETED') out = now || before ? { type: 'DELETED', object: ev.object } : undefined;
    else if (now && before) out = { type: 'MODIFIED', object: ev.object };
    else if (now) out = { type: 'ADDED', object: ev.object };
    else if (before) out = { type: 'DELETED', object: withRv(ev.prev!, ev.rv) };
    if (out) emit({ type: out.type, object: store.fromStored(type, out.object) });
  };

  const rvParam = opts.resourceVersion ?? '';
  const startRv = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
  registry.add(handle, type.storageKey);
  try {
    if (startRv === undefined) {
      // Start at "most recent" with the current state as ADDED events.
      const prefix = type.namespaced && opts.namespace ? `${opts.namespace}/` : '';
      for (const [, o] of versioned.list(type.storageKey, prefix))
        if (predicate(o)) emit({ type: 'ADDED', object: store.fromStored(type, o) });
      if (opts.sendInitialEvents && opts.allowWatchBookmarks)
        emit({ type: 'BOOKMARK', object: bookmarkObject(type, versioned.currentRv, true) });
    } else {
      if (!Number.isInteger(startRv) || startRv < 0) throw badRequest(`invalid resource version: ${rvParam}`);
      if (startRv > versioned.currentRv) {
        throw timeoutError(`Too large resource version: ${startRv}, current: ${versioned.currentRv}`, 1);
      }
      for (const ev of versioned.eventsSince(type.storageKey, startRv)) {
        if (type.namespaced && opts.namespace && !ev.key.startsWith(`${opts.namespace}/`)) continue;
        send(ev);
      }
    }
  } catch (e) {
    if (e instanceof ApiError) {
      emit(errorEvent(e));
      handle.stop();
      return handle;
    }
    throw e;
  }
  unsubscribe = versioned.subscribe(type.storageKey, send);
  if (opts.allowWatchBookmarks) {
    timer = setInterval(() => handle.bookmark(), opts.bookmarkIntervalMs ?? 60_000);
    timer.unref();
  }
  return handle;
}
