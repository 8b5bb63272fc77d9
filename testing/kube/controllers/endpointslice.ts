/**
 * The EndpointSlice controller: for each Service with a selector, one `discovery.k8s.io/v1`
 * EndpointSlice (label `kubernetes.io/service-name`, owned by the Service) listing the matching pods
 * that have an IP, with ready/serving/terminating conditions and the Service's ports, named
 * targetPorts resolved against the pods' container ports.
 */
import { jsonEqual, type JsonObject } from '../schema/types.js';
import { equalitySelector, ServiceSelectors } from './service-index.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import {
  arr,
  isDeleting,
  isPodReady,
  keyOf,
  meta,
  nameOf,
  namespaceOf,
  newControllerRef,
  obj,
  selectorMatches,
  splitKey,
} from './util.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const MANAGED_BY = 'endpointslice-controller.k8s.io';
const MANAGER = 'endpointslice-controller';

function hasSelector(svc: JsonObject): boolean {
  return Object.keys(obj(obj(svc.spec).selector)).length > 0;
}

/** FindPort: a number as is; a name looked up among the pod's container ports (same protocol). */
export function resolveTargetPort(pod: JsonObject, servicePort: JsonObject): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  for (const c of arr(obj(pod.spec).containers)) {
    for (const p of arr(obj(c).ports).map(obj))
      if (p.name === target && (p.protocol ?? 'TCP') === protocol) return Number(p.containerPort);
  }
  const n = Number(target);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function endpointPorts(svc: JsonObject, pod: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  for (const sp of arr(obj(svc.spec).ports).map(obj)) {
    const port = resolveTargetPort(pod, sp);
    if (port === undefined) continue;
    const p: JsonObject = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol !== undefined) p.appProtocol = sp.appProtocol;
    out.push(p);
  }
  return out;
}

function endpointFor(svc: JsonObject, pod: JsonObject): JsonObject {
  const terminating = isDeleting(pod);
  const ready = isPodReady(pod);
  const e: JsonObject = {
    addresses: [String(obj(pod.status).podIP)],
    conditions: {
      ready: obj(svc.spec).publishNotReadyAddresses === true || (ready && !terminating),
      serving: ready,
      terminating,
    },
    targetRef: { kind: 'Pod', namespace: namespaceOf(pod), name: nameOf(pod), uid: meta(pod).uid },
  };
  const node = obj(pod.spec).nodeName;
  if (node) e.nodeName = node;
  return e;
}

/** The slice's labels: the Service's own, then the ones the controller owns. */
function sliceLabels(svc: JsonObject): JsonObject {
  const labels: JsonObject = {
    ...obj(meta(svc).labels),
    [SERVICE_NAME_LABEL]: nameOf(svc),
    [MANAGED_BY_LABEL]: MANAGED_BY,
  };
  if (obj(svc.spec).clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
  return labels;
}

export class EndpointSliceController implements Reconciler {
  readonly name = 'endpointslice';
  readonly watches: WatchSpec[] = [
    { resource: 'services', keys: (o, ev) => (this.selectors.noteService(o, ev), [keyOf(o)]) },
    { resource: 'pods', keys: (o, ev) => this.selectors.servicesFor(o, ev) },
    { resource: 'endpointslices.discovery.k8s.io', keys: (o) => this.sliceService(o) },
  ];

  private readonly selectors = new ServiceSelectors();

  constructor(private readonly deps: ControllerDeps) {}

  private sliceService(slice: JsonObject): string[] {
    const labels = obj(meta(slice).labels);
    return labels[MANAGED_BY_LABEL] === MANAGED_BY && labels[SERVICE_NAME_LABEL]
      ? [`${namespaceOf(slice)}/${String(labels[SERVICE_NAME_LABEL])}`]
      : [];
  }

  reconcile(key: string): void {
    const { api } = this.deps;
    const [namespace, name] = splitKey(key);
    const svc = api.tryGet('services', namespace, name);
    if (!svc || isDeleting(svc) || !hasSelector(svc)) return; // the garbage collector removes slices of deleted Services
    const pods = api
      .list('pods', { namespace, labelSelector: equalitySelector(obj(obj(svc.spec).selector)) })
      .items.filter(
        (p) =>
          selectorMatches({ matchLabels: obj(svc.spec).selector }, meta(p).labels) &&
          obj(p.status).podIP &&
          !['Succeeded', 'Failed'].includes(String(obj(p.status).phase)),
      )
      .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    const endpoints = pods.map((p) => endpointFor(svc, p));
    const ports = pods.length ? endpointPorts(svc, pods[0]!) : [];
    const slices = api.list('endpointslices.discovery.k8s.io', {
      namespace,
      labelSelector: `${SERVICE_NAME_LABEL}=${name},${MANAGED_BY_LABEL}=${MANAGED_BY}`,
    }).items;
    const [slice, ...extra] = slices;
    for (const s of extra) api.delete('endpointslices.discovery.k8s.io', namespace, nameOf(s));
    const desired: JsonObject = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        ...(slice ? meta(slice) : { generateName: `${name}-`, namespace }),
        labels: sliceLabels(svc),
        ownerReferences: [newControllerRef(svc, 'v1', 'Service')],
      },
      addressType: 'IPv4',
      endpoints,
      ports,
    };
    if (!slice) api.create('endpointslices.discovery.k8s.io', desired, { fieldManager: MANAGER });
    else if (
      !jsonEqual(
        { l: meta(slice).labels, e: slice.endpoints, p: slice.ports ?? [] },
        { l: sliceLabels(svc), e: endpoints, p: ports },
      )
    ) {
      api.update('endpointslices.discovery.k8s.io', desired, { fieldManager: MANAGER });
    }
  }
}
