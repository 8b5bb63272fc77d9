/**
 * The operator's controllers, one per kind (operator/controllers/<kind>/): `allControllers` builds their specs
 * for the manager — the primary resource, what each owns, and which other changes wake it.
 */
import { LABELS, MANAGED_BY } from '../../api/constants.js';
import { Resources, type ResourceRef } from '../../platform/kube/resources.js';
import type {
  ControllerContext,
  ControllerSettings,
  ControllerSpec,
  Reconciler,
  ReconcileRequest,
  Selection,
} from '../manager/types.js';
import { AgentConfigReconciler } from './agentconfig/reconcile.js';
import { BudgetReconciler } from './budget/reconcile.js';
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
  secretOfConnector,
  secretOfLicense,
  secretsOfOrchestrator,
} from './maps.js';
import { OrchestratorReconciler } from './orchestrator/reconcile.js';
import { PolicyReconciler } from './policy/reconcile.js';
import { exceptionsOfPolicy, PolicyExceptionReconciler } from './policyexception/reconcile.js';
import { configMapOfPolicy, policiesOfConfigMap } from './policy/wasm.js';

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

/**
 * What the operator caches of Secrets and Pods (docs/adr/0015): never the cluster's others. Secrets: those it makes
 * (`O-internal`, by its labels), and those the resources name, one watch per name; Pods: the Steward gateways.
 */
export const SELECTIONS = {
  ownSecrets: { resource: Resources.Secret, labelSelector: `${LABELS.managedBy}=${MANAGED_BY}` },
  orchestratorSecrets: { resource: Resources.Secret, namedBy: Resources.Orchestrator, names: secretsOfOrchestrator },
  licenseSecrets: { resource: Resources.Secret, namedBy: Resources.License, names: secretOfLicense },
  connectorSecrets: { resource: Resources.Secret, namedBy: Resources.Connector, names: secretOfConnector },
  gatewayPods: { resource: Resources.Pod, labelSelector: `${LABELS.name}=steward,${LABELS.component}=gateway` },
  ownConfigMaps: { resource: Resources.ConfigMap, labelSelector: `${LABELS.managedBy}=${MANAGED_BY}` },
  policyConfigMaps: { resource: Resources.ConfigMap, namedBy: Resources.Policy, names: configMapOfPolicy },
} as const satisfies Record<string, Selection>;

/** The controllers, one per kind. `settings` defaults to the manager's (`ctx.settings`). */
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
      // NB: ConfigMaps are selected (Policies' wasm bundles): the ones it owns, `O-config`, by their label.
      selects: [SELECTIONS.ownSecrets, SELECTIONS.orchestratorSecrets, SELECTIONS.ownConfigMaps],
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
      selects: [SELECTIONS.ownSecrets, SELECTIONS.orchestratorSecrets],
      reconciler: scoped(new AgentConfigReconciler(ctx, settings)),
    },
    {
      name: 'policy',
      for: Resources.Policy,
      watches: [
        { resource: Resources.Pod, map: policiesOfGatewayPod(cache) },
        { resource: Resources.ConfigMap, map: policiesOfConfigMap(cache) },
      ],
      selects: [SELECTIONS.gatewayPods, SELECTIONS.policyConfigMaps],
      reconciler: scoped(new PolicyReconciler(ctx)),
    },
    {
      name: 'connector',
      for: Resources.Connector,
      watches: [{ resource: Resources.Secret, map: connectorsOfSecret(cache) }],
      selects: [SELECTIONS.connectorSecrets],
      reconciler: scoped(new ConnectorReconciler(ctx)),
    },
    {
      name: 'license',
      for: Resources.License,
      watches: [{ resource: Resources.Secret, map: licensesOfSecret(cache) }],
      selects: [SELECTIONS.licenseSecrets],
      reconciler: scoped(new LicenseReconciler(ctx, settings)),
    },
    {
      name: 'policyexception',
      for: Resources.PolicyException,
      // NB: a Policy created or deleted changes the message of the exceptions naming it (not their Ready).
      watches: [{ resource: Resources.Policy, map: exceptionsOfPolicy(cache) }],
      reconciler: scoped(new PolicyExceptionReconciler(ctx)),
    },
    {
      name: 'budget',
      for: Resources.Budget,
      reconciler: scoped(new BudgetReconciler(ctx)),
    },
  ];
}

function onlyNamespace(namespace: string, inner: Reconciler): Reconciler {
  return {
    reconcile: (req: ReconcileRequest) => (req.namespace === namespace ? inner.reconcile(req) : Promise.resolve()),
  };
}
