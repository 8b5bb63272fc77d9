import { describe, expect, it } from 'vitest';
import { startTestCluster } from '../cluster.js';
import { startControllers } from './index.js';
import { activePods, readyAll, setPodReady, useControllerCluster } from './fixtures.js';
import { deletionOrder } from './replicaset.js';
import type { JsonObject } from '../schema/types.js';

const { cluster, controllers, api } = useControllerCluster();

function rs(name: string, replicas: number, extraSpec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'web' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
      },
      ...extraSpec,
    },
  };
}

describe('ReplicaSet controller', () => {
  it('creates pods named <rs>-xxxxx with template labels and a controller reference', async () => {
    const created = api().create('replicasets.apps', rs('web', 3));
    await controllers().idle();
    const pods = activePods(api(), 'app=web');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata).toMatchObject({
        name: expect.stringMatching(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/) as unknown,
        labels: { app: 'web', tier: 'web' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: 'web',
            uid: (created.metadata as JsonObject).uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      });
    }
    expect(api().get('replicasets.apps', 'default', 'web').status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 3,
      observedGeneration: 1,
    });
    const events = api().list('events', { namespace: 'default', fieldSelector: 'reason=SuccessfulCreate' }).items;
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({
      involvedObject: { kind: 'ReplicaSet', name: 'web' },
      source: { component: 'replicaset-controller' },
      type: 'Normal',
    });
  });

  it('counts ready pods and reports them available after minReadySeconds on the cluster clock', async () => {
    cluster().clock.freeze();
    api().create('replicasets.apps', rs('web', 2, { minReadySeconds: 30 }));
    await controllers().idle();
    readyAll(api(), cluster().clock, 'app=web');
    await controllers().idle();
    expect(api().get('replicasets.apps', 'default', 'web').status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      fullyLabeledReplicas: 2,
    });
    expect((api().get('replicasets.apps', 'default', 'web').status as JsonObject).availableReplicas).toBeUndefined();
    cluster().clock.advance(31_000);
    controllers().resync();
    await controllers().idle();
    expect(api().get('replicasets.apps', 'default', 'web').status).toMatchObject({ availableReplicas: 2 });
  });

  it('scales down by deleting not-ready pods before ready ones', async () => {
    api().create('replicasets.apps', rs('web', 3));
    await controllers().idle();
    const [a, b] = activePods(api(), 'app=web');
    setPodReady(api(), cluster().clock, a!);
    setPodReady(api(), cluster().clock, b!);
    api().patch('replicasets.apps', 'default', 'web', { spec: { replicas: 2 } });
    await controllers().idle();
    const left = activePods(api(), 'app=web').map((p) => (p.metadata as JsonObject).name);
    expect(left.sort()).toEqual([(a!.metadata as JsonObject).name, (b!.metadata as JsonObject).name].sort());
    expect(api().list('events', { namespace: 'default', fieldSelector: 'reason=SuccessfulDelete' }).items).toHaveLength(
      1,
    );
  });

  it('lists and watches again when its watches end, missing nothing written in between', async () => {
    api().create('replicasets.apps', rs('web', 1));
    await controllers().idle();
    cluster().closeWatches();
    api().patch('replicasets.apps', 'default', 'web', { spec: { replicas: 3 } }); // before the relist
    await controllers().idle();
    expect(activePods(api(), 'app=web')).toHaveLength(3);
    api().patch('replicasets.apps', 'default', 'web', { spec: { replicas: 2 } }); // on the new watch
    await controllers().idle();
    expect(activePods(api(), 'app=web')).toHaveLength(2);
  });

  it('replaces a pod that was deleted', async () => {
    api().create('replicasets.apps', rs('web', 2));
    await controllers().idle();
    const [victim] = activePods(api(), 'app=web');
    api().delete('pods', 'default', String((victim!.metadata as JsonObject).name));
    await controllers().idle();
    const pods = activePods(api(), 'app=web');
    expect(pods).toHaveLength(2);
    expect(pods.map((p) => (p.metadata as JsonObject).name)).not.toContain((victim!.metadata as JsonObject).name);
  });

  it('adopts a matching orphan pod instead of creating one, and releases a pod whose labels stop matching', async () => {
    api().create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', namespace: 'default', labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
    });
    const owner = api().create('replicasets.apps', rs('web', 2));
    await controllers().idle();
    expect(activePods(api(), 'app=web')).toHaveLength(2);
    expect((api().get('pods', 'default', 'stray').metadata as JsonObject).ownerReferences).toMatchObject([
      { uid: (owner.metadata as JsonObject).uid, controller: true },
    ]);
    api().patch('pods', 'default', 'stray', { metadata: { labels: { app: 'debug' } } });
    await controllers().idle();
    expect((api().get('pods', 'default', 'stray').metadata as JsonObject).ownerReferences).toBeUndefined();
    expect(activePods(api(), 'app=web')).toHaveLength(2);
  });

  it.each([
    { name: 'an unscheduled pod before a scheduled one', a: { spec: {} }, b: { spec: { nodeName: 'n1' } } },
    {
      name: 'a pending pod before a running one',
      a: { status: { phase: 'Pending' } },
      b: { status: { phase: 'Running' } },
    },
    {
      name: 'a not-ready pod before a ready one',
      a: { status: { phase: 'Running' } },
      b: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    },
    {
      name: 'the lower pod-deletion-cost first',
      a: { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-5' } } },
      b: { metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '10' } } },
    },
    {
      name: 'the newer pod before the older one',
      a: { metadata: { name: 'a', creationTimestamp: '2026-01-02T00:00:00Z' } },
      b: { metadata: { name: 'b', creationTimestamp: '2026-01-01T00:00:00Z' } },
    },
  ])('deletion order puts $name', ({ a, b }) => {
    expect(deletionOrder(a as JsonObject, b as JsonObject)).toBeLessThan(0);
    expect(deletionOrder(b as JsonObject, a as JsonObject)).toBeGreaterThan(0);
  });
});

describe('ReplicaSet controller when pods cannot be created', () => {
  it('reports ReplicaFailure and a FailedCreate event, and clears the condition once a sync succeeds', async () => {
    // Without the namespace controller a terminating namespace keeps its ReplicaSet but refuses new pods.
    const c = await startTestCluster({ namespaceController: false, namespaces: ['doomed'] });
    const ctl = await startControllers({ api: c.store, clock: c.clock });
    try {
      c.store.create('replicasets.apps', { ...rs('web', 0), metadata: { name: 'web', namespace: 'doomed' } });
      c.store.delete('namespaces', undefined, 'doomed');
      c.store.patch('replicasets.apps', 'doomed', 'web', { spec: { replicas: 1 } });
      await ctl.idle();
      const status = (): JsonObject => c.store.get('replicasets.apps', 'doomed', 'web').status as JsonObject;
      expect(status().conditions).toMatchObject([
        {
          type: 'ReplicaFailure',
          status: 'True',
          reason: 'FailedCreate',
          message: expect.stringContaining('is being terminated') as unknown,
        },
      ]);
      const events = c.store.list('events', { namespace: 'doomed', fieldSelector: 'reason=FailedCreate' }).items;
      expect(events[0]).toMatchObject({
        type: 'Warning',
        message: expect.stringMatching(/^Error creating: /) as unknown,
      });
      c.store.patch('replicasets.apps', 'doomed', 'web', { spec: { replicas: 0 } });
      await ctl.idle();
      expect(status().conditions).toBeUndefined();
    } finally {
      await ctl.close();
      await c.close();
    }
  });
});
