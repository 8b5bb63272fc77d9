/**
 * The Deployment controller: one ReplicaSet per pod template (named `<deployment>-<pod-template-hash>`),
 * revisions, RollingUpdate (maxSurge/maxUnavailable) and Recreate, scaling, `spec.paused`,
 * revisionHistoryLimit, and status with Available/Progressing conditions that `kubectl rollout status`
 * reads. One step per reconcile: every write brings a watch event and the next step.
 */
import { jsonEqual, type JsonObject } from '../schema/types.js';
import { adopterKeys, claim, claimCandidates, controlledBy } from './claim.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import { calculateStatus, isComplete, rolloutStatus } from './deployment-status.js';
import {
  activeOrLatest,
  fenceposts,
  HASH_LABEL,
  isRollingUpdate,
  isSaturated,
  isScalingEvent,
  newRSReplicas,
  podTemplateHash,
  proportionalSizes,
  replicasAnnotations,
  replicasOf,
  REVISION,
  REVISION_HISTORY,
  revisionAnnotations,
  revisionOf,
  sameTemplate,
  statusCount,
  sum,
} from './deployment-util.js';
import { recordEvent } from './events.js';
import type { ReconcileResult } from './queue.js';
import {
  isControlledBy,
  isDeleting,
  keyOf,
  meta,
  nameOf,
  newControllerRef,
  obj,
  ownerKeys,
  splitKey,
  statusCode,
} from './util.js';

const COMPONENT = 'deployment-controller';
const MANAGER = 'kube-controller-manager';

export class DeploymentController implements Reconciler {
  readonly name = 'deployment';
  readonly watches: WatchSpec[] = [
    { resource: 'deployments.apps', keys: (o) => [keyOf(o)] },
    {
      resource: 'replicasets.apps',
      keys: (o) => [...ownerKeys(o, 'Deployment'), ...adopterKeys(this.deps.api, 'deployments.apps', o)],
    },
  ];

  constructor(private readonly deps: ControllerDeps) {}

  reconcile(key: string): ReconcileResult | void {
    const [namespace, name] = splitKey(key);
    let d = this.deps.api.tryGet('deployments.apps', namespace, name);
    if (!d || isDeleting(d)) return;
    const candidates = claimCandidates(this.deps.api, 'replicasets.apps', d);
    const owned = claim(
      this.deps.api,
      { resource: 'replicasets.apps', owner: d, ownerApiVersion: 'apps/v1', ownerKind: 'Deployment' },
      candidates,
    );
    let newRS = owned.find((rs) => sameTemplate(obj(rs.spec).template, obj(d!.spec).template));
    const old = owned.filter((rs) => rs !== newRS);
    const paused = obj(d.spec).paused === true;
    let created = false;
    if (newRS) ({ d, newRS } = this.syncRevision(d, newRS, old));

    if (paused || isScalingEvent(d, newRS ? [newRS, ...old] : old)) {
      // sync(): scaling only, no rollout step.
      this.scaleDeployment(d, newRS, old);
    } else {
      if (
        !newRS &&
        (isRollingUpdate(d) || old.every((rs) => replicasOf(rs) === 0 && statusCount(rs, 'replicas') === 0))
      ) {
        newRS = this.createNewRS(d, owned, old);
        if (!newRS) return; // a hash collision: the collision count moved, the status write brings us back
        created = true;
        ({ d, newRS } = this.syncRevision(d, newRS, old));
      }
      if (isRollingUpdate(d)) this.rollRolling(d, newRS ? [newRS, ...old] : old, newRS, old);
      else this.rollRecreate(d, newRS, old);
    }
    const fresh = controlledBy(this.deps.api, 'replicasets.apps', d);
    const freshNew = newRS && fresh.find((rs) => meta(rs).uid === meta(newRS!).uid);
    const freshOld = fresh.filter((rs) => rs !== freshNew);
    if (paused || (freshNew && isComplete(d, calculateStatus(d, fresh, freshNew, this.deps.clock.nowIso()))))
      this.cleanup(d, freshOld);
    return this.writeStatus(d, fresh, freshNew, created);
  }

