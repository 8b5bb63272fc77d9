/** Builders for test objects. */
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../schema/types.js';

export const CRD_DIR = fileURLToPath(new URL('./fixtures/crds', import.meta.url));

export function widget(name: string, spec: JsonObject = { size: 'small' }, metadata: JsonObject = {}): JsonObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default', ...metadata }, spec };
}

export function configMap(
  name: string,
  data: Record<string, string> = { k: 'v' },
  labels?: Record<string, string>,
): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    data,
  };
}

export function deployment(name: string, replicas = 1): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
    },
  };
}
