/**
 * Merge metadata of the built-in kinds kubectl applies, transcribed from the k8s.io/api Go types: the
 * `patchStrategy`/`patchMergeKey` tags (x-kubernetes-patch-strategy / -merge-key in OpenAPI) that strategic
 * merge patch uses, and the `+listType`/`+listMapKey`/`+mapType`/`+structType` markers that server-side apply
 * uses. Fields not listed here are treated loosely: objects merge key by key, lists are replaced whole.
 */
import {
  LOOSE,
  SCALAR,
  atomicList,
  mapList,
  mapOf,
  setList,
  struct,
  type ListType,
  type MapType,
  type TypeNode,
} from './types.js';

const strMap = mapOf(SCALAR);
const atomicStrMap = mapOf(SCALAR, { atomic: true });
const atomicStruct = struct({}, { atomic: true });
const plain = struct({});

/** metav1.LabelSelector is `+structType=atomic`. */
const labelSelector = struct({ matchLabels: strMap, matchExpressions: atomicList() }, { atomic: true });

/** `[]metav1.Condition` and the per-kind condition lists: merge by type. */
const conditions = mapList(['type'], plain, { mergeKey: 'type' });

export const objectMeta: MapType = struct({
  labels: strMap,
  annotations: strMap,
  finalizers: setList(true),
  ownerReferences: mapList(['uid'], atomicStruct, { mergeKey: 'uid' }),
  managedFields: atomicList(),
});

const envVar = struct({
  valueFrom: struct({
    configMapKeyRef: atomicStruct,
    secretKeyRef: atomicStruct,
    fieldRef: atomicStruct,
    resourceFieldRef: atomicStruct,
  }),
});

const container = struct({
  command: atomicList(),
  args: atomicList(),
  ports: mapList(['containerPort', 'protocol'], plain, { mergeKey: 'containerPort', defaults: { protocol: 'TCP' } }),
  envFrom: atomicList(),
  env: mapList(['name'], envVar, { mergeKey: 'name' }),
  resources: struct({ limits: strMap, requests: strMap, claims: mapList(['name'], plain) }),
  resizePolicy: atomicList(),
  volumeMounts: mapList(['mountPath'], plain, { mergeKey: 'mountPath' }),
  volumeDevices: mapList(['devicePath'], plain, { mergeKey: 'devicePath' }),
});

const podSpec = struct({
  volumes: mapList(['name'], plain, { mergeKey: 'name', retainKeys: true }),
  initContainers: mapList(['name'], container, { mergeKey: 'name' }),
  containers: mapList(['name'], container, { mergeKey: 'name' }),
  ephemeralContainers: mapList(['name'], container, { mergeKey: 'name' }),
  nodeSelector: atomicStrMap,
  imagePullSecrets: mapList(['name'], atomicStruct, { mergeKey: 'name' }),
  // NB: tolerations carry no patch strategy in the Go types: strategic merge patch replaces the list.
  tolerations: atomicList(),
  hostAliases: mapList(['ip'], struct({ hostnames: atomicList() }), { mergeKey: 'ip' }),
  readinessGates: atomicList(),
  overhead: strMap,
  topologySpreadConstraints: mapList(
    ['topologyKey', 'whenUnsatisfiable'],
    struct({ labelSelector, matchLabelKeys: atomicList() }),
    {
      mergeKey: 'topologyKey',
    },
  ),
  schedulingGates: mapList(['name'], plain, { mergeKey: 'name' }),
  resourceClaims: mapList(['name'], plain, { mergeKey: 'name', retainKeys: true }),
});

const podStatus = struct({
  conditions,
  podIPs: mapList(['ip'], plain, { mergeKey: 'ip' }),
  hostIPs: mapList(['ip'], plain, { mergeKey: 'ip' }),
  initContainerStatuses: atomicList(),
  containerStatuses: atomicList(),
  ephemeralContainerStatuses: atomicList(),
  resourceClaimStatuses: mapList(['name'], plain, { mergeKey: 'name', retainKeys: true }),
});

const podTemplate = struct({ metadata: objectMeta, spec: podSpec });
const retainKeysStruct = struct({}, { smp: { retainKeys: true } });
const workloadStatus = struct({ conditions });

function kind(fields: Record<string, TypeNode>): MapType {
  return struct({ apiVersion: SCALAR, kind: SCALAR, metadata: objectMeta, ...fields });
}

const loadBalancerStatus = struct({ ingress: atomicList() });

const jobSpec = struct({
  selector: labelSelector,
  template: podTemplate,
  podFailurePolicy: struct({ rules: atomicList() }),
});

