/**
 * The in-process API (`cluster.store`): the same semantics as HTTP — validation, generation,
 * resourceVersions, watch events — without a socket, for simulated controllers and test set-up.
 * Objects go in and come out as copies, so callers can never alter what is stored.
 */
import type { Registry, ResourceRef, ResourceType } from './registry.js';
import { isObject, type JsonObject } from './schema/types.js';
import { applyPatch } from './patch/index.js';
import { decodeBody } from './store/decode.js';
import { deleteObject, type DeleteOptions, type DeleteResult } from './store/delete.js';
import { metaOf, type ListOptions, type ListResult, type ObjectStore, type WriteOptions } from './store/objects.js';
import { startWatch, type WatchEvent, type WatchHandle, type WatchOptions, type WatchRegistry } from './store/watch.js';

const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function namespaceOf(obj: unknown): string | undefined {
  return isObject(obj) && isObject(obj.metadata) && typeof obj.metadata.namespace === 'string'
    ? obj.metadata.namespace
    : undefined;
}

function nameOf(obj: unknown): string {
  return isObject(obj) && isObject(obj.metadata) ? String(obj.metadata.name ?? '') : '';
}

export class ClusterApi {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: Registry,
    private readonly watches: WatchRegistry,
  ) {}

  /** The served type for `deployments.apps`, `policies.steward.dev`, `{group, version, resource}`... */
  type(ref: ResourceRef): ResourceType {
    return this.registry.resolve(ref);
  }

  get(ref: ResourceRef, namespace: string | undefined, name: string): JsonObject {
    return copy(this.store.get(this.type(ref), namespace, name));
  }

  /** Like `get`, but undefined instead of a 404. */
  tryGet(ref: ResourceRef, namespace: string | undefined, name: string): JsonObject | undefined {
    const t = this.type(ref);
    const o = this.store.getStored(t, namespace, name);
    return o ? copy(this.store.fromStored(t, o)) : undefined;
  }

  list(ref: ResourceRef, opts: ListOptions = {}): ListResult {
    return copy(this.store.list(this.type(ref), opts));
  }

  /**
   * The objects of `namespace` that `keep` accepts, as copies. `keep` sees the stored object read-only and is
   * called for every object, but only those it keeps are converted and copied: the simulated controllers ask
   * "pods my selector matches or I own" on every sync, and copying a whole namespace each time made a few
   * hundred Deployments quadratic.
   */
  listWhere(ref: ResourceRef, namespace: string, keep: (stored: Readonly<JsonObject>) => boolean): JsonObject[] {
    const t = this.type(ref);
    const out: JsonObject[] = [];
    for (const [, o] of this.store.versioned.list(t.storageKey, t.namespaced ? `${namespace}/` : '')) {
      if (keep(o)) out.push(copy(this.store.fromStored(t, o)));
    }
    return out;
  }

  /** Creates `obj` in its `metadata.namespace`. Unknown fields are rejected (fieldValidation Strict). */
  create(ref: ResourceRef, obj: JsonObject, opts: WriteOptions = {}): JsonObject {
    return copy(
      this.store.create(this.type(ref), namespaceOf(obj), copy(obj), { fieldManager: 'steward-test', ...opts }).object,
    );
  }

  /** Replaces the object (optimistic concurrency on metadata.resourceVersion). */
  update(ref: ResourceRef, obj: JsonObject, opts: WriteOptions = {}): JsonObject {
    return copy(
      this.store.update(this.type(ref), namespaceOf(obj), nameOf(obj), copy(obj), {
        fieldManager: 'steward-test',
        ...opts,
      }).object,
    );
  }

  /** Replaces the status only (the /status subresource). */
  updateStatus(ref: ResourceRef, obj: JsonObject, opts: WriteOptions = {}): JsonObject {
    return copy(
      this.store.update(this.type(ref), namespaceOf(obj), nameOf(obj), copy(obj), {
        fieldManager: 'steward-test',
        ...opts,
        subresource: 'status',
      }).object,
    );
  }

  /** A JSON merge patch (or any patch type by content type) on the object or its status. */
  patch(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts: { patchType?: string; subresource?: 'status'; fieldManager?: string } = {},
  ): JsonObject {
    const t = this.type(ref);
    const current = copy(this.store.get(t, namespace, name));
    const r = applyPatch({
      patchType: opts.patchType ?? 'application/merge-patch+json',
      current,
      patch: typeof patch === 'string' ? patch : JSON.stringify(patch),
      kind: { group: t.group, version: t.version, kind: t.kind, builtin: t.builtin },
      schema: t.builtin ? undefined : t.schema,
      fieldManager: opts.fieldManager ?? 'steward-test',
      subresource: opts.subresource,
      statusSubresource: t.subresources.status,
      now: () => new Date(this.store.clock.now()),
    });
    const { obj } = decodeBody(t, r.object, 'Strict', 'patch');
    const next = this.store.prepareUpdate(t, current, obj, opts.subresource);
    metaOf(next).managedFields = metaOf(obj).managedFields;
    for (const a of this.store.admission) a(t, 'update', next);
    return copy(
      this.store.commitUpdate(t, current, next, { subresource: opts.subresource, keepManagedFields: true }).object,
    );
  }

  delete(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
    return copy(deleteObject(this.store, this.type(ref), namespace, name, opts));
  }

  /**
   * Watches like an HTTP watch. Events arrive in order on a microtask after the write that caused them,
   * so a handler that writes never runs inside another write's notification.
   */
  watch(
    ref: ResourceRef,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent) => void,
    onClose: () => void = () => {},
  ): WatchHandle {
    const queue: (WatchEvent | 'close')[] = [];
    let scheduled = false;
    const flush = (): void => {
      scheduled = false;
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        if (item === 'close') onClose();
        else onEvent(item);
      }
    };
    const push = (item: WatchEvent | 'close'): void => {
      queue.push(item);
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
    };
    return startWatch(
      this.store,
      this.watches,
      this.type(ref),
      opts,
      (ev) => push(copy(ev)),
      () => push('close'),
    );
  }

  /** The latest resourceVersion handed out. */
  get resourceVersion(): string {
    return String(this.store.versioned.currentRv);
  }
}
