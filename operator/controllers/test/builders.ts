/**
 * Fixture builders: `orchestrator('prod', withReplicas(3), withLicense('acme'))`. Each returns a plain
 * manifest (KubeObject) for the test cluster; `parsed(...)` gives the typed resource the pure functions take.
 */
import { API_VERSION } from '../../../api/constants.js';
import type { KubeObject } from '../../../platform/kube/client.js';

export type Manifest = KubeObject & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec: Record<string, unknown>;
};
export type Option = (m: Manifest) => void;

export const NS = 'default';

function build(kind: string, name: string, spec: Record<string, unknown>, options: Option[]): Manifest {
  const m: Manifest = {
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: NS, uid: `uid-${name}`, generation: 1 },
    spec,
  };
  for (const o of options) o(m);
  return m;
}

export const orchestrator = (name: string, ...options: Option[]): Manifest => build('Orchestrator', name, {}, options);
export const agentConfig = (name: string, ...options: Option[]): Manifest =>
  build(
    'AgentConfig',
    name,
    { type: 'specialist', domain: 'travel', llm: { provider: 'openai', model: 'gpt-4o-mini' } },
    options,
  );
export const policy = (name: string, rego: string, ...options: Option[]): Manifest =>
  build('Policy', name, { type: 'custom', rego }, options);
export const connector = (name: string, ...options: Option[]): Manifest =>
  build('Connector', name, { type: 'postgres', connection: {} }, options);
export const license = (name: string, secret: string, ...options: Option[]): Manifest =>
  build('License', name, { organizationId: 'acme', keySecretRef: { name: secret, key: 'key' } }, options);

export function secret(name: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

const spec = (m: Manifest) => m.spec;

/** Orchestrator: both components' replicas (or only the gateway's with `component`). */
export const withReplicas =
  (n: number, component?: 'gateway' | 'orchestrator'): Option =>
  (m) => {
    if (m.kind === 'AgentConfig') spec(m).replicas = n;
    else for (const c of component ? [component] : ['gateway', 'orchestrator']) spec(m)[c] = { replicas: n };
  };
export const withLicense =
  (name: string): Option =>
  (m) =>
    void (spec(m).licenseRef = { name });
export const withCommunityMode = (): Option => (m) => void (spec(m).communityMode = true);
export const withDatabase =
  (name: string, key = 'url'): Option =>
  (m) =>
    void (spec(m).database = { secretRef: { name, key } });
export const withRedis =
  (name: string, key = 'url'): Option =>
  (m) =>
    void (spec(m).redis = { secretRef: { name, key } });
export const withTls =
  (secretName: string): Option =>
  (m) =>
    void (spec(m).tls = { secretName });
export const withIngress =
  (host?: string): Option =>
  (m) =>
    void (spec(m).ingress = { enabled: true, ...(host ? { host } : {}) });
export const withImage =
  (repository: string, tag: string): Option =>
  (m) =>
    void (spec(m).image = { repository, tag, pullPolicy: 'IfNotPresent' });
export const withProvider =
  (
    p: { name: string; type: string; model: string; endpoint?: string; secretRef?: { name: string; key: string } },
    isDefault = false,
  ): Option =>
  (m) => {
    const llm = (spec(m).llm ??= { providers: [] }) as { providers: unknown[]; defaultProvider?: string };
    llm.providers.push(p);
    if (isDefault) llm.defaultProvider = p.name;
  };
export const withPoolSelector =
  (matchLabels: Record<string, string>): Option =>
  (m) =>
    void (spec(m).agentPool = { selector: { matchLabels } });
export const withLabels =
  (labels: Record<string, string>): Option =>
  (m) =>
    void (m.metadata.labels = { ...m.metadata.labels, ...labels });
export const withGeneration =
  (g: number): Option =>
  (m) =>
    void (m.metadata.generation = g);
export const withRegoVersion =
  (v: 'v0' | 'v1'): Option =>
  (m) =>
    void (spec(m).regoVersion = v);
export const withWasm =
  (wasm: Record<string, unknown>): Option =>
  (m) => {
    delete spec(m).rego;
    spec(m).wasm = wasm;
  };
export const withConnectionSecret =
  (name: string, key = 'url'): Option =>
  (m) =>
    void (spec(m).connection = { secretRef: { name, key } });
export const withStatus =
  (status: Record<string, unknown>): Option =>
  (m) =>
    void (m.status = status);

/** What the test cluster should store: no uid or generation (the server sets them). */
export function manifest(m: Manifest): KubeObject {
  const { uid: _uid, generation: _generation, ...metadata } = m.metadata;
  const { status: _status, ...rest } = m;
  return { ...rest, metadata };
}
