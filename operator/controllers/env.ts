/**
 * The environment of the runtime pods, as docs/cluster-mode.md lists it: the names are the contract of
 * `api/pod-env.ts`, which the runtimes' parser (cmd/config/env.ts) reads too. Pure: imports only api/ and types.
 */
import type { V1EnvVar } from '@kubernetes/client-node';
import { LLM_ENV, POD_ENV as E } from '../../api/pod-env.js';
import type { OrchestratorResource } from '../../api/resources.js';
import { INTERNAL_KEYS, PORTS, names } from './meta.js';

/** Where the orchestrator's TLS Secret is mounted. */
export const TLS_MOUNT_PATH = '/etc/steward/tls';
/** Where the gateway pods find the audit signing key of `O-internal`. */
export const AUDIT_KEY_MOUNT_PATH = '/etc/steward/audit';
export const AUDIT_KEY_FILE = `${AUDIT_KEY_MOUNT_PATH}/audit-signing-key.pem`;
/** Where the gateway pods find the A2A card signing key of `O-internal`. */
export const A2A_KEY_MOUNT_PATH = '/etc/steward/a2a';
export const A2A_CARD_KEY_NAME = 'a2a-card-key.pem';

const fieldRef = (name: string, fieldPath: string): V1EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });
const secretRef = (name: string, ref: { name: string; key: string }, optional?: boolean): V1EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: ref.name, key: ref.key, ...(optional ? { optional: true } : {}) } },
});
const values = (settings: Record<string, string>, keys: readonly string[]): V1EnvVar[] =>
  keys.filter((k) => settings[k] !== undefined).map((k) => ({ name: k, value: settings[k]! }));

/** `http(s)://O-orchestrator.NS.svc:8081` and the gateway's URL (`status.endpoints`, `STEWARD_ORCHESTRATOR_URL`). */
export function endpoints(o: OrchestratorResource): { gateway: string; orchestrator: string } {
  const ns = o.metadata.namespace;
  return {
    gateway: `http://${names.gateway(o.metadata.name)}.${ns}.svc:${PORTS.gateway}`,
    orchestrator: `${o.spec.tls ? 'https' : 'http'}://${names.orchestrator(o.metadata.name)}.${ns}.svc:${PORTS.orchestrator}`,
  };
}

/**
 * The gateway as clients reach it: the Ingress host when there is one (https with its TLS Secret), else the gateway
 * Service. What the A2A cards name (STEWARD_PUBLIC_URL) and what AgentConfig status shows.
 */
export function publicUrl(o: OrchestratorResource): string {
  const ingress = o.spec.ingress;
  if (ingress?.enabled && ingress.host) return `${ingress.tlsSecretName ? 'https' : 'http'}://${ingress.host}`;
  return endpoints(o).gateway;
}

type Provider = NonNullable<OrchestratorResource['spec']['llm']>['providers'][number];

/** One provider per type (docs/cluster-mode.md): the first of each type wins. */
function providersByType(o: OrchestratorResource): Provider[] {
  const seen = new Set<string>();
  return (o.spec.llm?.providers ?? []).filter((p) => !seen.has(p.type) && seen.add(p.type));
}

/**
 * The non-secret settings every component shares: the data of the `O-config` ConfigMap, hashed into the pod
 * templates, and set as plain env values in the containers.
 */
export function sharedSettings(o: OrchestratorResource): Record<string, string> {
  const out: Record<string, string> = {
    [E.source]: 'kubernetes',
    [E.orchestratorName]: o.metadata.name,
    [E.logFormat]: 'json',
    [E.communityMode]: String(o.spec.communityMode),
    [E.orchestratorUrl]: endpoints(o).orchestrator,
    // the gateway that runs plans' connector-call steps for the orchestrator (runtime/orchestrator/plan/steps.ts)
    [E.gatewayUrl]: endpoints(o).gateway,
  };
  for (const p of providersByType(o)) {
    const vars: { endpoint?: string; model: string; region?: string } = LLM_ENV[p.type];
    out[vars.model] = p.model;
    if (vars.endpoint && p.endpoint) out[vars.endpoint] = p.endpoint;
    if (vars.region && p.region) out[vars.region] = p.region;
  }
  const def = o.spec.llm?.providers.find((p) => p.name === o.spec.llm?.defaultProvider);
  if (def) out[E.llmDefaultProvider] = def.type;
  const { prices, defaultPrice } = o.spec.llm ?? {};
  if (prices && Object.keys(prices).length) out[E.modelPrices] = JSON.stringify(prices);
  if (defaultPrice)
    out[E.defaultModelPrice] = [defaultPrice.input, defaultPrice.output, defaultPrice.cachedInput]
      .filter((v) => v !== undefined)
      .join(',');
  return out;
}

