/**
 * ClaimObjects (controller_ref_manager.go): a controller adopts orphans its selector matches and
 * releases the objects it owns that its selector no longer matches. An owner being deleted neither
 * adopts nor releases.
 */
import type { ClusterApi } from '../client.js';
import type { JsonObject } from '../schema/types.js';
import {
  controllerRef,
  isDeleting,
  keyOf,
  meta,
  nameOf,
  namespaceOf,
  newControllerRef,
  obj,
  ownerReferences,
  selectorMatcher,
  selectorMatches,
  statusCode,
  uidOf,
} from './util.js';

export interface ClaimTarget {
  /** The owned resource (`pods`, `replicasets.apps`). */
  resource: string;
  owner: JsonObject;
  ownerApiVersion: string;
  ownerKind: string;
}

export function claim(api: ClusterApi, t: ClaimTarget, candidates: JsonObject[]): JsonObject[] {
  const { owner } = t;
  const selector = obj(owner.spec).selector;
  const out: JsonObject[] = [];
  for (const o of candidates) {
    const ref = controllerRef(o);
    const matches = selectorMatches(selector, meta(o).labels);
    if (ref && ref.uid !== uidOf(owner)) continue;
    if (ref && (matches || isDeleting(owner))) {
      out.push(o);
      continue;
    }
    if (!ref && (!matches || isDeleting(owner) || isDeleting(o))) continue;
    const refs = ref
      ? ownerReferences(o).filter((r) => r.uid !== uidOf(owner))
      : [...ownerReferences(o), newControllerRef(owner, t.ownerApiVersion, t.ownerKind)];
    const m: JsonObject = { ...meta(o), ownerReferences: refs };
    if (!refs.length) delete m.ownerReferences;
    try {
      const updated = api.update(t.resource, { ...o, metadata: m }, { fieldManager: 'kube-controller-manager' });
      if (!ref) out.push(updated);
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }
  return out;
}

/**
 * What `claim` looks at: the objects of the owner's namespace that its selector matches or that it controls
 * (only those are copied out of the store).
 */
export function claimCandidates(api: ClusterApi, resource: string, owner: JsonObject): JsonObject[] {
  const uid = uidOf(owner);
  const matches = selectorMatcher(obj(owner.spec).selector);
  return api.listWhere(
    resource,
    namespaceOf(owner),
    (o) => controllerRef(o as JsonObject)?.uid === uid || matches(meta(o as JsonObject).labels),
  );
}

/** The objects of the owner's namespace it controls. */
export function controlledBy(api: ClusterApi, resource: string, owner: JsonObject): JsonObject[] {
  const uid = uidOf(owner);
  return api.listWhere(resource, namespaceOf(owner), (o) => controllerRef(o as JsonObject)?.uid === uid);
}

/** Keys of the controllers (of `resource`, in the object's namespace) that could adopt an orphan. */
export function adopterKeys(api: ClusterApi, resource: string, o: JsonObject): string[] {
  if (controllerRef(o) || isDeleting(o)) return [];
  return api
    .list(resource, { namespace: namespaceOf(o) })
    .items.filter((c) => selectorMatches(obj(c.spec).selector, meta(o).labels) && nameOf(c))
    .map(keyOf);
}
