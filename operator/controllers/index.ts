/**
 * The operator's controllers, one per kind (operator/controllers/<kind>/): `allControllers` builds their specs
 * for the manager — the primary resource, what each owns, and which other changes wake it.
 */
import { Resources, type ResourceRef } from '../../platform/kube/resources.js';
import type {
  ControllerContext,
  ControllerSettings,
  ControllerSpec,
  Reconciler,
  ReconcileRequest,
} from '../manager/types.js';
import { AgentConfigReconciler } from './agentconfig/reconcile.js';
import { ConnectorReconciler } from './connector/reconcile.js';
import { LicenseReconciler } from './license/reconcile.js';
import {
  agentsOfSecret,
  allInNamespace,
  connectorsOfSecret,
  licensesOfSecret,
  orchestratorsOfLicense,
  orchestratorsOfSecret,
  policiesOfGatewayPod,
} from './maps.js';
import { OrchestratorReconciler } from './orchestrator/reconcile.js';
import { PolicyReconciler } from './policy/reconcile.js';

export type { ControllerSettings } from '../manager/types.js';

export { createOrUpdate, type ApplyResult } from './apply.js';
export { capReplicas, type CapAllocation, type CapRequest } from './cap.js';

/** The kinds an Orchestrator's objects are made of (and which the operator deletes with it). */
export const ORCHESTRATOR_OWNS: readonly ResourceRef[] = [
  Resources.Deployment,
  Resources.Service,
  Resources.ConfigMap,
  Resources.Secret,
  Resources.PodDisruptionBudget,
  Resources.Ingress,
  Resources.ServiceAccount,
  Resources.Role,
  Resources.RoleBinding,
];

/** The five controllers. `settings` defaults to the manager's (`ctx.settings`). */
export function allControllers(
  ctx: ControllerContext,
  settings: ControllerSettings = ctx.settings ?? {},
): ControllerSpec[] {
  const { cache } = ctx;
  const scoped = (r: Reconciler): Reconciler =>
    settings.watchNamespace === undefined ? r : onlyNamespace(settings.watchNamespace, r);
  return [
    {
      name: 'orchestrator',
      for: Resources.Orchestrator,
      owns: ORCHESTRATOR_OWNS,
      watches: [
        { resource: Resources.License, map: orchestratorsOfLicense(cache) },
        { resource: Resources.Orchestrator, map: orchestratorsOfLicense(cache) },
        { resource: Resources.Secret, map: orchestratorsOfSecret(cache) },
        { resource: Resources.AgentConfig, map: allInNamespace(cache, Resources.Orchestrator) },
      ],
      reconciler: scoped(new OrchestratorReconciler(ctx, settings)),
    },
    {
      name: 'agentconfig',
      for: Resources.AgentConfig,
      owns: [Resources.Deployment, Resources.Service],
      watches: [
        { resource: Resources.Orchestrator, map: allInNamespace(cache, Resources.AgentConfig) },
        // NB: one agent's replicas change the others' share under a License cap.
        { resource: Resources.AgentConfig, map: allInNamespace(cache, Resources.AgentConfig) },
        { resource: Resources.License, map: allInNamespace(cache, Resources.AgentConfig) },
        { resource: Resources.Secret, map: agentsOfSecret(cache) },
      ],
      reconciler: scoped(new AgentConfigReconciler(ctx, settings)),
    },
    {
      name: 'policy',
      for: Resources.Policy,
      watches: [{ resource: Resources.Pod, map: policiesOfGatewayPod(cache) }],
      reconciler: scoped(new PolicyReconciler(ctx)),
    },
    {
      name: 'connector',
      for: Resources.Connector,
      watches: [{ resource: Resources.Secret, map: connectorsOfSecret(cache) }],
      reconciler: scoped(new ConnectorReconciler(ctx)),
    },
    {
      name: 'license',
      for: Resources.License,
      watches: [{ resource: Resources.Secret, map: licensesOfSecret(cache) }],
      reconciler: scoped(new LicenseReconciler(ctx, settings)),
    },
  ];
}

function onlyNamespace(namespace: string, inner: Reconciler): Reconciler {
  return {
    reconcile: (req: ReconcileRequest) => (req.namespace === namespace ? inner.reconcile(req) : Promise.resolve()),
  };
}
