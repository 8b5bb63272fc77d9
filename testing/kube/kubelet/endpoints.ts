/**
 * Which pods serve a Service port: the ready endpoints of its EndpointSlices (label
 * kubernetes.io/service-name), or — when the Service has no slices — of the pods its selector matches.
 */
import { isObject, type JsonObject } from '../schema/types.js';
import { portOf } from './probes.js';

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});
const a = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface Endpoint {
  ip: string;
  port: number;
  /** The pod behind the address, when known. */
  pod?: string;
}

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

function podReady(pod: JsonObject): boolean {
  if (o(pod.metadata).deletionTimestamp) return false;
  return a(o(pod.status).conditions)
    .map(o)
    .some((c) => c.type === 'Ready' && c.status === 'True');
}

function selects(selector: JsonObject, pod: JsonObject): boolean {
  const labels = o(o(pod.metadata).labels);
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([k, v]) => labels[k] === v);
}

/** The Service port named or numbered `port` ('' means the only/first one). */
export function servicePort(service: JsonObject, port: string): JsonObject | undefined {
  const ports = a(o(service.spec).ports).map(o);
  if (port === '') return ports[0];
  return ports.find((p) => p.name === port || String(p.port) === port);
}

/** The target port of `svcPort` on `pod` (a named targetPort is looked up in the pod's containers). */
function targetOn(svcPort: JsonObject, pod: JsonObject): number | undefined {
  const target = svcPort.targetPort ?? svcPort.port;
  if (typeof target === 'number') return target;
  for (const c of a(o(pod.spec).containers).map(o)) {
    const n = portOf(target, c);
    if (Number.isInteger(n)) return n;
  }
  return undefined;
}

export function endpointsFor(
  service: JsonObject,
  svcPort: JsonObject,
  slices: JsonObject[],
  pods: JsonObject[],
): Endpoint[] {
  const name = String(o(service.metadata).name);
  const own = slices.filter((s) => o(o(s.metadata).labels)[SERVICE_NAME_LABEL] === name);
  if (own.length > 0) {
    const out: Endpoint[] = [];
    for (const s of own) {
      const p = a(s.ports)
        .map(o)
        .find((x) => (x.name ?? '') === (svcPort.name ?? ''));
      if (!p || typeof p.port !== 'number') continue;
      for (const e of a(s.endpoints).map(o)) {
        if (o(e.conditions).ready === false) continue;
        for (const ip of a(e.addresses))
          out.push({ ip: String(ip), port: p.port, pod: o(e.targetRef).name as string | undefined });
      }
    }
    return out;
  }
  const selector = o(o(service.spec).selector);
  return pods
    .filter((p) => selects(selector, p) && podReady(p) && o(p.status).podIP)
    .flatMap((p) => {
      const port = targetOn(svcPort, p);
      return port === undefined ? [] : [{ ip: String(o(p.status).podIP), port, pod: String(o(p.metadata).name) }];
    });
}
