/**
 * The garbage collector over ownerReferences: a dependent whose owners are all gone is deleted
 * (background); owners that are gone are dropped from a dependent that keeps others; an owner with
 * the `orphan` finalizer has its references removed from its dependents, then the finalizer; an owner
 * with `foregroundDeletion` has its dependents deleted and loses the finalizer once no dependent that
 * blocks owner deletion remains. Watches a fixed set of resources (see `GC_RESOURCES`).
 */
import type { ClusterApi } from '../client.js';
import type { ResourceType } from '../registry.js';
import type { JsonObject } from '../schema/types.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import { arr, isDeleting, obj, meta, nameOf, namespaceOf, ownerReferences, statusCode, uidOf } from './util.js';

/** Resources the collector tracks (as owners and dependents); those not served are skipped. */
export const GC_RESOURCES = [
  'pods',
  'configmaps',
  'secrets',
  'services',
  'serviceaccounts',
  'replicasets.apps',
  'deployments.apps',
  'jobs.batch',
  'endpointslices.discovery.k8s.io',
  'endpoints',
  'poddisruptionbudgets.policy',
  'leases.coordination.k8s.io',
  'ingresses.networking.k8s.io',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
];

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';
const MANAGER = 'garbage-collector';

function finalizers(o: JsonObject): string[] {
  return arr(meta(o).finalizers).map(String);
}

function groupOf(apiVersion: unknown): string {
  const s = String(apiVersion ?? '');
  return s.includes('/') ? s.slice(0, s.indexOf('/')) : '';
}

export class GarbageCollector implements Reconciler {
  readonly name = 'garbage-collector';
  readonly watches: WatchSpec[];
  private readonly types: ResourceType[];

  constructor(private readonly deps: ControllerDeps) {
    this.types = GC_RESOURCES.flatMap((r) => {
      try {
        return [deps.api.type(r)];
      } catch {
        return [];
      }
    });
    this.watches = this.types.map((t) => ({ resource: this.ref(t), keys: (o, ev) => this.keysFor(t, o, ev) }));
  }

  private ref(t: ResourceType): string {
    return t.group ? `${t.resource}.${t.group}` : t.resource;
  }

  private key(t: ResourceType, namespace: string, name: string): string {
    return `${this.ref(t)}|${t.namespaced ? namespace : ''}|${name}`;
  }

  private typeOfRef(ref: JsonObject): ResourceType | undefined {
    return this.types.find((t) => t.kind === ref.kind && t.group === groupOf(ref.apiVersion));
  }

  /** Custom resources join the graph as their CRDs are served. */
  bind(addWatch: (w: WatchSpec) => void): void {
    addWatch({
      resource: 'customresourcedefinitions.apiextensions.k8s.io',
      keys: (crd, ev) => {
        const spec = obj(crd.spec);
        if (ev === 'DELETED') {
          const gone = this.types.findIndex((t) => t.group === spec.group && t.resource === obj(spec.names).plural);
          if (gone >= 0) this.types.splice(gone, 1);
          return [];
        }
        const ref = `${String(obj(spec.names).plural)}.${String(spec.group)}`;
        let t: ResourceType;
        try {
          t = this.deps.api.type(ref);
        } catch {
          return []; // not served yet: the Established update comes back here
        }
        if (!this.types.some((x) => x.storageKey === t.storageKey)) this.types.push(t);
        addWatch({ resource: ref, keys: (o, e) => this.keysFor(t, o, e) });
        return [];
      },
    });
  }

  private keysFor(t: ResourceType, o: JsonObject, ev: string): string[] {
    const keys: string[] = [];
    const fin = finalizers(o);
    if (ev !== 'DELETED' && (ownerReferences(o).length || fin.includes(ORPHAN) || fin.includes(FOREGROUND)))
      keys.push(this.key(t, namespaceOf(o), nameOf(o)));
    // Owners waiting in foreground deletion look again when a dependent goes or changes.
    for (const r of ownerReferences(o)) {
      const ot = this.typeOfRef(r);
      if (ot) keys.push(this.key(ot, namespaceOf(o), String(r.name)));
    }
    if (ev === 'DELETED')
      for (const [dt, d] of this.dependents(o, t)) keys.push(this.key(dt, namespaceOf(d), nameOf(d)));
    return keys;
  }

