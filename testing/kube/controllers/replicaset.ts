/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods owned by each ReplicaSet (creating from
 * the template, deleting the least valuable first, as controller.ActivePods orders them) and writes
 * status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas (minReadySeconds),
 * observedGeneration.
 */
import { jsonEqual, type JsonObject } from '../schema/types.js';
import { adopterKeys, claim, claimCandidates, controlledBy } from './claim.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import { recordEvent } from './events.js';
import type { ReconcileResult } from './queue.js';
import {
  arr,
  condition,
  isDeleting,
  isPodActive,
  isPodReady,
  keyOf,
  meta,
  msUntilAvailable,
  nameOf,
  newControllerRef,
  obj,
  ownerKeys,
  selectorMatches,
  splitKey,
  statusCode,
} from './util.js';

/** Upstream's burst limit for one sync (slowStartBatch caps at 500). */
const BURST = 500;
const COMPONENT = 'replicaset-controller';

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** < 0 when `a` should be deleted before `b` (controller.ActivePods.Less). */
export function deletionOrder(a: JsonObject, b: JsonObject): number {
  const assigned = (p: JsonObject): number => (obj(p.spec).nodeName ? 1 : 0);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: JsonObject): number => PHASE_RANK[String(obj(p.status).phase)] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: JsonObject): number => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const cost = (p: JsonObject): number =>
    Number(obj(meta(p).annotations)['controller.kubernetes.io/pod-deletion-cost'] ?? 0) || 0;
  if (cost(a) !== cost(b)) return cost(a) - cost(b);
  if (ready(a)) {
    // Ready for less time goes first.
    const since = (p: JsonObject): number => Date.parse(String(condition(p, 'Ready')?.lastTransitionTime ?? '')) || 0;
    if (since(a) !== since(b)) return since(b) - since(a);
  }
  const restarts = (p: JsonObject): number =>
    arr(obj(p.status).containerStatuses).reduce<number>((n, c) => n + Number(obj(c).restartCount ?? 0), 0);
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const created = (p: JsonObject): number => Date.parse(String(meta(p).creationTimestamp ?? '')) || 0;
  if (created(a) !== created(b)) return created(b) - created(a);
  return nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0;
}

/** A pod for `rs` from its template: generated name `<rs>-xxxxx`, template labels, controller reference. */
export function podFromTemplate(rs: JsonObject, ownerKind = 'ReplicaSet', ownerApiVersion = 'apps/v1'): JsonObject {
  const template = obj(obj(rs.spec).template);
  const tm = obj(template.metadata);
  const metadata: JsonObject = {
    generateName: `${nameOf(rs)}-`,
    namespace: meta(rs).namespace,
    ownerReferences: [newControllerRef(rs, ownerApiVersion, ownerKind)],
  };
  for (const k of ['labels', 'annotations', 'finalizers']) if (tm[k] !== undefined) metadata[k] = tm[k];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: JSON.parse(JSON.stringify(obj(template.spec))) as JsonObject,
  };
}

export class ReplicaSetController implements Reconciler {
  readonly name = 'replicaset';
  readonly watches: WatchSpec[] = [
    { resource: 'replicasets.apps', keys: (o) => [keyOf(o)] },
    {
      resource: 'pods',
      keys: (o) => [...ownerKeys(o, 'ReplicaSet'), ...adopterKeys(this.deps.api, 'replicasets.apps', o)],
    },
  ];

  constructor(private readonly deps: ControllerDeps) {}

  reconcile(key: string): ReconcileResult | void {
    const { api } = this.deps;
    const [namespace, name] = splitKey(key);
    const rs = api.tryGet('replicasets.apps', namespace, name);
    if (!rs) return;
    const spec = obj(rs.spec);
    const owned = claim(
      api,
      { resource: 'pods', owner: rs, ownerApiVersion: 'apps/v1', ownerKind: 'ReplicaSet' },
      claimCandidates(api, 'pods', rs),
    );
    const active = owned.filter(isPodActive);
    let failure: Error | undefined;
    try {
      if (!isDeleting(rs)) this.manageReplicas(rs, active, Number(spec.replicas ?? 1));
    } catch (err) {
      failure = err as Error;
    }
    const now = controlledBy(api, 'pods', rs).filter(isPodActive);
    const result = this.writeStatus(rs, now, failure);
    if (failure) throw failure; // retried with backoff, as upstream requeues a failed sync
    return result;
  }

  private manageReplicas(rs: JsonObject, active: JsonObject[], want: number): void {
    const diff = active.length - want;
    if (diff < 0) {
      for (let i = 0; i < Math.min(-diff, BURST); i++) {
        let pod: JsonObject;
        try {
          pod = this.deps.api.create('pods', podFromTemplate(rs), { fieldManager: 'kube-controller-manager' });
        } catch (err) {
          this.event(rs, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
          throw err;
        }
        this.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${nameOf(pod)}`);
      }
    } else if (diff > 0) {
      const victims = [...active].sort(deletionOrder).slice(0, Math.min(diff, BURST));
      for (const pod of victims) {
        try {
          this.deps.api.delete('pods', meta(pod).namespace as string, nameOf(pod), {
            preconditions: { uid: String(meta(pod).uid) },
          });
        } catch (err) {
          if (statusCode(err) !== 404) throw err;
          continue;
        }
        this.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${nameOf(pod)}`);
      }
    }
  }

  private writeStatus(rs: JsonObject, pods: JsonObject[], failure?: Error): ReconcileResult | void {
    const spec = obj(rs.spec);
    const minReady = Number(spec.minReadySeconds ?? 0);
    const now = this.deps.clock.now();
    const templateLabels = obj(obj(obj(spec.template).metadata).labels);
    let requeueAfterMs: number | undefined;
    let available = 0;
    for (const p of pods) {
      const wait = msUntilAvailable(p, minReady, now);
      if (wait === 0) available++;
      else if (wait !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? wait, wait);
    }
    const status: JsonObject = {
      replicas: pods.length,
      fullyLabeledReplicas: pods.filter((p) => selectorMatches({ matchLabels: templateLabels }, meta(p).labels)).length,
      readyReplicas: pods.filter(isPodReady).length,
      availableReplicas: available,
      observedGeneration: meta(rs).generation,
    };
    for (const k of ['readyReplicas', 'availableReplicas', 'fullyLabeledReplicas'] as const)
      if (status[k] === 0) delete status[k];
    const old = obj(rs.status);
    // ReplicaFailure=True while pods cannot be created; gone once a sync succeeds.
    const others = arr(old.conditions)
      .map(obj)
      .filter((c) => c.type !== 'ReplicaFailure');
    const prevFailure = arr(old.conditions)
      .map(obj)
      .find((c) => c.type === 'ReplicaFailure');
    const conditions = failure
      ? [
          ...others,
          {
            type: 'ReplicaFailure',
            status: 'True',
            lastTransitionTime: prevFailure?.lastTransitionTime ?? this.deps.clock.nowIso(),
            reason: 'FailedCreate',
            message: failure.message,
          },
        ]
      : others;
    if (conditions.length) status.conditions = conditions;
    if (!jsonEqual(old, status))
      this.deps.api.updateStatus('replicasets.apps', { ...rs, status }, { fieldManager: 'kube-controller-manager' });
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  private event(rs: JsonObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(
      this.deps.api,
      this.deps.clock,
      {
        regarding: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: rs.metadata },
        type,
        reason,
        message,
        component: COMPONENT,
      },
      this.deps.log,
    );
  }
}