/** `STEWARD_SOURCE` ... `LOG_FORMAT`: what all three components get. */
function commonEnv(settings: Record<string, string>): V1EnvVar[] {
  return [
    ...values(settings, [E.source]),
    fieldRef(E.namespace, 'metadata.namespace'),
    fieldRef(E.podName, 'metadata.name'),
    ...values(settings, [E.orchestratorName]),
    ...values(settings, [E.logFormat]),
  ];
}

/** The providers of `spec.llm`: plain values from the settings, API keys from their Secrets. */
function llmEnv(o: OrchestratorResource, settings: Record<string, string>): V1EnvVar[] {
  const out: V1EnvVar[] = [];
  for (const p of providersByType(o)) {
    const vars: { key?: string; endpoint?: string; model: string; region?: string } = LLM_ENV[p.type];
    if (vars.key && p.secretRef) out.push(secretRef(vars.key, p.secretRef));
    out.push(
      ...values(
        settings,
        [vars.model, vars.endpoint, vars.region].filter((v): v is string => v !== undefined),
      ),
    );
  }
  return [...out, ...values(settings, [E.llmDefaultProvider])];
}

/** What the gateway and the orchestrator share: the databases, the internal secrets, community mode. */
function serverEnv(o: OrchestratorResource, settings: Record<string, string>): V1EnvVar[] {
  const internal = names.internal(o.metadata.name);
  return [
    ...(o.spec.database ? [secretRef(E.databaseUrl, o.spec.database.secretRef)] : []),
    ...(o.spec.redis ? [secretRef(E.redisUrl, o.spec.redis.secretRef)] : []),
    secretRef(E.internalSecret, { name: internal, key: INTERNAL_KEYS.internalSecret }),
    // NB: optional: the key is absent when the operator has no signing secret configured.
    secretRef(E.licenseSigningSecret, { name: internal, key: INTERNAL_KEYS.licenseSigningSecret }, true),
    ...values(settings, [E.communityMode]),
    // NB: both charge budgets (the gateway its routes' calls, the orchestrator plan steps and parallel queries).
    ...values(settings, [E.modelPrices, E.defaultModelPrice]),
  ];
}

export function gatewayEnv(o: OrchestratorResource): V1EnvVar[] {
  const s = sharedSettings(o);
  return [
    ...commonEnv(s),
    { name: E.gatewayPort, value: String(PORTS.gateway) },
    ...values(s, [E.orchestratorUrl]),
    { name: E.publicUrl, value: publicUrl(o) },
    ...(o.spec.console?.enabled === false ? [{ name: E.console, value: 'false' }] : []),
    ...serverEnv(o, s),
    // NB: the gateways sign the audit chains' checkpoints (runtime/audit/evidence.ts).
    { name: E.auditSigningKeyFile, value: AUDIT_KEY_FILE },
    { name: E.a2aSigningKeyFile, value: `${A2A_KEY_MOUNT_PATH}/${A2A_CARD_KEY_NAME}` },
    ...llmEnv(o, s),
  ];
}

export function orchestratorEnv(o: OrchestratorResource): V1EnvVar[] {
  const s = sharedSettings(o);
  return [
    ...commonEnv(s),
    { name: E.orchestratorPort, value: String(PORTS.orchestrator) },
    ...values(s, [E.gatewayUrl]),
    ...serverEnv(o, s),
    { name: E.agentDiscovery, value: 'kubernetes' },
    secretRef(E.agentToken, { name: names.internal(o.metadata.name), key: INTERNAL_KEYS.agentToken }),
    ...(o.spec.tls
      ? [
          { name: E.tlsCertFile, value: `${TLS_MOUNT_PATH}/tls.crt` },
          { name: E.tlsKeyFile, value: `${TLS_MOUNT_PATH}/tls.key` },
        ]
      : []),
    ...llmEnv(o, s),
  ];
}

export function agentEnv(o: OrchestratorResource, agent: { name: string; namespace: string }): V1EnvVar[] {
  const s = sharedSettings(o);
  return [
    ...commonEnv(s),
    { name: E.agentName, value: agent.name },
    { name: E.agentNamespace, value: agent.namespace },
    { name: E.agentPort, value: String(PORTS.agent) },
    secretRef(E.agentToken, { name: names.internal(o.metadata.name), key: INTERNAL_KEYS.agentToken }),
    ...llmEnv(o, s),
  ];
}

/** Names of the Secrets an Orchestrator's pods read (besides `O-internal`): their data goes into the config hash. */
export function referencedSecrets(o: OrchestratorResource): string[] {
  const refs = [
    o.spec.database?.secretRef.name,
    o.spec.redis?.secretRef.name,
    o.spec.tls?.secretName,
    ...providersByType(o).map((p) => p.secretRef?.name),
  ];
  return [...new Set(refs.filter((n): n is string => n !== undefined))].sort();
}
