/**
 * What the apiextensions controllers do, in process: serve a CRD's versions as soon as it is stored
 * (synchronously, so the next request finds them), refuse new instances while it terminates, delete its
 * instances when it is deleted (honouring their finalizers), and then let it go.
 */
import type { Registry, ResourceType } from '../registry.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { ApiError } from '../status-errors.js';
import { CRD_CLEANUP_FINALIZER, setCondition } from '../kinds/index.js';
import { deleteObject } from '../store/delete.js';
import { metaOf, type ObjectStore } from '../store/objects.js';
import type { WatchRegistry } from '../store/watch.js';
import type { StoredEvent } from '../store/versioned.js';
import { crdResourceTypes } from './resource-type.js';

export const CRD_BUCKET = 'customresourcedefinitions.apiextensions.k8s.io';

export class CrdLifecycle {
  private readonly cleanupSubs = new Map<string, () => void>();
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: Registry,
    private readonly watches: WatchRegistry,
  ) {
    this.unsubscribe = store.versioned.subscribe(CRD_BUCKET, (ev) => this.onCrdEvent(ev));
    store.admission.push((type, verb) => this.refuseWhileTerminating(type, verb));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    for (const u of this.cleanupSubs.values()) u();
    this.cleanupSubs.clear();
  }

  /** Resolves when no cleanup is in flight (tests await it after deleting a CRD). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Re-registers every stored CRD (after a snapshot restore). */
  resync(): void {
    for (const t of this.registry.all()) if (t.crdName) this.registry.removeCrd(t.crdName);
    for (const [, crd] of this.store.versioned.list(CRD_BUCKET)) this.serve(crd);
  }

  private serve(crd: JsonObject): void {
    const name = String(metaOf(crd).name);
    this.registry.removeCrd(name);
    for (const t of crdResourceTypes(crd)) this.registry.add(t);
  }

  private onCrdEvent(ev: StoredEvent): void {
    const crd = ev.object;
    const name = String(metaOf(crd).name);
    if (ev.type === 'DELETED') {
      const types = this.registry.all().filter((t) => t.crdName === name);
      this.registry.removeCrd(name);
      for (const key of new Set(types.map((t) => t.storageKey))) {
        this.watches.closeAll(key);
        this.store.versioned.dropBucket(key);
      }
      this.cleanupSubs.get(name)?.();
      this.cleanupSubs.delete(name);
      return;
    }
    this.serve(crd);
    if (metaOf(crd).deletionTimestamp) this.schedule(name);
  }

  private refuseWhileTerminating(type: ResourceType, verb: string): void {
    if (verb !== 'create' || !type.crdName) return;
    const crd = this.store.versioned.get(CRD_BUCKET, type.crdName);
    if (crd && metaOf(crd).deletionTimestamp) {
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'create not allowed while custom resource definition is terminating',
        reason: 'MethodNotAllowed',
        details: { group: type.group, kind: type.resource },
        code: 405,
      });
    }
  }

  /** Cleanup runs after the current write finishes (never inside a store notification). */
  private schedule(name: string): void {
    const p = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.cleanup(name));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private cleanup(name: string): void {
    if (this.stopped) return;
    const crd = this.store.versioned.get(CRD_BUCKET, name);
    if (!crd || !metaOf(crd).deletionTimestamp) return;
    const finalizers = Array.isArray(metaOf(crd).finalizers) ? (metaOf(crd).finalizers as string[]) : [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) return;
    const types = this.registry.all().filter((t) => t.crdName === name);
    const type = types.find((t) => t.version === t.preferredVersion) ?? types[0];
    let remaining = 0;
    if (type) {
      if (!this.cleanupSubs.has(name)) {
        this.cleanupSubs.set(
          name,
          this.store.versioned.subscribe(type.storageKey, (ev) => {
            if (ev.type === 'DELETED') this.schedule(name);
          }),
        );
      }
      for (const [, o] of this.store.versioned.list(type.storageKey)) {
        const m = metaOf(o);
        if (m.deletionTimestamp) {
          remaining++;
          continue;
        }
        const r = deleteObject(this.store, type, m.namespace as string | undefined, String(m.name));
        if (!r.deleted) remaining++;
      }
    }
    const crdType = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const next = JSON.parse(JSON.stringify(crd)) as JsonObject;
    const status = isObject(next.status) ? next.status : {};
    if (remaining > 0) {
      setCondition(
        status,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        },
        this.store.clock.nowIso(),
      );
      next.status = status;
      this.store.commitUpdate(crdType, crd, next);
      return;
    }
    setCondition(
      status,
      { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
      this.store.clock.nowIso(),
    );
    next.status = status;
    metaOf(next).finalizers = finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER);
    this.store.commitUpdate(crdType, crd, next);
  }
}
