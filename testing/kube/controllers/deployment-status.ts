/**
 * The Deployment's status, built without I/O (deployment/sync.go, progress.go): replica counts summed
 * over its ReplicaSets, Available from maxUnavailable, and the Progressing condition — created, found,
 * progressing, complete, timed out, paused, resumed — with the reasons upstream writes.
 */
import type { JsonObject } from '../schema/types.js';
import { maxUnavailable, replicasOf, statusCount, sum } from './deployment-util.js';
import { arr, isoSeconds, meta, nameOf, obj } from './util.js';

/** progressDeadlineSeconds of MaxInt32 means "no deadline". */
const NO_DEADLINE = 2147483647;

/** Condition reasons, as the deployment controller writes them. */
export const Reasons = {
  /** Available=True: at least replicas - maxUnavailable pods are available. */
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  /** Available=False: fewer available pods than that. */
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
  /** Progressing=True: the controller created the new ReplicaSet. */
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  /** Progressing=True: the controller found the new ReplicaSet already there. */
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  /** Progressing=True: the rollout moved (more updated, ready or available pods; fewer old ones). */
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  /** Progressing=True: the rollout is complete. */
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  /** Progressing=False: no progress within progressDeadlineSeconds. */
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  /** Progressing=Unknown: spec.paused is true. */
  DeploymentPaused: 'DeploymentPaused',
  /** Progressing=Unknown: spec.paused went back to false. */
  DeploymentResumed: 'DeploymentResumed',
} as const;

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/**
 * SetDeploymentCondition: same status and reason leaves it alone (unless `refresh`: progress moves
 * lastUpdateTime); the same status keeps lastTransitionTime.
 */
export function setDeploymentCondition(status: JsonObject, c: DeploymentCondition, now: string, refresh = false): void {
  const list = arr(status.conditions).map(obj);
  const cur = list.find((x) => x.type === c.type);
  if (!refresh && cur && cur.status === c.status && cur.reason === c.reason) return;
  const next: JsonObject = {
    type: c.type,
    status: c.status,
    lastUpdateTime: now,
    lastTransitionTime: cur && cur.status === c.status ? cur.lastTransitionTime : now,
    reason: c.reason,
    message: c.message,
  };
  status.conditions = [...list.filter((x) => x.type !== c.type), next];
}

export function deploymentCondition(status: JsonObject, type: string): JsonObject | undefined {
  return arr(status.conditions)
    .map(obj)
    .find((c) => c.type === type);
}

/** calculateStatus: counts summed over the ReplicaSets, and the Available condition. */
export function calculateStatus(
  d: JsonObject,
  all: JsonObject[],
  newRS: JsonObject | undefined,
  now: string,
): JsonObject {
  const old = obj(d.status);
  const available = sum(all, (rs) => statusCount(rs, 'availableReplicas'));
  const status: JsonObject = {
    observedGeneration: meta(d).generation,
    replicas: sum(all, (rs) => statusCount(rs, 'replicas')),
    updatedReplicas: statusCount(newRS, 'replicas'),
    readyReplicas: sum(all, (rs) => statusCount(rs, 'readyReplicas')),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sum(all, replicasOf) - available),
  };
  if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
  if (old.conditions !== undefined) status.conditions = JSON.parse(JSON.stringify(old.conditions)) as unknown;
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setDeploymentCondition(
      status,
      {
        type: 'Available',
        status: 'True',
        reason: Reasons.MinimumReplicasAvailable,
        message: 'Deployment has minimum availability.',
      },
      now,
    );
  } else {
    setDeploymentCondition(
      status,
      {
        type: 'Available',
        status: 'False',
        reason: Reasons.MinimumReplicasUnavailable,
        message: 'Deployment does not have minimum availability.',
      },
      now,
    );
  }
  for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'])
    if (status[k] === 0) delete status[k];
  return status;
}

/** DeploymentComplete: every desired replica updated and available, nothing old left. */
export function isComplete(d: JsonObject, status: JsonObject): boolean {
  const want = replicasOf(d);
  return (
    Number(status.updatedReplicas ?? 0) === want &&
    Number(status.replicas ?? 0) === want &&
    Number(status.availableReplicas ?? 0) === want &&
    Number(status.observedGeneration ?? 0) >= Number(meta(d).generation ?? 0)
  );
}

/** DeploymentProgressing: the new status moved forward compared with the old one. */
export function hasProgressed(oldStatus: JsonObject, status: JsonObject): boolean {
  const n = (s: JsonObject, k: string): number => Number(s[k] ?? 0);
  const oldOld = n(oldStatus, 'replicas') - n(oldStatus, 'updatedReplicas');
  const newOld = n(status, 'replicas') - n(status, 'updatedReplicas');
  return (
    n(status, 'updatedReplicas') > n(oldStatus, 'updatedReplicas') ||
    newOld < oldOld ||
    n(status, 'readyReplicas') > n(oldStatus, 'readyReplicas') ||
    n(status, 'availableReplicas') > n(oldStatus, 'availableReplicas')
  );
}

/** syncRolloutStatus: the next status, and when to look again for a progress deadline. */
export function rolloutStatus(
  d: JsonObject,
  all: JsonObject[],
  newRS: JsonObject | undefined,
  created: boolean,
  nowMs: number,
): { status: JsonObject; requeueAfterMs?: number } {
  const now = isoSeconds(nowMs);
  const oldStatus = obj(d.status);
  const status = calculateStatus(d, all, newRS, now);
  const deadline = Number(obj(d.spec).progressDeadlineSeconds ?? 600);
  const progressing = (s: 'True' | 'False' | 'Unknown', reason: string, message: string, refresh = false): void =>
    setDeploymentCondition(status, { type: 'Progressing', status: s, reason, message }, now, refresh);
  const cur = deploymentCondition(status, 'Progressing');
  const rsName = newRS ? `ReplicaSet "${nameOf(newRS)}"` : 'Deployment';
  if (obj(d.spec).paused === true) {
    if (cur?.reason !== Reasons.DeploymentPaused)
      progressing('Unknown', Reasons.DeploymentPaused, 'Deployment is paused');
  } else if (cur?.reason === Reasons.DeploymentPaused) {
    progressing('Unknown', Reasons.DeploymentResumed, 'Deployment is resumed');
  } else if (deadline === NO_DEADLINE) {
    status.conditions = arr(status.conditions)
      .map(obj)
      .filter((c) => c.type !== 'Progressing');
  } else if (created && newRS) {
    progressing('True', Reasons.NewReplicaSetCreated, `Created new replica set "${nameOf(newRS)}"`);
  } else if (newRS && !cur) {
    progressing('True', Reasons.FoundNewReplicaSet, `Found new replica set "${nameOf(newRS)}"`);
  } else if (
    Number(status.replicas ?? 0) === Number(status.updatedReplicas ?? 0) &&
    cur?.reason === Reasons.NewReplicaSetAvailable
  ) {
    // Complete and still complete: nothing to say.
  } else if (isComplete(d, status)) {
    progressing('True', Reasons.NewReplicaSetAvailable, `${rsName} has successfully progressed.`);
  } else if (hasProgressed(oldStatus, status)) {
    progressing('True', Reasons.ReplicaSetUpdated, `${rsName} is progressing.`, true);
  } else if (cur && cur.reason !== Reasons.ProgressDeadlineExceeded) {
    const left = Date.parse(String(cur.lastUpdateTime)) + deadline * 1000 - nowMs;
    if (left < 0) progressing('False', Reasons.ProgressDeadlineExceeded, `${rsName} has timed out progressing.`);
    else return { status, requeueAfterMs: left + 1000 };
  }
  return { status };
}
