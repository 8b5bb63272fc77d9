/** Builders and helpers for the controller tests: objects, pod readiness as a kubelet would set it. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { ClusterApi } from '../client.js';
import { startTestCluster, type TestCluster } from '../cluster.js';
import { jobs } from '../kinds/batch.js';
import { endpoints } from '../kinds/endpoints.js';
import { startControllers, type Controllers } from './index.js';
import type { TestClock } from '../clock.js';
import type { JsonObject } from '../schema/types.js';
import { isPodActive, isPodReady, meta, nameOf } from './util.js';

export function deploymentObj(
  name: string,
  opts: { replicas?: number; image?: string; strategy?: JsonObject; extraSpec?: JsonObject } = {},
): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      ...(opts.strategy ? { strategy: opts.strategy } : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'app', image: opts.image ?? 'nginx:1', ports: [{ name: 'http', containerPort: 8080 }] }],
        },
      },
      ...opts.extraSpec,
    },
  };
}

export function podObj(name: string, labels: Record<string, string>, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels },
    spec: { containers: [{ name: 'app', image: 'nginx:1', ports: [{ name: 'http', containerPort: 8080 }] }] },
    ...extra,
  };
}

let ipCounter = 1;

/** What a kubelet writes for a started pod: Running, an IP, and Ready (or not). */
export function setPodReady(api: ClusterApi, clock: TestClock, pod: JsonObject, ready = true): JsonObject {
  const now = clock.nowIso();
  const status = {
    phase: 'Running',
    podIP: `10.244.0.${ipCounter++ % 250}`,
    startTime: now,
    conditions: [
      { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now },
      { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now },
    ],
    containerStatuses: [
      {
        name: 'app',
        ready,
        restartCount: 0,
        image: 'nginx:1',
        imageID: '',
        started: true,
        state: { running: { startedAt: now } },
      },
    ],
  };
  return api.updateStatus('pods', { ...pod, status: { ...(pod.status as JsonObject), ...status } });
}

/** Marks every active, not yet ready pod matching `labelSelector` ready; returns how many. */
export function readyAll(api: ClusterApi, clock: TestClock, labelSelector: string): number {
  let n = 0;
  for (const p of api.list('pods', { namespace: 'default', labelSelector }).items) {
    if (!isPodActive(p) || isPodReady(p)) continue;
    setPodReady(api, clock, p);
    n++;
  }
  return n;
}

export function activePods(api: ClusterApi, labelSelector: string): JsonObject[] {
  return api.list('pods', { namespace: 'default', labelSelector }).items.filter(isPodActive);
}

export function names(items: JsonObject[]): string[] {
  return items.map(nameOf).sort();
}

export function labelsOf(o: JsonObject): Record<string, string> {
  return (meta(o).labels ?? {}) as Record<string, string>;
}

/**
 * A stand-in kubelet for tests: watches pods and, as each one appears, marks it Running and Ready
 * (or, with `finish`, Succeeded — for Job pods). Event-driven, so tests still wait on `idle()`.
 */
export function fakeKubelet(
  api: ClusterApi,
  clock: TestClock,
  opts: { finish?: (pod: JsonObject) => 'Succeeded' | 'Failed' | undefined } = {},
): { stop(): void } {
  const handle = api.watch('pods', {}, (ev) => {
    if (ev.type === 'DELETED' || !isPodActive(ev.object)) return;
    const pod = api.tryGet('pods', String(meta(ev.object).namespace), nameOf(ev.object));
    if (!pod || !isPodActive(pod)) return;
    const phase = opts.finish?.(pod);
    if (phase) api.updateStatus('pods', { ...pod, status: { ...(pod.status as JsonObject), phase } });
    else if (!isPodReady(pod)) setPodReady(api, clock, pod);
  });
  return { stop: () => handle.stop() };
}

/**
 * One test cluster per file with Jobs served, fresh controllers per test (after `reset()`, with the
 * clock back to real time).
 */
export function useControllerCluster(): {
  cluster: () => TestCluster;
  controllers: () => Controllers;
  api: () => ClusterApi;
} {
  let cluster: TestCluster | undefined;
  let controllers: Controllers | undefined;
  beforeAll(async () => {
    cluster = await startTestCluster();
    // NB: until kinds/index.ts serves them, the tests add Jobs and Endpoints themselves.
    if (!cluster.registry.lookup('batch', 'v1', 'jobs')) cluster.registry.add(jobs);
    if (!cluster.registry.lookup('', 'v1', 'endpoints')) cluster.registry.add(endpoints);
  });
  afterAll(async () => {
    await controllers?.close();
    await cluster?.close();
  });
  beforeEach(async () => {
    await controllers?.close();
    cluster!.reset();
    cluster!.clock.resume();
    controllers = await startControllers({ api: cluster!.store, clock: cluster!.clock });
  });
  return { cluster: () => cluster!, controllers: () => controllers!, api: () => cluster!.store };
}
