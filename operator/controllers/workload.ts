/**
 * The Deployment and Service shapes every component shares (gateway, orchestrator, agent): one container
 * running `steward <component>`, the port named `http`, `/healthz` liveness and `/readyz` readiness, the
 * config-hash annotation on the pod template. Pure: imports only api/ and types.
 */
import type { V1DeploymentSpec, V1EnvVar, V1ServiceSpec, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { KubeObject, OwnerReference } from '../../platform/kube/client.js';
import { CONFIG_HASH_ANNOTATION, PORTS, type Component, type DesiredObject } from './meta.js';

export interface WorkloadInput {
  name: string;
  namespace: string;
  component: Component;
  labels: Record<string, string>;
  selector: Record<string, string>;
  owner: OwnerReference;
  replicas: number;
  image: string;
  pullPolicy: string;
  serviceAccountName: string;
  env: V1EnvVar[];
  configHash: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  /** The probes' scheme: HTTPS when the component serves TLS. @default HTTP */
  scheme?: 'HTTP' | 'HTTPS';
  volumes?: V1Volume[];
  volumeMounts?: V1VolumeMount[];
}

export type DesiredDeployment = DesiredObject & { spec: V1DeploymentSpec };
export type DesiredService = DesiredObject & { spec: V1ServiceSpec };

export function desiredDeployment(w: WorkloadInput): DesiredDeployment {
  const probe = (path: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 'http', scheme: w.scheme ?? 'HTTP' },
    periodSeconds,
    failureThreshold,
  });
  const hasResources = w.resources && (w.resources.requests || w.resources.limits);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: w.name, namespace: w.namespace, labels: w.labels, ownerReferences: [w.owner] },
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: w.selector },
      template: {
        metadata: { labels: w.labels, annotations: { [CONFIG_HASH_ANNOTATION]: w.configHash } },
        spec: {
          serviceAccountName: w.serviceAccountName,
          containers: [
            {
              name: w.component,
              image: w.image,
              imagePullPolicy: w.pullPolicy,
              args: [w.component],
              ports: [{ name: 'http', containerPort: PORTS[w.component], protocol: 'TCP' }],
              env: w.env,
              ...(hasResources ? { resources: w.resources } : {}),
              // NB: liveness waits for the startup probe: a first start (migrations, compiling the policy set) on a
              // busy node can take a minute, and a liveness kill then would only start it over.
              startupProbe: probe('/healthz', 2, 60),
              livenessProbe: probe('/healthz', 10, 3),
              readinessProbe: probe('/readyz', 5, 2),
              ...(w.volumeMounts?.length ? { volumeMounts: w.volumeMounts } : {}),
            },
          ],
          ...(w.volumes?.length ? { volumes: w.volumes } : {}),
        },
      },
    },
  };
}

export function desiredService(
  w: Pick<WorkloadInput, 'name' | 'namespace' | 'component' | 'labels' | 'selector' | 'owner'>,
): DesiredService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: w.name, namespace: w.namespace, labels: w.labels, ownerReferences: [w.owner] },
    spec: {
      type: 'ClusterIP',
      selector: w.selector,
      ports: [{ name: 'http', port: PORTS[w.component], targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

/** Ready pods of a Deployment (`status.readyReplicas`), 0 when it does not exist (yet). */
export function readyReplicas(d: KubeObject | undefined): number {
  return ((d?.status ?? {}) as { readyReplicas?: number }).readyReplicas ?? 0;
}
