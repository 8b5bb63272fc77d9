/**
 * What an Orchestrator `O` in namespace `NS` should have (docs/cluster-mode.md): gateway and orchestrator
 * Deployments and Services, the `O-config` ConfigMap, the `O-internal` Secret, PodDisruptionBudgets, the
 * `O-runtime` ServiceAccount/Role/RoleBinding and an optional Ingress. Pure: imports only api/ and types; the
 * reconciler passes what needs I/O or randomness (replicas after the node cap, the config hash, the Secret's
 * generated values).
 */
import type {
  V1IngressSpec,
  V1PodDisruptionBudgetSpec,
  V1PolicyRule,
  V1RoleRef,
  RbacV1Subject,
} from '@kubernetes/client-node';
import { GROUP } from '../../../api/constants.js';
import type { OrchestratorResource } from '../../../api/resources.js';
import {
  A2A_CARD_KEY_NAME,
  A2A_KEY_MOUNT_PATH,
  AUDIT_KEY_MOUNT_PATH,
  TLS_MOUNT_PATH,
  gatewayEnv,
  orchestratorEnv,
  sharedSettings,
} from '../env.js';
import {
  INTERNAL_KEYS,
  b64,
  controllerRef,
  names,
  selectorLabels,
  stewardLabels,
  type DesiredObject,
} from '../meta.js';
import { desiredDeployment, desiredService, type DesiredDeployment, type DesiredService } from '../workload.js';

export interface OrchestratorInputs {
  /** `repository:tag` (or the operator's default image when the spec names none). */
  image: string;
  /** Replicas after the License node cap. */
  replicas: { gateway: number; orchestrator: number };
  /** Hash of the ConfigMap data and the referenced Secrets' data. */
  configHash: string;
}

/** The values of `O-internal`: generated once by the reconciler, then read back and kept. */
export interface InternalValues {
  internalSecret: string;
  agentToken: string;
  /** The operator's own setting; absent: the key is left out (the runtimes then verify no license keys). */
  licenseSigningSecret?: string;
  /** The gateways' audit signing key pair (PEM), generated once. */
  auditSigningKey: string;
  auditPublicKey: string;
  /** The gateways' A2A card signing key (PEM), generated once. */
  a2aCardKey: string;
}

type ServerComponent = 'gateway' | 'orchestrator';

const meta = (o: OrchestratorResource, name: string, component: ServerComponent) => ({
  name,
  namespace: o.metadata.namespace!,
  labels: stewardLabels(o.metadata.name, component),
  ownerReferences: [controllerRef(o)],
});

/** `O-config`: the non-secret settings the components share. */
export function desiredConfigMap(o: OrchestratorResource): DesiredObject & { data: Record<string, string> } {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(o, names.config(o.metadata.name), 'orchestrator'),
    data: sharedSettings(o),
  };
}

/** `O-internal`: the gateway → orchestrator identity secret, the agents' token and the license signing secret. */
export function desiredInternalSecret(
  o: OrchestratorResource,
  v: InternalValues,
): DesiredObject & { type: string; data: Record<string, string> } {
  const data: Record<string, string> = {
    [INTERNAL_KEYS.internalSecret]: b64(v.internalSecret),
    [INTERNAL_KEYS.agentToken]: b64(v.agentToken),
  };
  if (v.licenseSigningSecret) data[INTERNAL_KEYS.licenseSigningSecret] = b64(v.licenseSigningSecret);
  data[INTERNAL_KEYS.auditSigningKey] = b64(v.auditSigningKey);
  data[INTERNAL_KEYS.auditPublicKey] = b64(v.auditPublicKey);
  data[INTERNAL_KEYS.a2aCardKey] = b64(v.a2aCardKey);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta(o, names.internal(o.metadata.name), 'orchestrator'),
    type: 'Opaque',
    data,
  };
}

export function desiredDeployments(
  o: OrchestratorResource,
  inputs: OrchestratorInputs,
): Record<ServerComponent, DesiredDeployment> {
  const common = (component: ServerComponent, name: string) => ({
    name,
    namespace: o.metadata.namespace!,
    component,
    labels: stewardLabels(o.metadata.name, component),
    selector: selectorLabels(o.metadata.name, component),
    owner: controllerRef(o),
    replicas: inputs.replicas[component],
    image: inputs.image,
    pullPolicy: o.spec.image.pullPolicy,
    serviceAccountName: names.runtime(o.metadata.name),
    configHash: inputs.configHash,
    resources: o.spec[component].resources,
  });
  const tls = o.spec.tls;
  return {
    gateway: desiredDeployment({
      ...common('gateway', names.gateway(o.metadata.name)),
      env: gatewayEnv(o),
      // NB: only the private keys, read-only to the pod's user (docs/audit-evidence.md, docs/a2a.md).
      volumes: [
        {
          name: 'audit-key',
          secret: {
            secretName: names.internal(o.metadata.name),
            items: [{ key: INTERNAL_KEYS.auditSigningKey, path: 'audit-signing-key.pem', mode: 0o400 }],
          },
        },
        {
          name: 'a2a-card-key',
          secret: {
            secretName: names.internal(o.metadata.name),
            items: [{ key: INTERNAL_KEYS.a2aCardKey, path: A2A_CARD_KEY_NAME, mode: 0o400 }],
          },
        },
      ],
      volumeMounts: [
        { name: 'audit-key', mountPath: AUDIT_KEY_MOUNT_PATH, readOnly: true },
        { name: 'a2a-card-key', mountPath: A2A_KEY_MOUNT_PATH, readOnly: true },
      ],
    }),
    orchestrator: desiredDeployment({
      ...common('orchestrator', names.orchestrator(o.metadata.name)),
      env: orchestratorEnv(o),
      ...(tls
        ? {
            scheme: 'HTTPS' as const,
            volumes: [{ name: 'tls', secret: { secretName: tls.secretName } }],
            volumeMounts: [{ name: 'tls', mountPath: TLS_MOUNT_PATH, readOnly: true }],
          }
        : {}),
    }),
  };
}

