/** `simulated` mode: hundreds of pods go Running and Ready without processes, and deletions complete. */
import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import type { JsonObject } from '../schema/types.js';
import { webDeployment } from '../test/workload-fixtures.js';
import { waitUntil } from '../../eventually.js';
import { livePids } from './processes.js';

const kube = useTestCluster({ workloads: { kubeletMode: 'simulated' }, client: false, resetBeforeEach: false });

const readyPods = (): JsonObject[] =>
  kube.cluster.store
    .list('pods', { namespace: 'default', labelSelector: 'app=many' })
    .items.filter((p) =>
      ((p.status as JsonObject).conditions as JsonObject[] | undefined)?.some(
        (c) => c.type === 'Ready' && c.status === 'True',
      ),
    );

describe('kubelet (simulated mode)', { timeout: 120_000 }, () => {
  it('makes 300 replicas Running and Ready with distinct IPs and no processes', async () => {
    kube.cluster.store.create('deployments.apps', webDeployment('many', 300));
    await waitUntil('300 ready pods', () => (readyPods().length === 300 ? true : undefined));
    expect(new Set(readyPods().map((p) => (p.status as JsonObject).podIP)).size).toBe(300);
    expect(readyPods().every((p) => (p.status as JsonObject).phase === 'Running')).toBe(true);
    expect(livePids()).toEqual([]);
    await waitUntil('the Deployment to be available', () =>
      (kube.cluster.store.get('deployments.apps', 'default', 'many').status as JsonObject).availableReplicas === 300
        ? true
        : undefined,
    );
  });

  it('completes pod deletions (grace period 0 from the kubelet)', async () => {
    kube.cluster.store.patch('deployments.apps', 'default', 'many', { spec: { replicas: 0 } });
    await waitUntil('no pods left', () =>
      kube.cluster.store.list('pods', { namespace: 'default', labelSelector: 'app=many' }).items.length === 0
        ? true
        : undefined,
    );
  });
});