  /** The new ReplicaSet, or undefined after a name collision (collisionCount bumped for the next try). */
  private createNewRS(d: JsonObject, all: JsonObject[], old: JsonObject[]): JsonObject | undefined {
    const { api } = this.deps;
    const collisionCount = obj(d.status).collisionCount as number | undefined;
    const template = JSON.parse(JSON.stringify(obj(d.spec).template)) as JsonObject;
    const hash = podTemplateHash(template, collisionCount);
    const tm = obj(template.metadata);
    tm.labels = { ...obj(tm.labels), [HASH_LABEL]: hash };
    template.metadata = tm;
    const selector = JSON.parse(JSON.stringify(obj(obj(d.spec).selector))) as JsonObject;
    selector.matchLabels = { ...obj(selector.matchLabels), [HASH_LABEL]: hash };
    const revision = Math.max(0, ...old.map(revisionOf)) + 1;
    const rs: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${nameOf(d)}-${hash}`,
        namespace: meta(d).namespace,
        labels: { ...obj(tm.labels) },
        annotations: replicasAnnotations(d, revisionAnnotations(d, revision)),
        ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
      },
      spec: { replicas: 0, minReadySeconds: obj(d.spec).minReadySeconds ?? 0, selector, template },
    };
    (rs.spec as JsonObject).replicas = newRSReplicas(d, all, undefined);
    try {
      const created = api.create('replicasets.apps', rs, { fieldManager: MANAGER });
      if (replicasOf(created) > 0) this.scaledEvent(d, created, 0, replicasOf(created));
      return created;
    } catch (err) {
      if (statusCode(err) !== 409) throw err;
      const existing = api.tryGet('replicasets.apps', String(meta(d).namespace), `${nameOf(d)}-${hash}`);
      if (existing && isControlledBy(existing, d) && sameTemplate(obj(existing.spec).template, obj(d.spec).template))
        return existing;
      const status = { ...obj(d.status), collisionCount: (collisionCount ?? 0) + 1 };
      api.updateStatus('deployments.apps', { ...d, status }, { fieldManager: MANAGER });
      return undefined;
    }
  }

  /** The new ReplicaSet takes revision max(old)+1 (a rollback moves an old one to the front); the Deployment mirrors it. */
  private syncRevision(d: JsonObject, newRS: JsonObject, old: JsonObject[]): { d: JsonObject; newRS: JsonObject } {
    const { api } = this.deps;
    const maxOld = Math.max(0, ...old.map(revisionOf));
    const current = revisionOf(newRS);
    const revision = current > maxOld ? current : maxOld + 1;
    const annotations = revisionAnnotations(d, revision, obj(meta(newRS).annotations));
    if (current !== revision && current > 0) {
      const history = String(obj(meta(newRS).annotations)[REVISION_HISTORY] ?? '');
      annotations[REVISION_HISTORY] = history ? `${history},${current}` : String(current);
    }
    if (!jsonEqual(annotations, obj(meta(newRS).annotations))) {
      newRS = api.update(
        'replicasets.apps',
        { ...newRS, metadata: { ...meta(newRS), annotations } },
        { fieldManager: MANAGER },
      );
    }
    const dAnn = obj(meta(d).annotations);
    if (dAnn[REVISION] !== String(revision)) {
      d = api.update(
        'deployments.apps',
        { ...d, metadata: { ...meta(d), annotations: { ...dAnn, [REVISION]: String(revision) } } },
        { fieldManager: MANAGER },
      );
    }
    return { d, newRS };
  }

  /** scaleReplicaSet: the size, and the replicas annotations when they are stale (which ends a scaling event). */
  private scale(d: JsonObject, rs: JsonObject, replicas: number): void {
    const from = replicasOf(rs);
    const annotations = replicasAnnotations(d, obj(meta(rs).annotations));
    if (from === replicas && jsonEqual(annotations, obj(meta(rs).annotations))) return;
    this.deps.api.update(
      'replicasets.apps',
      { ...rs, metadata: { ...meta(rs), annotations }, spec: { ...obj(rs.spec), replicas } },
      { fieldManager: MANAGER },
    );
    if (from !== replicas) this.scaledEvent(d, rs, from, replicas);
  }

  private scaledEvent(d: JsonObject, rs: JsonObject, from: number, to: number): void {
    const message = `Scaled ${to > from ? 'up' : 'down'} replica set ${nameOf(rs)} from ${from} to ${to}`;
    recordEvent(
      this.deps.api,
      this.deps.clock,
      {
        regarding: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: d.metadata },
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        message,
        component: COMPONENT,
      },
      this.deps.log,
    );
  }

  /**
   * scale(): the one active (or the newest) ReplicaSet takes spec.replicas; a saturated new one means
   * old ones go to zero; otherwise, mid-rollout, every active ReplicaSet grows or shrinks in proportion.
   */
  private scaleDeployment(d: JsonObject, newRS: JsonObject | undefined, old: JsonObject[]): void {
    const target = activeOrLatest(newRS, old);
    if (target) {
      this.scale(d, target, replicasOf(d));
      return;
    }
    if (newRS && isSaturated(d, newRS)) {
      for (const rs of old.filter((x) => replicasOf(x) > 0)) this.scale(d, rs, 0);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const active = (newRS ? [...old, newRS] : old).filter((x) => replicasOf(x) > 0);
    for (const [rs, size] of proportionalSizes(d, active)) this.scale(d, rs, size);
  }

  /** rolloutRolling: scale the new ReplicaSet up within maxSurge, then old ones down within maxUnavailable. */
  private rollRolling(d: JsonObject, all: JsonObject[], newRS: JsonObject | undefined, old: JsonObject[]): void {
    if (!newRS) return;
    const want = replicasOf(newRS) > replicasOf(d) ? replicasOf(d) : newRSReplicas(d, all, newRS);
    if (want !== replicasOf(newRS)) {
      this.scale(d, newRS, want);
      return;
    }
    const oldPods = sum(old, replicasOf);
    if (oldPods === 0) return;
    const minAvailable = replicasOf(d) - Math.min(fenceposts(d).maxUnavailable, replicasOf(d));
    const newUnavailable = replicasOf(newRS) - statusCount(newRS, 'availableReplicas');
    let budget = sum(all, replicasOf) - minAvailable - newUnavailable;
    if (budget <= 0) return;
    // cleanupUnhealthyReplicas: unavailable old pods go first, oldest ReplicaSet first.
    const oldest = [...old].sort(
      (a, b) =>
        String(meta(a).creationTimestamp).localeCompare(String(meta(b).creationTimestamp)) ||
        revisionOf(a) - revisionOf(b),
    );
    const current = new Map(oldest.map((rs) => [rs, replicasOf(rs)]));
    for (const rs of oldest) {
      if (budget <= 0) break;
      const unhealthy = replicasOf(rs) - statusCount(rs, 'availableReplicas');
      const n = Math.min(budget, Math.max(0, unhealthy), replicasOf(rs));
      if (n <= 0) continue;
      current.set(rs, replicasOf(rs) - n);
      budget -= n;
    }
    // scaleDownOldReplicaSetsForRollingUpdate: then available ones, keeping minAvailable.
    let scaleDown = sum(all, (rs) => statusCount(rs, 'availableReplicas')) - minAvailable;
    for (const rs of oldest) {
      if (scaleDown <= 0) break;
      const n = Math.min(current.get(rs)!, scaleDown);
      current.set(rs, current.get(rs)! - n);
      scaleDown -= n;
    }
    for (const rs of oldest) if (current.get(rs) !== replicasOf(rs)) this.scale(d, rs, current.get(rs)!);
  }

  /** rolloutRecreate: every old pod gone before the new ReplicaSet scales up. */
  private rollRecreate(d: JsonObject, newRS: JsonObject | undefined, old: JsonObject[]): void {
    const active = old.filter((rs) => replicasOf(rs) > 0);
    for (const rs of active) this.scale(d, rs, 0);
    if (active.length || old.some((rs) => statusCount(rs, 'replicas') > 0)) return;
    if (newRS) this.scale(d, newRS, replicasOf(d));
  }

  /** Old ReplicaSets with no pods beyond revisionHistoryLimit go, oldest first. */
  private cleanup(d: JsonObject, old: JsonObject[]): void {
    const limit = Number(obj(d.spec).revisionHistoryLimit ?? 10);
    const cleanable = old
      .filter(
        (rs) =>
          replicasOf(rs) === 0 &&
          statusCount(rs, 'replicas') === 0 &&
          !isDeleting(rs) &&
          Number(obj(rs.status).observedGeneration ?? 0) >= Number(meta(rs).generation ?? 0),
      )
      .sort(
        (a, b) =>
          String(meta(a).creationTimestamp).localeCompare(String(meta(b).creationTimestamp)) ||
          revisionOf(a) - revisionOf(b),
      );
    for (const rs of cleanable.slice(0, Math.max(0, cleanable.length - limit))) {
      try {
        this.deps.api.delete('replicasets.apps', String(meta(rs).namespace), nameOf(rs), {
          preconditions: { uid: String(meta(rs).uid) },
        });
      } catch (err) {
        if (statusCode(err) !== 404) throw err;
      }
    }
  }

  private writeStatus(
    d: JsonObject,
    all: JsonObject[],
    newRS: JsonObject | undefined,
    created: boolean,
  ): ReconcileResult | void {
    const { status, requeueAfterMs } = rolloutStatus(d, all, newRS, created, this.deps.clock.now());
    if (!jsonEqual(obj(d.status), status))
      this.deps.api.updateStatus('deployments.apps', { ...d, status }, { fieldManager: MANAGER });
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }
}
