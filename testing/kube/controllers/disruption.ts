/**
 * The disruption controller: PodDisruptionBudget status from the pods its selector matches —
 * expectedPods, desiredHealthy, currentHealthy (ready, not terminating), disruptionsAllowed,
 * observedGeneration and the DisruptionAllowed condition.
 */
import { setCondition } from '../kinds/index.js';
import { jsonEqual, type JsonObject } from '../schema/types.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import {
  controllerRef,
  isDeleting,
  isPodReady,
  keyOf,
  meta,
  namespaceOf,
  obj,
  scaledValue,
  selectorMatches,
  splitKey,
} from './util.js';

const MANAGER = 'disruption-controller';

/** DisruptionAllowed reasons, as upstream writes them. */
export const SUFFICIENT_PODS = 'SufficientPods';
export const INSUFFICIENT_PODS = 'InsufficientPods';

export class DisruptionController implements Reconciler {
  readonly name = 'disruption';
  readonly watches: WatchSpec[] = [
    { resource: 'poddisruptionbudgets.policy', keys: (o) => [keyOf(o)] },
    {
      resource: 'pods',
      keys: (o) => this.deps.api.list('poddisruptionbudgets.policy', { namespace: namespaceOf(o) }).items.map(keyOf),
    },
  ];

  constructor(private readonly deps: ControllerDeps) {}

  /** Pods a controller should run: the scale of each distinct controller (its Deployment for a ReplicaSet). */
  private expectedFromControllers(pods: JsonObject[]): number {
    const { api } = this.deps;
    const seen = new Map<string, number>();
    let uncontrolled = 0;
    for (const p of pods) {
      const ref = controllerRef(p);
      if (!ref) {
        uncontrolled++;
        continue;
      }
      if (seen.has(String(ref.uid))) continue;
      let scale = 1;
      if (ref.kind === 'ReplicaSet') {
        const rs = api.tryGet('replicasets.apps', namespaceOf(p), String(ref.name));
        const dref = rs && controllerRef(rs);
        const d =
          dref?.kind === 'Deployment' ? api.tryGet('deployments.apps', namespaceOf(p), String(dref.name)) : undefined;
        scale = Number(obj((d ?? rs)?.spec).replicas ?? 0);
      }
      seen.set(String(ref.uid), scale);
    }
    return [...seen.values()].reduce((a, b) => a + b, 0) + uncontrolled;
  }

  reconcile(key: string): void {
    const { api, clock } = this.deps;
    const [namespace, name] = splitKey(key);
    const pdb = api.tryGet('poddisruptionbudgets.policy', namespace, name);
    if (!pdb || isDeleting(pdb)) return;
    const spec = obj(pdb.spec);
    // policy/v1: an empty selector matches every pod in the namespace, a missing one none.
    const pods =
      spec.selector === undefined
        ? []
        : api.list('pods', { namespace }).items.filter((p) => selectorMatches(spec.selector, meta(p).labels));
    let expectedPods = pods.length;
    let desiredHealthy = 0;
    if (spec.maxUnavailable !== undefined) {
      expectedPods = this.expectedFromControllers(pods);
      desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods, true));
    } else if (typeof spec.minAvailable === 'number') {
      desiredHealthy = spec.minAvailable;
    } else if (spec.minAvailable !== undefined) {
      expectedPods = this.expectedFromControllers(pods);
      desiredHealthy = scaledValue(spec.minAvailable, expectedPods, true);
    }
    const currentHealthy = pods.filter((p) => isPodReady(p) && !isDeleting(p)).length;
    const disruptionsAllowed = expectedPods > 0 ? Math.max(0, currentHealthy - desiredHealthy) : 0;
    const old = obj(pdb.status);
    const status: JsonObject = {
      observedGeneration: meta(pdb).generation,
      disruptionsAllowed,
      currentHealthy,
      desiredHealthy,
      expectedPods,
    };
    if (old.disruptedPods !== undefined) status.disruptedPods = old.disruptedPods;
    if (old.conditions !== undefined) status.conditions = JSON.parse(JSON.stringify(old.conditions)) as unknown;
    const allowed = disruptionsAllowed > 0;
    setCondition(
      status,
      {
        type: 'DisruptionAllowed',
        status: allowed ? 'True' : 'False',
        reason: allowed ? SUFFICIENT_PODS : INSUFFICIENT_PODS,
        message: '',
      },
      clock.nowIso(),
    );
    for (const c of status.conditions as JsonObject[])
      if (c.type === 'DisruptionAllowed') c.observedGeneration = meta(pdb).generation;
    if (!jsonEqual(old, status))
      api.updateStatus('poddisruptionbudgets.policy', { ...pdb, status }, { fieldManager: MANAGER });
  }
}
