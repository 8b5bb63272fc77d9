/** Builders for workload tests: the fixture HTTP server's image and pods, Deployments and Services using it. */
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../schema/types.js';
import { projectNode } from '../kubelet/images.js';

export const HTTP_IMAGE = 'fixtures.local/http-server:1';
export const IMAGES: Record<string, string[]> = {
  'fixtures.local/http-server': [projectNode(), fileURLToPath(new URL('./fixtures/http-server.mjs', import.meta.url))],
};

/** The fixture server's container: binds its pod IP on 8080, ready on /ready. */
export function httpContainer(extra: JsonObject = {}): JsonObject {
  return {
    name: 'web',
    image: HTTP_IMAGE,
    ports: [{ name: 'http', containerPort: 8080 }],
    env: [
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ],
    readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
    ...extra,
  };
}

export function pod(
  name: string,
  spec: JsonObject,
  namespace = 'default',
  labels: Record<string, string> = {},
): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { terminationGracePeriodSeconds: 5, ...spec },
  };
}

export function webDeployment(name: string, replicas: number, namespace = 'default'): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { terminationGracePeriodSeconds: 5, containers: [httpContainer()] },
      },
    },
  };
}

export function webService(name: string, namespace = 'default'): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  };
}

/** Whether a process id is still running (signal 0 checks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