  /** Every tracked object whose ownerReferences name `owner`'s uid. */
  private dependents(owner: JsonObject, ownerType: ResourceType): [ResourceType, JsonObject][] {
    const uid = uidOf(owner);
    const out: [ResourceType, JsonObject][] = [];
    for (const t of this.types) {
      if (!t.namespaced && ownerType.namespaced) continue;
      const namespace = t.namespaced && ownerType.namespaced ? namespaceOf(owner) : undefined;
      for (const o of this.deps.api.list(this.ref(t), { namespace }).items) {
        if (ownerReferences(o).some((r) => r.uid === uid)) out.push([t, o]);
      }
    }
    return out;
  }

  reconcile(key: string): void {
    const [ref, namespace, name] = key.split('|') as [string, string, string];
    const t = this.deps.api.type(ref);
    const o = this.deps.api.tryGet(ref, t.namespaced ? namespace : undefined, name);
    if (!o) return;
    const fin = finalizers(o);
    if (isDeleting(o) && fin.includes(ORPHAN)) this.orphanDependents(t, o);
    else if (isDeleting(o) && fin.includes(FOREGROUND)) this.deleteDependents(t, o);
    else if (ownerReferences(o).length) this.checkOwners(t, o);
  }

  private orphanDependents(t: ResourceType, owner: JsonObject): void {
    const uid = uidOf(owner);
    for (const [dt, d] of this.dependents(owner, t)) {
      const refs = ownerReferences(d).filter((r) => r.uid !== uid);
      this.patchOwners(dt, d, refs);
    }
    this.dropFinalizer(t, owner, ORPHAN);
  }

  private deleteDependents(t: ResourceType, owner: JsonObject): void {
    const uid = uidOf(owner);
    let blocking = 0;
    for (const [dt, d] of this.dependents(owner, t)) {
      const ref = ownerReferences(d).find((r) => r.uid === uid)!;
      if (!isDeleting(d)) {
        // Dependents with dependents of their own go in foreground too, so the whole tree is gone first.
        const policy = this.dependents(d, dt).length ? 'Foreground' : 'Background';
        if (this.delete(dt, d, policy) === 'gone') continue;
      }
      if (ref.blockOwnerDeletion === true) blocking++;
    }
    if (blocking === 0) this.dropFinalizer(t, owner, FOREGROUND);
  }

  /** Deletes `o` when all its owners are gone; drops references to owners that are gone otherwise. */
  private checkOwners(t: ResourceType, o: JsonObject): void {
    const refs = ownerReferences(o);
    const alive = refs.filter((r) => {
      const ot = this.typeOfRef(r);
      if (!ot) return true; // NB: an owner of a kind we do not track is assumed to exist
      if (ot.namespaced && !t.namespaced) return true; // unresolvable: such a dependent is never collected (as since 1.20)
      const owner = this.deps.api.tryGet(this.ref(ot), ot.namespaced ? namespaceOf(o) : undefined, String(r.name));
      return owner !== undefined && uidOf(owner) === r.uid;
    });
    if (alive.length === refs.length) return;
    if (alive.length === 0) {
      if (!isDeleting(o)) this.delete(t, o, 'Background');
      return;
    }
    this.patchOwners(t, o, alive);
  }

  private delete(t: ResourceType, o: JsonObject, propagationPolicy: string): 'gone' | 'deleting' {
    try {
      const r = this.deps.api.delete(this.ref(t), t.namespaced ? namespaceOf(o) : undefined, nameOf(o), {
        propagationPolicy,
        preconditions: { uid: uidOf(o) },
      });
      return r.deleted ? 'gone' : 'deleting';
    } catch (err) {
      if (statusCode(err) === 404) return 'gone';
      throw err;
    }
  }

  private patchOwners(t: ResourceType, o: JsonObject, refs: JsonObject[]): void {
    const api: ClusterApi = this.deps.api;
    const m: JsonObject = { ...meta(o), ownerReferences: refs };
    if (!refs.length) delete m.ownerReferences;
    api.update(this.ref(t), { ...o, metadata: m }, { fieldManager: MANAGER });
  }

  private dropFinalizer(t: ResourceType, o: JsonObject, finalizer: string): void {
    const rest = finalizers(o).filter((f) => f !== finalizer);
    const m: JsonObject = { ...meta(o), finalizers: rest };
    if (!rest.length) delete m.finalizers;
    this.deps.api.update(this.ref(t), { ...o, metadata: m }, { fieldManager: MANAGER });
  }
}
