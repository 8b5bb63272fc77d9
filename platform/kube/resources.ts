/**
 * The resource types Steward reads and writes, as the REST paths name them. One table, so that the operator,
 * the runtimes and the tests agree on group, version and plural.
 */
import { GROUP, VERSION } from '../../api/constants.js';

export interface ResourceRef {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

const ref = (group: string, version: string, plural: string, kind: string, namespaced = true): ResourceRef =>
  Object.freeze({ group, version, plural, kind, namespaced });

export const Resources = {
  Orchestrator: ref(GROUP, VERSION, 'orchestrators', 'Orchestrator'),
  AgentConfig: ref(GROUP, VERSION, 'agentconfigs', 'AgentConfig'),
  Policy: ref(GROUP, VERSION, 'policies', 'Policy'),
  Connector: ref(GROUP, VERSION, 'connectors', 'Connector'),
  License: ref(GROUP, VERSION, 'licenses', 'License'),
  PolicyException: ref(GROUP, VERSION, 'policyexceptions', 'PolicyException'),
  Budget: ref(GROUP, VERSION, 'budgets', 'Budget'),
  Deployment: ref('apps', 'v1', 'deployments', 'Deployment'),
  Service: ref('', 'v1', 'services', 'Service'),
  ConfigMap: ref('', 'v1', 'configmaps', 'ConfigMap'),
  Secret: ref('', 'v1', 'secrets', 'Secret'),
  Pod: ref('', 'v1', 'pods', 'Pod'),
  Event: ref('', 'v1', 'events', 'Event'),
  ServiceAccount: ref('', 'v1', 'serviceaccounts', 'ServiceAccount'),
  Role: ref('rbac.authorization.k8s.io', 'v1', 'roles', 'Role'),
  RoleBinding: ref('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding'),
  PodDisruptionBudget: ref('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  Ingress: ref('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
  Lease: ref('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  EndpointSlice: ref('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice'),
} as const;

export type ResourceName = keyof typeof Resources;

/** `apps/v1`, `v1`, `steward.dev/v1alpha1`. */
export function apiVersionOf(r: ResourceRef): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** The collection path: `/apis/apps/v1/namespaces/ns/deployments`, or across namespaces without `namespace`. */
export function collectionPath(r: ResourceRef, namespace?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}`
    : `${base}/${r.plural}`;
}

export function objectPath(r: ResourceRef, namespace: string | undefined, name: string, subresource?: string): string {
  const path = `${collectionPath(r, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${path}/${subresource}` : path;
}