export function desiredServices(o: OrchestratorResource): Record<ServerComponent, DesiredService> {
  const svc = (component: ServerComponent, name: string) =>
    desiredService({
      name,
      namespace: o.metadata.namespace!,
      component,
      labels: stewardLabels(o.metadata.name, component),
      selector: selectorLabels(o.metadata.name, component),
      owner: controllerRef(o),
    });
  return {
    gateway: svc('gateway', names.gateway(o.metadata.name)),
    orchestrator: svc('orchestrator', names.orchestrator(o.metadata.name)),
  };
}

/** `maxUnavailable: 1` when the component has more than one replica; undefined (none, or delete it) otherwise. */
export function desiredPdb(
  o: OrchestratorResource,
  component: ServerComponent,
  replicas: number,
): (DesiredObject & { spec: V1PodDisruptionBudgetSpec }) | undefined {
  if (replicas <= 1) return undefined;
  const name = component === 'gateway' ? names.gateway(o.metadata.name) : names.orchestrator(o.metadata.name);
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(o, name, component),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(o.metadata.name, component) } },
  };
}

/** Least privilege for the runtimes (docs/cluster-mode.md, RBAC of the runtimes). */
export const RUNTIME_RULES: V1PolicyRule[] = [
  {
    apiGroups: [GROUP],
    resources: ['orchestrators', 'agentconfigs', 'policies', 'connectors', 'licenses', 'policyexceptions', 'budgets'],
    verbs: ['get', 'list', 'watch'],
  },
  { apiGroups: [''], resources: ['secrets', 'configmaps', 'services', 'pods'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [GROUP], resources: ['policies'], verbs: ['create', 'update', 'patch', 'delete'] },
  {
    apiGroups: [GROUP],
    resources: [
      'policies/status',
      'connectors/status',
      'agentconfigs/status',
      'orchestrators/status',
      'budgets/status',
    ],
    verbs: ['update', 'patch'],
  },
  // NB: a Budget's thresholds fire Events from the gateway that saw them crossed.
  { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
];

export function desiredRbac(o: OrchestratorResource): {
  serviceAccount: DesiredObject;
  role: DesiredObject & { rules: V1PolicyRule[] };
  roleBinding: DesiredObject & { roleRef: V1RoleRef; subjects: RbacV1Subject[] };
} {
  const name = names.runtime(o.metadata.name);
  const m = meta(o, name, 'orchestrator');
  return {
    serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: m },
    role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: m, rules: RUNTIME_RULES },
    roleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: m,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: o.metadata.namespace! }],
    },
  };
}

/** `O-gateway` Ingress with `spec.ingress.enabled`; undefined otherwise (none, or delete it). */
export function desiredIngress(o: OrchestratorResource): (DesiredObject & { spec: V1IngressSpec }) | undefined {
  const ing = o.spec.ingress;
  if (!ing?.enabled) return undefined;
  const name = names.gateway(o.metadata.name);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta(o, name, 'gateway'),
    spec: {
      ...(ing.className ? { ingressClassName: ing.className } : {}),
      rules: [
        {
          ...(ing.host ? { host: ing.host } : {}),
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { name: 'http' } } } }] },
        },
      ],
      ...(ing.tlsSecretName
        ? { tls: [{ ...(ing.host ? { hosts: [ing.host] } : {}), secretName: ing.tlsSecretName }] }
        : {}),
    },
  };
}

/** Everything to apply, in order (RBAC and configuration before the workloads), and what to remove if present. */
export function desiredObjects(
  o: OrchestratorResource,
  inputs: OrchestratorInputs,
  internal: InternalValues,
): { apply: DesiredObject[]; remove: { kind: string; name: string }[] } {
  const deployments = desiredDeployments(o, inputs);
  const services = desiredServices(o);
  const rbac = desiredRbac(o);
  const apply: DesiredObject[] = [
    rbac.serviceAccount,
    rbac.role,
    rbac.roleBinding,
    desiredConfigMap(o),
    desiredInternalSecret(o, internal),
    services.gateway,
    services.orchestrator,
    deployments.gateway,
    deployments.orchestrator,
  ];
  const remove: { kind: string; name: string }[] = [];
  for (const component of ['gateway', 'orchestrator'] as const) {
    const pdb = desiredPdb(o, component, inputs.replicas[component]);
    if (pdb) apply.push(pdb);
    else remove.push({ kind: 'PodDisruptionBudget', name: deployments[component].metadata.name });
  }
  const ingress = desiredIngress(o);
  if (ingress) apply.push(ingress);
  else remove.push({ kind: 'Ingress', name: names.gateway(o.metadata.name) });
  return { apply, remove };
}

/** The schema's default image: what the spec says when its author named none. */
export const DEFAULT_IMAGE = { repository: 'ghcr.io/steward-dev/steward', tag: 'latest' } as const;

/**
 * The image every component runs: `repository:tag`. NB: the API server fills in the schema's default
 * (`ghcr.io/steward-dev/steward:latest`), so "the spec names none" reads as "the spec has the default"; the
 * operator's `defaultImage` (its own version, pinned) then replaces it.
 */
export function imageOf(o: OrchestratorResource, defaultImage?: string): string {
  const { repository, tag } = o.spec.image;
  if (defaultImage && repository === DEFAULT_IMAGE.repository && tag === DEFAULT_IMAGE.tag) return defaultImage;
  return `${repository}:${tag}`;
}