const BUILTIN: Record<string, MapType> = {
  '/Pod': kind({ spec: podSpec, status: podStatus }),
  '/PodTemplate': kind({ template: podTemplate }),
  '/ReplicationController': kind({
    spec: struct({ selector: atomicStrMap, template: podTemplate }),
    status: workloadStatus,
  }),
  '/Service': kind({
    spec: struct({
      ports: mapList(['port', 'protocol'], plain, { mergeKey: 'port', defaults: { protocol: 'TCP' } }),
      selector: atomicStrMap,
      clusterIPs: atomicList(),
      externalIPs: atomicList(),
      ipFamilies: atomicList(),
      loadBalancerSourceRanges: atomicList(),
    }),
    status: struct({ conditions, loadBalancer: loadBalancerStatus }),
  }),
  '/ConfigMap': kind({ data: strMap, binaryData: strMap }),
  '/Secret': kind({ data: strMap, stringData: strMap }),
  '/ServiceAccount': kind({
    secrets: mapList(['name'], atomicStruct, { mergeKey: 'name' }),
    imagePullSecrets: atomicList(),
  }),
  '/Namespace': kind({ spec: struct({ finalizers: atomicList() }), status: struct({ conditions }) }),
  '/Endpoints': kind({ subsets: atomicList() }),
  '/Event': kind({}),
  '/PersistentVolumeClaim': kind({ spec: struct({ accessModes: atomicList() }), status: struct({ conditions }) }),
  'apps/Deployment': kind({
    spec: struct({ selector: labelSelector, template: podTemplate, strategy: retainKeysStruct }),
    status: workloadStatus,
  }),
  'apps/ReplicaSet': kind({ spec: struct({ selector: labelSelector, template: podTemplate }), status: workloadStatus }),
  'apps/StatefulSet': kind({
    spec: struct({ selector: labelSelector, template: podTemplate, volumeClaimTemplates: atomicList() }),
    status: workloadStatus,
  }),
  'apps/DaemonSet': kind({ spec: struct({ selector: labelSelector, template: podTemplate }), status: workloadStatus }),
  'batch/Job': kind({
    spec: jobSpec,
    status: struct({ conditions: atomicList(plain, { strategy: 'merge', mergeKey: 'type' }) }),
  }),
  'batch/CronJob': kind({
    spec: struct({ jobTemplate: struct({ metadata: objectMeta, spec: jobSpec }) }),
    status: struct({ active: atomicList() }),
  }),
  'rbac.authorization.k8s.io/Role': kind({ rules: atomicList() }),
  'rbac.authorization.k8s.io/ClusterRole': kind({
    rules: atomicList(),
    aggregationRule: struct({ clusterRoleSelectors: atomicList() }),
  }),
  'rbac.authorization.k8s.io/RoleBinding': kind({ subjects: atomicList(), roleRef: atomicStruct }),
  'rbac.authorization.k8s.io/ClusterRoleBinding': kind({ subjects: atomicList(), roleRef: atomicStruct }),
  'networking.k8s.io/Ingress': kind({
    spec: struct({ rules: atomicList(), tls: atomicList() }),
    status: struct({ loadBalancer: loadBalancerStatus }),
  }),
  'policy/PodDisruptionBudget': kind({
    spec: struct({ selector: labelSelector }),
    status: struct({ conditions, disruptedPods: strMap }),
  }),
  'coordination.k8s.io/Lease': kind({}),
  'events.k8s.io/Event': kind({}),
  'discovery.k8s.io/EndpointSlice': kind({ endpoints: atomicList(), ports: atomicList() }),
};

/** Built-in kinds that have a status subresource (all the others have no `status`). */
const WITH_STATUS = new Set(
  Object.entries(BUILTIN)
    .filter(([, t]) => t.fields?.status)
    .map(([k]) => k),
);

/** The type of a built-in kind, or undefined when this table does not describe it. */
export function builtinType(group: string, kindName: string): MapType | undefined {
  return BUILTIN[`${group}/${kindName}`];
}

/** A type for any built-in kind: the table's when it has one, loose otherwise. */
export function builtinTypeOrLoose(group: string, kindName: string): MapType {
  return builtinType(group, kindName) ?? kind({});
}

export function builtinHasStatus(group: string, kindName: string): boolean {
  return WITH_STATUS.has(`${group}/${kindName}`);
}

/** OpenAPI extensions the real apiserver publishes for a field. */
export interface PatchExtensions {
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
}

/**
 * The extensions of every described field of a built-in kind, keyed by dotted path with `[]` for list
 * items (`spec.template.spec.containers[].ports`). The OpenAPI documents kubectl downloads need them:
 * without `x-kubernetes-patch-merge-key`, `kubectl apply` sends whole lists and cannot delete items.
 */
export function patchExtensions(group: string, kindName: string): Map<string, PatchExtensions> {
  const out = new Map<string, PatchExtensions>();
  const root = builtinType(group, kindName);
  if (root) collect(root, '', out, new Set());
  return out;
}

function collect(t: TypeNode, path: string, out: Map<string, PatchExtensions>, seen: Set<TypeNode>): void {
  if (seen.has(t)) return;
  if (t.kind === 'list') {
    const ext = listExtensions(t);
    if (path && Object.keys(ext).length) out.set(path, ext);
    collect(t.elem, `${path}[]`, out, new Set(seen).add(t));
    return;
  }
  if (t.kind !== 'map') return;
  const ext: PatchExtensions = {};
  if (t.atomic) ext['x-kubernetes-map-type'] = 'atomic';
  if (t.smp?.retainKeys) ext['x-kubernetes-patch-strategy'] = 'retainKeys';
  if (path && Object.keys(ext).length) out.set(path, ext);
  const next = new Set(seen).add(t);
  for (const [name, sub] of Object.entries(t.fields ?? {})) collect(sub, path ? `${path}.${name}` : name, out, next);
  if (t.elem && t.elem !== LOOSE && !t.elemNamed) collect(t.elem, `${path}{}`, out, next);
}

function listExtensions(t: ListType): PatchExtensions {
  const ext: PatchExtensions = {};
  if (t.smp?.strategy)
    ext['x-kubernetes-patch-strategy'] = t.smp.retainKeys ? `${t.smp.strategy},retainKeys` : t.smp.strategy;
  if (t.smp?.mergeKey) ext['x-kubernetes-patch-merge-key'] = t.smp.mergeKey;
  ext['x-kubernetes-list-type'] = t.listType;
  if (t.keys) ext['x-kubernetes-list-map-keys'] = [...t.keys];
  return ext;
}
