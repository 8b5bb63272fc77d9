/** core/v1 Pod: defaults, QoS class, the status and log subresources, graceful deletion fields. */
import { fieldErrors } from '../status-errors.js';
import { isObject, jsonEqual, type JsonObject } from '../schema/types.js';
import { ageColumn, arr, builtin, col, combine, meta, obj, statusStrategy } from './define.js';
import { defaultPodOnly, defaultPodSpec, validatePodSpec } from './pod-spec.js';

function qosClass(spec: JsonObject): string {
  let any = false;
  let guaranteed = true;
  for (const c of arr(spec.containers)) {
    const r = obj(obj(c).resources);
    const limits = obj(r.limits);
    const requests = obj(r.requests);
    if (Object.keys(limits).length || Object.keys(requests).length) any = true;
    for (const res of ['cpu', 'memory']) {
      if (limits[res] === undefined) guaranteed = false;
      else if (requests[res] !== undefined && String(requests[res]) !== String(limits[res])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function podStatusText(o: JsonObject): string {
  const st = obj(o.status);
  if (meta(o).deletionTimestamp) return 'Terminating';
  let reason = (st.reason as string) || (st.phase as string) || 'Unknown';
  for (const cs of arr(st.containerStatuses)) {
    const state = obj(obj(cs).state);
    const waiting = obj(state.waiting);
    const terminated = obj(state.terminated);
    if (typeof waiting.reason === 'string' && waiting.reason) reason = waiting.reason;
    else if (typeof terminated.reason === 'string' && terminated.reason) reason = terminated.reason;
  }
  return reason;
}

export const pods = builtin({
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  model: 'V1Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  status: true,
  log: true,
  returnDeletedObject: true,
  fieldSelectors: {
    'spec.nodeName': (o) => obj(o.spec).nodeName as string | undefined,
    'spec.restartPolicy': (o) => obj(o.spec).restartPolicy as string | undefined,
    'spec.schedulerName': (o) => obj(o.spec).schedulerName as string | undefined,
    'spec.serviceAccountName': (o) => obj(o.spec).serviceAccountName as string | undefined,
    'spec.hostNetwork': (o) => String(obj(o.spec).hostNetwork === true),
    'status.phase': (o) => obj(o.status).phase as string | undefined,
    'status.podIP': (o) => obj(o.status).podIP as string | undefined,
    'status.nominatedNodeName': (o) => obj(o.status).nominatedNodeName as string | undefined,
  },
  columns: [
    col('Ready', 'string', (o) => {
      const statuses = arr(obj(o.status).containerStatuses);
      return `${statuses.filter((s) => obj(s).ready === true).length}/${arr(obj(o.spec).containers).length}`;
    }),
    col('Status', 'string', podStatusText),
    col('Restarts', 'string', (o) =>
      String(arr(obj(o.status).containerStatuses).reduce<number>((n, s) => n + Number(obj(s).restartCount ?? 0), 0)),
    ),
    ageColumn(),
    col('IP', 'string', (o) => obj(o.status).podIP ?? '<none>', 1),
    col('Node', 'string', (o) => obj(o.spec).nodeName ?? '<none>', 1),
    col('Nominated Node', 'string', (o) => obj(o.status).nominatedNodeName ?? '<none>', 1),
    col(
      'Readiness Gates',
      'string',
      (o) => (arr(obj(o.spec).readinessGates).length ? String(arr(obj(o.spec).readinessGates).length) : '<none>'),
      1,
    ),
  ],
  strategy: combine(statusStrategy(), {
    prepareForCreate(o) {
      o.status = { phase: 'Pending', qosClass: qosClass(obj(o.spec)) };
    },
    defaults(o) {
      if (!isObject(o.spec)) o.spec = {};
      defaultPodSpec(o.spec as JsonObject);
      defaultPodOnly(o.spec as JsonObject);
    },
    validate: (o) => validatePodSpec(o.spec, 'spec'),
    validateUpdate(n, old) {
      // Pod spec is immutable apart from images, activeDeadlineSeconds and tolerations additions.
      const strip = (s: unknown): JsonObject => {
        const c = JSON.parse(JSON.stringify(obj(s))) as JsonObject;
        for (const k of ['containers', 'initContainers']) for (const x of arr(c[k])) delete obj(x).image;
        delete c.activeDeadlineSeconds;
        delete c.tolerations;
        return c;
      };
      // NB: binding (setting spec.nodeName once) goes through pods/binding upstream; here an update may do it.
      const bound = (s: unknown, o: unknown): unknown => {
        if (obj(o).nodeName) return s;
        const { nodeName: _, ...rest } = obj(s);
        return rest;
      };
      if (!jsonEqual(strip(bound(n.spec, old.spec)), strip(bound(old.spec, old.spec)))) {
        return [
          fieldErrors.forbidden(
            'spec',
            'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
          ),
        ];
      }
      return [];
    },
  }),
});
