/** Shared by the manager's integration tests: a silent logger, condition waits, a test-only controller. */
import { pino } from 'pino';
import type { KubeClient, KubeObject } from '../../../platform/kube/client.js';
import { isNotFound } from '../../../platform/kube/errors.js';
import { Resources } from '../../../platform/kube/resources.js';
import type { Cache, ControllerSpec, ReconcileRequest } from '../types.js';
export { eventually } from '../../../testing/eventually.js';

export const silent = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const configMap = (name: string, data: Record<string, string> = {}, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

/**
 * A controller over ConfigMaps that keeps a Secret `<name>-copy` holding the ConfigMap's data, owned by it
 * (a controller ownerReference): the smallest controller with a primary and an owned kind.
 */
export function copyController(
  deps: { client: KubeClient; cache: Cache },
  hooks: { before?: (req: ReconcileRequest) => void | Promise<void>; seen?: string[] } = {},
): ControllerSpec {
  return {
    name: 'copy',
    for: Resources.ConfigMap,
    owns: [Resources.Secret],
    reconciler: {
      async reconcile(req) {
        await hooks.before?.(req);
        const cm = deps.cache.get(Resources.ConfigMap, req.namespace, req.name);
        hooks.seen?.push(cm ? `${req.key} ${JSON.stringify(cm.data ?? {})}` : `${req.key} gone`);
        if (!cm) return;
        const desired = {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: `${req.name}-copy`,
            namespace: req.namespace,
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name: req.name, uid: cm.metadata.uid!, controller: true },
            ],
          },
          stringData: cm.data ?? {},
        };
        const current = await deps.client.tryGet(Resources.Secret, req.namespace, desired.metadata.name);
        if (!current) {
          await deps.client.create(Resources.Secret, desired);
          return;
        }
        const data = Object.fromEntries(
          Object.entries((current.data as Record<string, string>) ?? {}).map(([k, v]) => [
            k,
            Buffer.from(v, 'base64').toString(),
          ]),
        );
        if (JSON.stringify(data) === JSON.stringify(cm.data ?? {})) return;
        await deps.client
          .replace(Resources.Secret, { ...current, data: undefined, stringData: cm.data ?? {} })
          .catch((err: unknown) => {
            if (!isNotFound(err)) throw err;
          });
      },
    },
  };
}

/** The Secret's data, decoded. */
export async function secretData(client: KubeClient, name: string): Promise<Record<string, string> | undefined> {
  const s = await client.tryGet(Resources.Secret, 'default', name);
  if (!s) return undefined;
  return Object.fromEntries(
    Object.entries((s.data as Record<string, string>) ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
}
