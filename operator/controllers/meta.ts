/**
 * Pure pieces every `desired.ts` shares: the labels of docs/cluster-mode.md, controller ownerReferences,
 * object names and label-selector matching. Imports only api/ and types.
 */
import { API_VERSION, GROUP, LABELS, MANAGED_BY } from '../../api/constants.js';
import type { KubeObject, OwnerReference } from '../../platform/kube/client.js';

/** The three runtime components. */
export type Component = 'gateway' | 'orchestrator' | 'agent';

/** `steward.dev/agent: A` on agent objects (docs/cluster-mode.md). */
export const AGENT_LABEL = `${GROUP}/agent`;
/** Pod-template annotation: hash of the configuration and referenced Secrets' data, so a change rolls the pods. */
export const CONFIG_HASH_ANNOTATION = `${GROUP}/config-hash`;

/** Container ports of the components. */
export const PORTS: Record<Component, number> = { gateway: 8080, orchestrator: 8081, agent: 8090 };

/** Names of the objects made for Orchestrator `o` / AgentConfig `a`. */
export const names = {
  gateway: (o: string) => `${o}-gateway`,
  orchestrator: (o: string) => `${o}-orchestrator`,
  config: (o: string) => `${o}-config`,
  internal: (o: string) => `${o}-internal`,
  runtime: (o: string) => `${o}-runtime`,
  agent: (a: string) => `${a}-agent`,
} as const;

/** Keys of the `O-internal` Secret. */
export const INTERNAL_KEYS = {
  internalSecret: 'internal-secret',
  agentToken: 'agent-token',
  licenseSigningSecret: 'license-signing-secret',
  /** The Ed25519 key (PKCS#8 PEM) the gateways sign audit checkpoints with, and its public key (SPKI PEM). */
  auditSigningKey: 'audit-signing-key',
  auditPublicKey: 'audit-public-key',
  /** The key (Ed25519, PKCS#8 PEM) the gateways sign the A2A Agent Cards with: its own (docs/a2a.md). */
  a2aCardKey: 'a2a-card-key',
} as const;

/** A plain, V1-shaped object the operator wants to exist: metadata plus the fields it owns. */
export type DesiredObject = KubeObject & {
  apiVersion: string;
  kind: string;
  metadata: KubeObject['metadata'] & { name: string; namespace: string };
};

/** The labels every object carries; `agent` adds `steward.dev/agent`. */
export function stewardLabels(instance: string, component: Component, agent?: string): Record<string, string> {
  return {
    [LABELS.name]: 'steward',
    [LABELS.instance]: instance,
    [LABELS.component]: component,
    [LABELS.managedBy]: MANAGED_BY,
    ...(agent === undefined ? {} : { [AGENT_LABEL]: agent }),
  };
}

/** Labels that select a component's pods (a subset of `stewardLabels`, stable across upgrades). */
export function selectorLabels(instance: string, component: Component, agent?: string): Record<string, string> {
  return {
    [LABELS.name]: 'steward',
    [LABELS.instance]: instance,
    [LABELS.component]: component,
    ...(agent === undefined ? {} : { [AGENT_LABEL]: agent }),
  };
}

/** The controller ownerReference to a Steward resource, so deleting it deletes what it made. */
export function controllerRef(owner: { kind?: string; metadata: { name?: string; uid?: string } }): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

type Selector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
};

/** Kubernetes label-selector semantics; an absent selector selects everything. */
export function selects(selector: Selector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    if (e.operator === 'In' && !(has && values.includes(l[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && values.includes(l[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Base64 of UTF-8 text (Secret `data`). */
export const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
