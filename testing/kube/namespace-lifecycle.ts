/**
 * Namespace lifecycle: the NamespaceLifecycle admission plugin (no objects in missing or terminating
 * namespaces) and, unless disabled, what the namespace controller does on deletion — delete the contents,
 * wait for their finalizers, then drop the `kubernetes` finalizer so the namespace goes away.
 */
import type { Registry, ResourceType } from './registry.js';
import { isObject, type JsonObject } from './schema/types.js';
import { forbidden, notFound } from './status-errors.js';
import { deleteObject } from './store/delete.js';
import { metaOf, type ObjectStore } from './store/objects.js';
import type { StoredEvent } from './store/versioned.js';

const NS_BUCKET = 'namespaces.';
const IMMORTAL = new Set(['default', 'kube-system', 'kube-public']);

export class NamespaceLifecycle {
  private readonly unsubscribers: (() => void)[] = [];
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: Registry,
    runController: boolean,
  ) {
    store.admission.push((type, verb, obj) => this.admit(type, verb, obj));
    if (runController) this.unsubscribers.push(store.versioned.subscribe(NS_BUCKET, (ev) => this.onNamespace(ev)));
  }

  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribers) u();
  }

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private admit(type: ResourceType, verb: string, obj: JsonObject): void {
    if (!type.namespaced || verb !== 'create') return;
    const ns = String(metaOf(obj).namespace ?? '');
    const stored = this.store.versioned.get(NS_BUCKET, ns);
    if (!stored) {
      if (IMMORTAL.has(ns)) return;
      throw notFound({ group: '', resource: 'namespaces' }, ns);
    }
    // Events may still be written while a namespace terminates (as upstream allows).
    if (metaOf(stored).deletionTimestamp && !(type.resource === 'events')) {
      const why = `unable to create new content in namespace ${ns} because it is being terminated`;
      throw forbidden({ group: type.group, resource: type.resource }, String(metaOf(obj).name ?? ''), why, [
        { reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' },
      ]);
    }
  }

  private onNamespace(ev: StoredEvent): void {
    if (ev.type === 'DELETED' || !metaOf(ev.object).deletionTimestamp) return;
    this.schedule(String(metaOf(ev.object).name));
  }

  private schedule(name: string): void {
    const p = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.finalize(name));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private finalize(name: string): void {
    if (this.stopped) return;
    const ns = this.store.versioned.get(NS_BUCKET, name);
    if (!ns || !metaOf(ns).deletionTimestamp) return;
    let remaining = 0;
    const seen = new Set<string>();
    for (const type of this.registry.all()) {
      if (!type.namespaced || seen.has(type.storageKey)) continue;
      seen.add(type.storageKey);
      for (const [, o] of this.store.versioned.list(type.storageKey, `${name}/`)) {
        remaining++;
        const m = metaOf(o);
        if (m.deletionTimestamp) {
          this.watchUntilGone(type.storageKey, name);
          continue;
        }
        const r = deleteObject(this.store, type, name, String(m.name), { propagationPolicy: 'Background' });
        if (r.deleted) remaining--;
        else this.watchUntilGone(type.storageKey, name);
      }
    }
    if (remaining > 0) return;
    const nsType = this.registry.lookup('', 'v1', 'namespaces')!;
    const next = JSON.parse(JSON.stringify(ns)) as JsonObject;
    const spec = isObject(next.spec) ? next.spec : {};
    spec.finalizers = (Array.isArray(spec.finalizers) ? spec.finalizers : []).filter((f) => f !== 'kubernetes');
    if ((spec.finalizers as unknown[]).length === 0) delete spec.finalizers;
    next.spec = spec;
    this.store.commitUpdate(nsType, ns, next);
  }

  private readonly waiting = new Set<string>();

  /** Re-runs finalization when a lingering object in the namespace is finally deleted. */
  private watchUntilGone(bucket: string, ns: string): void {
    const id = `${bucket}|${ns}`;
    if (this.waiting.has(id)) return;
    this.waiting.add(id);
    const unsub = this.store.versioned.subscribe(bucket, (ev) => {
      if (ev.type !== 'DELETED' || !ev.key.startsWith(`${ns}/`)) return;
      unsub();
      this.waiting.delete(id);
      this.schedule(ns);
    });
    this.unsubscribers.push(unsub);
  }
}
