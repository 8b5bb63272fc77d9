/**
 * Service: defaulting (type, ports, IP families), ClusterIP and NodePort allocation, and the update
 * rules that keep allocated values (a PUT without clusterIP keeps it; changing it is refused).
 */
import { fieldErrors, GoRepr, type FieldError } from '../status-errors.js';
import { isObject, type JsonObject } from '../schema/types.js';
import { dns1035LabelErrors } from '../validation/names.js';
import { ageColumn, arr, builtin, col, combine, dflt, obj, statusStrategy } from './define.js';

/**
 * Hands out ClusterIPs from 127.96.0.0/16 and NodePorts from 30000-32767, never reusing within a run.
 * NB: a loopback range (not upstream's 10.96.0.0/12) so the kubelet's service proxies can listen on the
 * very address the object shows: Linux routes all of 127/8 to lo.
 */
class Allocator {
  // NB: each process starts at its own block of 1000 addresses (by pid), so service proxies of test files
  // running in parallel do not listen on the same address.
  private ip = 10 + (process.pid % 60) * 1000;
  private port = 30000;

  clusterIP(): string {
    const n = this.ip++;
    return `127.96.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  }

  nodePort(): number {
    const p = this.port++;
    if (this.port > 32767) this.port = 30000;
    return p;
  }
}

const alloc = new Allocator();

function needsClusterIP(spec: JsonObject): boolean {
  return spec.type !== 'ExternalName' && spec.clusterIP !== 'None';
}

function needsNodePort(spec: JsonObject): boolean {
  return spec.type === 'NodePort' || spec.type === 'LoadBalancer';
}

function defaults(o: JsonObject): void {
  if (!isObject(o.spec)) o.spec = {};
  const spec = o.spec as JsonObject;
  dflt(spec, 'type', 'ClusterIP');
  dflt(spec, 'sessionAffinity', 'None');
  for (const p of arr(spec.ports)) {
    if (!isObject(p)) continue;
    dflt(p, 'protocol', 'TCP');
    dflt(p, 'targetPort', p.port);
  }
  if (spec.type !== 'ExternalName') {
    dflt(spec, 'internalTrafficPolicy', 'Cluster');
    dflt(spec, 'ipFamilies', ['IPv4']);
    dflt(spec, 'ipFamilyPolicy', 'SingleStack');
  }
  if (needsNodePort(spec)) dflt(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') dflt(spec, 'allocateLoadBalancerNodePorts', true);
}

function allocate(spec: JsonObject): void {
  if (needsClusterIP(spec)) {
    if (!spec.clusterIP) spec.clusterIP = alloc.clusterIP();
    dflt(spec, 'clusterIPs', [spec.clusterIP]);
  } else if (spec.clusterIP === 'None') {
    dflt(spec, 'clusterIPs', ['None']);
  }
  if (needsNodePort(spec)) for (const p of arr(spec.ports)) if (isObject(p)) dflt(p, 'nodePort', alloc.nodePort());
}

/** patchAllocatedValues: values the server allocated survive an update that leaves them out. */
function keepAllocated(spec: JsonObject, old: JsonObject): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (!spec.clusterIP) spec.clusterIP = old.clusterIP;
    if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) spec.clusterIPs = old.clusterIPs;
  }
  if (needsNodePort(old) && needsNodePort(spec)) {
    const oldPorts = arr(old.ports).map(obj);
    for (const p of arr(spec.ports)) {
      if (!isObject(p) || p.nodePort) continue;
      const match = oldPorts.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match?.nodePort) p.nodePort = match.nodePort;
    }
  }
}

function validate(o: JsonObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
  if (!types.includes(String(spec.type))) errs.push(fieldErrors.notSupported('spec.type', spec.type, types));
  const ports = arr(spec.ports);
  if (ports.length === 0 && spec.type !== 'ExternalName' && spec.clusterIP !== 'None')
    errs.push(fieldErrors.required('spec.ports'));
  ports.forEach((p, i) => {
    const port = obj(p).port;
    if (typeof port !== 'number' || port < 1 || port > 65535) {
      errs.push(fieldErrors.invalid(`spec.ports[${i}].port`, port ?? 0, 'must be between 1 and 65535, inclusive'));
    }
    if (ports.length > 1 && !obj(p).name) errs.push(fieldErrors.required(`spec.ports[${i}].name`));
  });
  if (spec.type === 'ExternalName' && !spec.externalName) errs.push(fieldErrors.required('spec.externalName'));
  return errs;
}

function goStrings(v: unknown): GoRepr {
  return new GoRepr(
    Array.isArray(v) ? `[]string{${v.map((x) => JSON.stringify(String(x))).join(', ')}}` : '[]string(nil)',
  );
}

function validateUpdate(n: JsonObject, old: JsonObject): FieldError[] {
  const ns = obj(n.spec);
  const os = obj(old.spec);
  const errs: FieldError[] = [];
  const oldIPs = arr(os.clusterIPs);
  const newIPs = arr(ns.clusterIPs);
  if (needsClusterIP(ns) && needsClusterIP(os)) {
    if (newIPs.length === 0 && oldIPs.length > 0)
      errs.push(
        fieldErrors.invalid('spec.clusterIPs[0]', goStrings(ns.clusterIPs), 'primary clusterIP can not be unset'),
      );
    else if (oldIPs.length && newIPs[0] !== oldIPs[0])
      errs.push(fieldErrors.invalid('spec.clusterIPs[0]', goStrings(ns.clusterIPs), 'may not change once set'));
  }
  return errs;
}

export const services = builtin({
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  model: 'V1Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  status: true,
  returnDeletedObject: true,
  nameValidator: (name, prefix) => dns1035LabelErrors(prefix && name.endsWith('-') ? `${name.slice(0, -1)}a` : name),
  columns: [
    col('Type', 'string', (o) => obj(o.spec).type ?? ''),
    col('Cluster-IP', 'string', (o) => obj(o.spec).clusterIP ?? '<none>'),
    col('External-IP', 'string', (o) => {
      const ingress = arr(obj(obj(obj(o.status).loadBalancer)).ingress).map((x) => obj(x).ip ?? obj(x).hostname);
      const external = [...arr(obj(o.spec).externalIPs), ...ingress].filter(Boolean);
      if (external.length) return external.join(',');
      if (obj(o.spec).type === 'ExternalName') return obj(o.spec).externalName ?? '<none>';
      return obj(o.spec).type === 'LoadBalancer' ? '<pending>' : '<none>';
    }),
    col('Port(s)', 'string', (o) => {
      const ports = arr(obj(o.spec).ports).map((p) => {
        const q = obj(p);
        return q.nodePort
          ? `${String(q.port)}:${String(q.nodePort)}/${String(q.protocol ?? 'TCP')}`
          : `${String(q.port)}/${String(q.protocol ?? 'TCP')}`;
      });
      return ports.length ? ports.join(',') : '<none>';
    }),
    ageColumn(),
    col(
      'Selector',
      'string',
      (o) => {
        const sel = obj(obj(o.spec).selector);
        const parts = Object.entries(sel).map(([k, v]) => `${k}=${String(v)}`);
        return parts.length ? parts.join(',') : '<none>';
      },
      1,
    ),
  ],
  strategy: combine(
    statusStrategy(() => ({ loadBalancer: {} })),
    {
      defaults,
      prepareForCreate: (o) => allocate(obj(o.spec)),
      prepareForUpdate(n, old) {
        keepAllocated(obj(n.spec), obj(old.spec));
        allocate(obj(n.spec));
      },
      validate,
      validateUpdate,
    },
  ),
});
