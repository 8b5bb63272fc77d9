/**
 * The remaining built-ins operators touch: Lease, PodDisruptionBudget, Ingress, RBAC, EndpointSlice.
 */
import { fieldErrors, type FieldError } from '../status-errors.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';
import { pathSegmentErrors } from '../validation/names.js';
import { ageColumn, arr, builtin, col, combine, createdAtColumn, meta, obj, statusStrategy } from './define.js';

export const leases = builtin({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  model: 'V1Lease',
  namespaced: true,
  allowCreateOnUpdate: true,
  columns: [col('Holder', 'string', (o) => obj(o.spec).holderIdentity ?? ''), ageColumn()],
});

export const poddisruptionbudgets = builtin({
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  model: 'V1PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  status: true,
  generation: 'spec',
  columns: [
    col('Min Available', 'string', (o) =>
      obj(o.spec).minAvailable !== undefined ? String(obj(o.spec).minAvailable) : 'N/A',
    ),
    col('Max Unavailable', 'string', (o) =>
      obj(o.spec).maxUnavailable !== undefined ? String(obj(o.spec).maxUnavailable) : 'N/A',
    ),
    col('Allowed Disruptions', 'integer', (o) => Number(obj(o.status).disruptionsAllowed ?? 0)),
    ageColumn(),
  ],
  strategy: combine(
    statusStrategy(() => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })),
    {
      validate(o) {
        const spec = obj(o.spec);
        if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
          return [fieldErrors.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set')];
        }
        return [];
      },
    },
  ),
});

export const ingresses = builtin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  model: 'V1Ingress',
  namespaced: true,
  shortNames: ['ing'],
  status: true,
  generation: 'spec',
  columns: [
    col('Class', 'string', (o) => obj(o.spec).ingressClassName ?? '<none>'),
    col(
      'Hosts',
      'string',
      (o) =>
        arr(obj(o.spec).rules)
          .map((r) => obj(r).host ?? '*')
          .join(',') || '*',
    ),
    col('Address', 'string', (o) =>
      arr(obj(obj(o.status).loadBalancer).ingress)
        .map((x) => obj(x).ip ?? obj(x).hostname)
        .join(','),
    ),
    col('Ports', 'string', (o) => (arr(obj(o.spec).tls).length ? '80, 443' : '80')),
    ageColumn(),
  ],
  strategy: combine(
    statusStrategy(() => ({ loadBalancer: {} })),
    {
      validate(o) {
        const errs: FieldError[] = [];
        arr(obj(o.spec).rules).forEach((r, i) => {
          arr(obj(obj(r).http).paths).forEach((p, j) => {
            const pt = obj(p).pathType;
            const f = `spec.rules[${i}].http.paths[${j}].pathType`;
            if (pt === undefined) errs.push(fieldErrors.required(f, 'pathType must be specified'));
            else if (!['Exact', 'Prefix', 'ImplementationSpecific'].includes(String(pt)))
              errs.push(fieldErrors.notSupported(f, pt, ['Exact', 'ImplementationSpecific', 'Prefix']));
          });
        });
        return errs;
      },
    },
  ),
});

const rbacName = (name: string): string[] => pathSegmentErrors(name);

function defaultSubjects(o: JsonObject): void {
  for (const s of arr(o.subjects)) {
    if (!isObject(s) || s.apiGroup !== undefined) continue;
    s.apiGroup = s.kind === 'ServiceAccount' ? '' : 'rbac.authorization.k8s.io';
  }
}

function roleRefImmutable(n: JsonObject, old: JsonObject): FieldError[] {
  return jsonEqual(n.roleRef, old.roleRef) ? [] : [fieldErrors.invalid('roleRef', n.roleRef, 'cannot change roleRef')];
}

const bindingColumns = [
  col('Role', 'string', (o) => `${String(obj(o.roleRef).kind ?? '')}/${String(obj(o.roleRef).name ?? '')}`),
  ageColumn(),
  col('Users', 'string', (o) => subjectsOf(o, 'User'), 1),
  col('Groups', 'string', (o) => subjectsOf(o, 'Group'), 1),
  col('ServiceAccounts', 'string', (o) => subjectsOf(o, 'ServiceAccount'), 1),
];

function subjectsOf(o: JsonObject, kind: string): string {
  return arr(o.subjects)
    .map(obj)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${String(s.namespace ?? '')}/${String(s.name)}` : String(s.name)))
    .join(', ');
}

const rbac = (resource: string, kind: string, model: string, namespaced: boolean, binding: boolean) =>
  builtin({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource,
    kind,
    model,
    namespaced,
    nameValidator: rbacName,
    columns: binding ? bindingColumns : [createdAtColumn()],
    strategy: binding ? { defaults: defaultSubjects, validateUpdate: roleRefImmutable } : {},
  });

export const roles = rbac('roles', 'Role', 'V1Role', true, false);
export const rolebindings = rbac('rolebindings', 'RoleBinding', 'V1RoleBinding', true, true);
export const clusterroles = rbac('clusterroles', 'ClusterRole', 'V1ClusterRole', false, false);
export const clusterrolebindings = rbac(
  'clusterrolebindings',
  'ClusterRoleBinding',
  'V1ClusterRoleBinding',
  false,
  true,
);

export const endpointslices = builtin({
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  model: 'V1EndpointSlice',
  namespaced: true,
  generation(n, old) {
    // Anything but metadata, or a label change, bumps the generation (endpointslice strategy).
    const strip = (o: JsonObject): JsonObject => ({ ...o, metadata: undefined });
    return !jsonEqual(strip(n), strip(old)) || !jsonEqual(meta(n).labels ?? {}, meta(old).labels ?? {});
  },
  columns: [
    col('AddressType', 'string', (o) => o.addressType ?? ''),
    col(
      'Ports',
      'string',
      (o) =>
        arr(o.ports)
          .map((p) => String(obj(p).port ?? ''))
          .join(',') || '<unset>',
    ),
    col(
      'Endpoints',
      'string',
      (o) =>
        arr(o.endpoints)
          .flatMap((e) => arr(obj(e).addresses))
          .join(',') || '<unset>',
    ),
    ageColumn(),
  ],
  strategy: {
    defaults(o) {
      for (const p of arr(o.ports)) if (isObject(p) && p.protocol === undefined) p.protocol = 'TCP';
    },
    validate(o) {
      const t = o.addressType;
      return ['IPv4', 'IPv6', 'FQDN'].includes(String(t))
        ? []
        : [fieldErrors.notSupported('addressType', t ?? '', ['FQDN', 'IPv4', 'IPv6'])];
    },
    validateUpdate(n, old) {
      return n.addressType === old.addressType ? [] : [fieldErrors.immutable('addressType', n.addressType ?? '')];
    },
  },
});

export const OTHER_KINDS = [
  leases,
  poddisruptionbudgets,
  ingresses,
  roles,
  rolebindings,
  clusterroles,
  clusterrolebindings,
  endpointslices,
];
