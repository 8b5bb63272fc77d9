/**
 * A container's environment as the kubelet builds it: service variables, then `envFrom`, then `env`
 * (with `$(VAR)` expansion and valueFrom secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef).
 */
import { isObject, type JsonObject } from '../schema/types.js';

export interface EnvSources {
  secret(name: string): JsonObject | undefined;
  configMap(name: string): JsonObject | undefined;
  /** `NAME_SERVICE_HOST`/`_PORT`... for the Services that exist when the pod starts. */
  serviceVars: Record<string, string>;
}

export class EnvError extends Error {
  /** The container waits with this reason (CreateContainerConfigError). */
  readonly reason = 'CreateContainerConfigError';
}

const o = (v: unknown): JsonObject => (isObject(v) ? v : {});
const a = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** `$(VAR)` → its value when defined, `$$` → `$`; unknown references stay as written (Kubernetes' rule). */
export function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    return name !== undefined && Object.prototype.hasOwnProperty.call(vars, name) ? vars[name]! : m;
  });
}

function fieldValue(pod: JsonObject, path: string): string {
  const meta = o(pod.metadata);
  const labelMatch = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (labelMatch) return String(o(meta[labelMatch[1]!])[labelMatch[2]!] ?? '');
  const fields: Record<string, unknown> = {
    'metadata.name': meta.name,
    'metadata.namespace': meta.namespace,
    'metadata.uid': meta.uid,
    'spec.nodeName': o(pod.spec).nodeName,
    'spec.serviceAccountName': o(pod.spec).serviceAccountName,
    'status.hostIP': o(pod.status).hostIP,
    'status.podIP': o(pod.status).podIP,
    'status.podIPs': a(o(pod.status).podIPs)
      .map((p) => o(p).ip)
      .join(','),
    'status.hostIPs': a(o(pod.status).hostIPs)
      .map((p) => o(p).ip)
      .join(','),
  };
  if (!(path in fields)) throw new EnvError(`unsupported fieldRef ${path}`);
  return String(fields[path] ?? '');
}

/** Bytes for "128Mi", cores for "500m"... divided by `divisor`, rounded up (as the kubelet reports). */
export function quantity(v: unknown): number {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(v ?? ''));
  if (!m) return 0;
  const units: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
  };
  return Number(m[1]) * (units[m[2]!] ?? 1);
}

function resourceValue(container: JsonObject, ref: JsonObject): string {
  const [kind, res] = String(ref.resource ?? '').split('.');
  const r = o(o(container.resources)[kind === 'requests' ? 'requests' : 'limits']);
  const divisor = quantity(ref.divisor ?? 1) || 1;
  // Unset limits report the node's allocatable; this node claims 2 cores and 8Gi.
  const value =
    r[res!] !== undefined
      ? quantity(r[res!])
      : res === 'cpu'
        ? kind === 'requests'
          ? 0
          : 2
        : kind === 'requests'
          ? 0
          : 8 * 1024 ** 3;
  return String(Math.ceil(value / divisor));
}

function dataOf(source: JsonObject, secret: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o(source.data)))
    out[k] = secret ? Buffer.from(String(v), 'base64').toString('utf8') : String(v);
  if (!secret)
    for (const [k, v] of Object.entries(o(source.binaryData)))
      out[k] = Buffer.from(String(v), 'base64').toString('utf8');
  return out;
}

function refValue(kind: 'secret' | 'configMap', ref: JsonObject, src: EnvSources): string | undefined {
  const name = String(ref.name ?? '');
  const source = kind === 'secret' ? src.secret(name) : src.configMap(name);
  const label = kind === 'secret' ? 'secret' : 'configmap';
  if (!source) {
    if (ref.optional === true) return undefined;
    throw new EnvError(`${label} "${name}" not found`);
  }
  const data = dataOf(source, kind === 'secret');
  const key = String(ref.key ?? '');
  if (!(key in data)) {
    if (ref.optional === true) return undefined;
    throw new EnvError(
      `couldn't find key ${key} in ${kind === 'secret' ? 'Secret' : 'ConfigMap'} ${String(o(source.metadata).namespace)}/${name}`,
    );
  }
  return data[key];
}

/** The environment of `container` in `pod`; throws EnvError when a required reference is missing. */
export function containerEnv(pod: JsonObject, container: JsonObject, src: EnvSources): Record<string, string> {
  const vars: Record<string, string> = { ...src.serviceVars };
  for (const f of a(container.envFrom).map(o)) {
    const prefix = String(f.prefix ?? '');
    const kind = f.secretRef ? 'secret' : 'configMap';
    const ref = o(f.secretRef ?? f.configMapRef);
    const name = String(ref.name ?? '');
    const source = kind === 'secret' ? src.secret(name) : src.configMap(name);
    if (!source) {
      if (ref.optional === true) continue;
      throw new EnvError(`${kind === 'secret' ? 'secret' : 'configmap'} "${name}" not found`);
    }
    for (const [k, v] of Object.entries(dataOf(source, kind === 'secret'))) vars[prefix + k] = v;
  }
  for (const e of a(container.env).map(o)) {
    const name = String(e.name ?? '');
    if (typeof e.value === 'string') vars[name] = expand(e.value, vars);
    else if (isObject(e.valueFrom)) {
      const vf = e.valueFrom;
      let v: string | undefined;
      if (isObject(vf.secretKeyRef)) v = refValue('secret', vf.secretKeyRef, src);
      else if (isObject(vf.configMapKeyRef)) v = refValue('configMap', vf.configMapKeyRef, src);
      else if (isObject(vf.fieldRef)) v = fieldValue(pod, String(vf.fieldRef.fieldPath ?? ''));
      else if (isObject(vf.resourceFieldRef)) v = resourceValue(container, vf.resourceFieldRef);
      if (v !== undefined) vars[name] = v;
    } else vars[name] = '';
  }
  return vars;
}

/** Kubernetes' service variables: `MY_SVC_SERVICE_HOST`, `MY_SVC_SERVICE_PORT`, `MY_SVC_PORT_80_TCP...`. */
export function serviceEnv(
  services: { name: string; host: string; ports: { name?: string; port: number; protocol: string }[] }[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of services) {
    const p0 = s.ports[0];
    if (!p0) continue;
    const n = s.name.toUpperCase().replace(/-/g, '_');
    out[`${n}_SERVICE_HOST`] = s.host;
    out[`${n}_SERVICE_PORT`] = String(p0.port);
    for (const p of s.ports)
      if (p.name) out[`${n}_SERVICE_PORT_${p.name.toUpperCase().replace(/-/g, '_')}`] = String(p.port);
    out[`${n}_PORT`] = `${p0.protocol.toLowerCase()}://${s.host}:${p0.port}`;
    for (const p of s.ports) {
      const base = `${n}_PORT_${p.port}_${p.protocol}`;
      out[base] = `${p.protocol.toLowerCase()}://${s.host}:${p.port}`;
      out[`${base}_PROTO`] = p.protocol.toLowerCase();
      out[`${base}_PORT`] = String(p.port);
      out[`${base}_ADDR`] = s.host;
    }
  }
  return out;
}
