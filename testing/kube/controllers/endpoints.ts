/**
 * The endpoints controller: the legacy core/v1 Endpoints of each Service with a selector, named like
 * the Service — ready pods under `addresses`, not-ready ones under `notReadyAddresses`, terminating
 * ones left out — deleted with the Service. Runs only where `endpoints` is served.
 */
import { jsonEqual, type JsonObject } from '../schema/types.js';
import { equalitySelector, ServiceSelectors } from './service-index.js';
import type { ControllerDeps, Reconciler, WatchSpec } from './controller.js';
import { resolveTargetPort } from './endpointslice.js';
import {
  arr,
  isDeleting,
  isPodReady,
  keyOf,
  meta,
  nameOf,
  namespaceOf,
  obj,
  selectorMatches,
  splitKey,
  statusCode,
} from './util.js';

const MANAGER = 'endpoint-controller';

function hasSelector(svc: JsonObject): boolean {
  return Object.keys(obj(obj(svc.spec).selector)).length > 0;
}

function address(pod: JsonObject): JsonObject {
  const a: JsonObject = {
    ip: obj(pod.status).podIP,
    targetRef: { kind: 'Pod', namespace: namespaceOf(pod), name: nameOf(pod), uid: meta(pod).uid },
  };
  if (obj(pod.spec).nodeName) a.nodeName = obj(pod.spec).nodeName;
  return a;
}

/** The subsets: one per distinct port set (pods resolving named ports differently land apart). */
export function endpointSubsets(svc: JsonObject, pods: JsonObject[]): JsonObject[] {
  const publishNotReady = obj(svc.spec).publishNotReadyAddresses === true;
  const subsets = new Map<string, JsonObject>();
  for (const pod of pods) {
    if (!obj(pod.status).podIP || (isDeleting(pod) && !publishNotReady)) continue;
    const ports = arr(obj(svc.spec).ports)
      .map(obj)
      .flatMap((sp) => {
        const port = resolveTargetPort(pod, sp);
        return port === undefined
          ? []
          : [
              {
                ...(sp.name ? { name: sp.name } : {}),
                port,
                protocol: sp.protocol ?? 'TCP',
                ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
              },
            ];
      });
    const id = JSON.stringify(ports);
    const subset = subsets.get(id) ?? { ports };
    const list = isPodReady(pod) || publishNotReady ? 'addresses' : 'notReadyAddresses';
    subset[list] = [...arr(subset[list]), address(pod)];
    subsets.set(id, subset);
  }
  return [...subsets.values()].map((s) => ({
    ...(s.addresses ? { addresses: s.addresses } : {}),
    ...(s.notReadyAddresses ? { notReadyAddresses: s.notReadyAddresses } : {}),
    ports: s.ports,
  }));
}

export class EndpointsController implements Reconciler {
  readonly name = 'endpoints';
  readonly watches: WatchSpec[] = [
    { resource: 'services', keys: (o, ev) => (this.selectors.noteService(o, ev), [keyOf(o)]) },
    { resource: 'pods', keys: (o, ev) => this.selectors.servicesFor(o, ev) },
    { resource: 'endpoints', keys: (o) => [keyOf(o)] },
  ];

  private readonly selectors = new ServiceSelectors();

  constructor(private readonly deps: ControllerDeps) {}

  reconcile(key: string): void {
    const { api } = this.deps;
    const [namespace, name] = splitKey(key);
    const svc = api.tryGet('services', namespace, name);
    const current = api.tryGet('endpoints', namespace, name);
    if (!svc) {
      if (current && obj(meta(current).labels)['endpointslice.kubernetes.io/skip-mirror'] === 'true') {
        try {
          api.delete('endpoints', namespace, name);
        } catch (err) {
          if (statusCode(err) !== 404) throw err;
        }
      }
      return;
    }
    if (isDeleting(svc) || !hasSelector(svc)) return;
    const pods = api
      .list('pods', { namespace, labelSelector: equalitySelector(obj(obj(svc.spec).selector)) })
      .items.filter(
        (p) =>
          selectorMatches({ matchLabels: obj(svc.spec).selector }, meta(p).labels) &&
          !['Succeeded', 'Failed'].includes(String(obj(p.status).phase)),
      )
      .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    const subsets = endpointSubsets(svc, pods);
    const labels: JsonObject = { ...obj(meta(svc).labels), 'endpointslice.kubernetes.io/skip-mirror': 'true' };
    if (obj(svc.spec).clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
    if (current && jsonEqual(arr(current.subsets), subsets) && jsonEqual(obj(meta(current).labels), labels)) return;
    const body: JsonObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { ...(current ? meta(current) : { name, namespace }), labels },
    };
    if (subsets.length) body.subsets = subsets;
    if (current) api.update('endpoints', body, { fieldManager: MANAGER });
    else api.create('endpoints', body, { fieldManager: MANAGER });
  }
}
