/**
 * Service networking for pods run as processes: a PortProxy per Service port on the Service's
 * reachable address, the Kubernetes service variables, a hosts file for the DNS preload
 * (`NAME`, `NAME.NS`, `NAME.NS.svc`, `NAME.NS.svc.cluster.local`), and endpoint choice for the API
 * server's services/pods proxy subresources.
 */
import { writeFileSync } from 'node:fs';
import type { ClusterApi } from '../client.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { serviceUnavailable } from '../status-errors.js';
import { endpointsFor, servicePort } from './endpoints.js';
import { serviceEnv } from './env.js';
import { Informer, keyOf } from './informer.js';
import { PortProxy } from './service-proxy.js';

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});
const a = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The address a process can connect to: the clusterIP when in 127/8, else 127.96.C.D for A.B.C.D. */
export function reachableIP(clusterIP: string): string {
  if (clusterIP.startsWith('127.')) return clusterIP;
  const p = clusterIP.split('.');
  return `127.96.${p[2] ?? 0}.${p[3] ?? 0}`;
}

export interface ProxyTarget {
  host: string;
  port: number;
}

export class Network {
  private readonly services: Informer;
  private readonly slices: Informer;
  private readonly pods: Informer;
  private readonly proxies = new Map<string, PortProxy[]>();
  private readonly next = new Map<string, number>();
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ClusterApi,
    private readonly hostsFile: string,
    private readonly log: (msg: string) => void,
  ) {
    this.services = new Informer(api, 'services', {}, (change, svc) => this.serviceChanged(change, svc));
    this.slices = new Informer(api, 'endpointslices.discovery.k8s.io', {}, () => {});
    this.pods = new Informer(api, 'pods', {}, () => {});
    this.writeHosts();
  }

  start(): void {
    this.pods.start();
    this.slices.start();
    this.services.start();
  }

  /** Resolves once proxy listeners opened or closed so far are settled. */
  settled(): Promise<void> {
    return this.pending;
  }

  private serviceChanged(change: 'upsert' | 'delete', svc: JsonObject): void {
    const key = keyOf(svc);
    const ip = String(o(svc.spec).clusterIP ?? '');
    const wanted =
      change === 'upsert' && ip && ip !== 'None'
        ? a(o(svc.spec).ports)
            .map(o)
            .filter((p) => (p.protocol ?? 'TCP') === 'TCP')
        : [];
    const current = this.proxies.get(key) ?? [];
    const same =
      current.length === wanted.length &&
      current.every((p, i) => p.host === reachableIP(ip) && p.port === wanted[i]!.port);
    if (!same) {
      const next = wanted.map(
        (p) => new PortProxy(reachableIP(ip), Number(p.port), () => this.endpointsOf(key, p), this.log),
      );
      this.proxies.set(key, next);
      if (next.length === 0) this.proxies.delete(key);
      this.pending = this.pending.then(async () => {
        await Promise.all(current.map((p) => p.close()));
        await Promise.all(next.map((p) => p.listen()));
      });
    }
    this.writeHosts();
  }

  private endpointsOf(serviceKey: string, port: JsonObject): ReturnType<typeof endpointsFor> {
    const svc = this.services.cache.get(serviceKey);
    if (!svc) return [];
    const ns = String(o(svc.metadata).namespace);
    const fresh = servicePort(svc, String(port.name ?? port.port)) ?? port;
    const inNs = (x: JsonObject): boolean => o(x.metadata).namespace === ns;
    return endpointsFor(svc, fresh, this.slices.values().filter(inNs), this.pods.values().filter(inNs));
  }

  /** `{ "web.default.svc.cluster.local": "127.96.0.11" }` for every Service with a cluster IP. */
  private writeHosts(): void {
    const hosts: Record<string, string> = {};
    for (const svc of this.services.values()) {
      const ip = String(o(svc.spec).clusterIP ?? '');
      if (!ip || ip === 'None') continue;
      const m = o(svc.metadata);
      hosts[`${String(m.name)}.${String(m.namespace)}.svc.cluster.local`] = reachableIP(ip);
    }
    writeFileSync(this.hostsFile, JSON.stringify(hosts));
  }

  /** Service variables for a pod starting in `namespace` now. */
  serviceVars(namespace: string): Record<string, string> {
    const list = this.services
      .values()
      .filter((s) => o(s.metadata).namespace === namespace && o(s.spec).clusterIP && o(s.spec).clusterIP !== 'None')
      .map((s) => ({
        name: String(o(s.metadata).name),
        host: reachableIP(String(o(s.spec).clusterIP)),
        ports: a(o(s.spec).ports)
          .map(o)
          .map((p) => ({
            name: p.name as string | undefined,
            port: Number(p.port),
            protocol: String(p.protocol ?? 'TCP'),
          })),
      }));
    return serviceEnv(list);
  }

  /**
   * Where `services/NAME[:PORT]/proxy` or `pods/NAME[:PORT]/proxy` goes: the next ready endpoint of the
   * Service port (round robin), or the pod's IP.
   */
  proxyTarget(resource: 'services' | 'pods', namespace: string, nameAndPort: string): ProxyTarget {
    const parts = nameAndPort.split(':');
    if (parts.length === 3) parts.shift(); // scheme:name:port
    const [name = '', port = ''] = parts;
    if (resource === 'pods') {
      const pod = this.api.tryGet('pods', namespace, name);
      const ip = pod ? o(pod.status).podIP : undefined;
      if (!pod || !ip) throw serviceUnavailable(`pod ${name} has no IP yet`);
      const p = port === '' ? 80 : Number(port);
      const named = a(o(pod.spec).containers)
        .flatMap((c) => a(o(c).ports).map(o))
        .find((x) => x.name === port);
      return { host: String(ip), port: Number.isInteger(p) ? p : Number(named?.containerPort) };
    }
    const svc = this.api.tryGet('services', namespace, name);
    const sp = svc ? servicePort(svc, port) : undefined;
    if (!svc || !sp) throw serviceUnavailable(`no endpoints available for service "${name}"`);
    const eps = endpointsFor(
      svc,
      sp,
      this.api.list('endpointslices.discovery.k8s.io', { namespace }).items,
      this.api.list('pods', { namespace }).items,
    );
    if (eps.length === 0) throw serviceUnavailable(`no endpoints available for service "${name}"`);
    const key = `${namespace}/${name}/${String(sp.port)}`;
    const i = this.next.get(key) ?? 0;
    this.next.set(key, i + 1);
    const ep = eps[i % eps.length]!;
    return { host: ep.ip, port: ep.port };
  }

  async close(): Promise<void> {
    this.services.stop();
    this.slices.stop();
    this.pods.stop();
    await this.pending;
    await Promise.all([...this.proxies.values()].flat().map((p) => p.close()));
    this.proxies.clear();
  }
}
