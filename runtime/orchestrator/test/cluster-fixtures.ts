/** Builders for the cluster-mode tests: Orchestrators, AgentConfigs, agent Services and hand-made EndpointSlices. */
import type { KubeObject } from '../../../platform/kube/index.js';
import { SERVICE_NAME_LABEL, agentServiceName } from '../pool/index.js';
export { eventually } from '../../../testing/eventually.js';

export const NS = 'default';
const API_VERSION = 'steward.dev/v1alpha1';

export function orchestrator(name: string, matchLabels?: Record<string, string>, namespace = NS): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'Orchestrator',
    metadata: { name, namespace },
    spec: matchLabels ? { agentPool: { selector: { matchLabels } } } : {},
  };
}

export function agentConfig(
  name: string,
  opts: { labels?: Record<string, string>; replicas?: number; namespace?: string } = {},
): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'AgentConfig',
    metadata: { name, namespace: opts.namespace ?? NS, labels: opts.labels ?? {} },
    spec: {
      type: 'specialist',
      domain: 'travel',
      llm: { provider: 'openai', model: 'gpt-4o-mini' },
      replicas: opts.replicas ?? 1,
    },
  };
}

export interface SliceEndpoint {
  ip: string;
  ready?: boolean;
  pod?: string;
}

/**
 * An EndpointSlice of AgentConfig `agent`'s Service, as the EndpointSlice controller would write it. Each test
 * agent listens on its own port of 127.0.0.1, and a slice has one port: one slice per agent.
 */
export function agentSlice(
  name: string,
  agent: string,
  port: number,
  endpoints: SliceEndpoint[],
  namespace = NS,
): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace, labels: { [SERVICE_NAME_LABEL]: agentServiceName(agent) } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true, serving: e.ready ?? true, terminating: false },
      ...(e.pod ? { targetRef: { kind: 'Pod', namespace, name: e.pod } } : {}),
    })),
  };
}

/** The Deployment and Service the operator makes for AgentConfig `agent` (docs/cluster-mode.md), for simulated pods. */
export function agentWorkload(
  agent: string,
  replicas: number,
  namespace = NS,
): { deployment: KubeObject; service: KubeObject } {
  const labels = { 'steward.dev/agent': agent };
  return {
    deployment: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: agentServiceName(agent), namespace },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'agent',
                image: 'ghcr.io/steward-dev/steward:test',
                ports: [{ name: 'http', containerPort: 8090 }],
              },
            ],
          },
        },
      },
    },
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: agentServiceName(agent), namespace },
      spec: { selector: labels, ports: [{ name: 'http', port: 8090, targetPort: 'http' }] },
    },
  };
}
