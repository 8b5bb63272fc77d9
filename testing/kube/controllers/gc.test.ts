import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { activePods, deploymentObj, readyAll, useControllerCluster } from './fixtures.js';
import { meta, uidOf } from './util.js';

const { cluster, controllers, api } = useControllerCluster();

async function runningDeployment(): Promise<void> {
  api().create('deployments.apps', deploymentObj('web', { replicas: 2 }));
  await controllers().idle();
  readyAll(api(), cluster().clock, 'app=web');
  await controllers().idle();
  expect(activePods(api(), 'app=web')).toHaveLength(2);
}

function replicaSets(): JsonObject[] {
  return api().list('replicasets.apps', { namespace: 'default' }).items;
}

describe('garbage collector', () => {
  it('deletes dependents after their owner is gone (background)', async () => {
    await runningDeployment();
    const r = api().delete('deployments.apps', 'default', 'web', { propagationPolicy: 'Background' });
    expect(r.deleted).toBe(true);
    await controllers().idle();
    expect(replicaSets()).toEqual([]);
    expect(api().list('pods', { namespace: 'default' }).items).toEqual([]);
  });

  it('holds the owner with foregroundDeletion until its blocking dependents are gone', async () => {
    await runningDeployment();
    const r = api().delete('deployments.apps', 'default', 'web', { propagationPolicy: 'Foreground' });
    expect(r.deleted).toBe(false);
    expect(meta(r.body).finalizers).toEqual(['foregroundDeletion']);
    await controllers().idle();
    expect(api().tryGet('deployments.apps', 'default', 'web')).toBeUndefined();
    expect(replicaSets()).toEqual([]);
    expect(api().list('pods', { namespace: 'default' }).items).toEqual([]);
  });

  it('orphans dependents: owner references removed, dependents kept, then the owner goes', async () => {
    await runningDeployment();
    api().delete('deployments.apps', 'default', 'web', { propagationPolicy: 'Orphan' });
    await controllers().idle();
    expect(api().tryGet('deployments.apps', 'default', 'web')).toBeUndefined();
    const [rs] = replicaSets();
    expect(meta(rs!).ownerReferences).toBeUndefined();
    const pods = activePods(api(), 'app=web');
    expect(pods).toHaveLength(2);
    for (const p of pods) expect(meta(p).ownerReferences).toMatchObject([{ kind: 'ReplicaSet', uid: uidOf(rs!) }]);
  });

  it('drops an owner that is gone from a dependent that keeps another owner', async () => {
    const a = api().create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'default' },
    });
    const b = api().create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'default' },
    });
    const ref = (o: JsonObject): JsonObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: meta(o).name,
      uid: uidOf(o),
    });
    api().create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default', ownerReferences: [ref(a), ref(b)] },
    });
    api().delete('configmaps', 'default', 'a');
    await controllers().idle();
    expect(meta(api().get('secrets', 'default', 's')).ownerReferences).toEqual([ref(b)]);
    api().delete('configmaps', 'default', 'b');
    await controllers().idle();
    expect(api().tryGet('secrets', 'default', 's')).toBeUndefined();
  });

  it('deletes a dependent created with an owner uid that no longer exists', async () => {
    api().create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '00000000-0000-0000-0000-000000000000' },
        ],
      },
    });
    await controllers().idle();
    expect(api().tryGet('secrets', 'default', 's')).toBeUndefined();
  });
});

describe('garbage collector with custom resources', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };

  it('deletes a Deployment owned by a custom resource once the custom resource is gone', async () => {
    api().create('customresourcedefinitions.apiextensions.k8s.io', crd);
    await cluster().idle();
    await controllers().idle();
    const w = api().create('widgets.example.com', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
    });
    const d = deploymentObj('web');
    (d.metadata as JsonObject).ownerReferences = [
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        name: 'w',
        uid: uidOf(w),
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    api().create('deployments.apps', d);
    await controllers().idle();
    expect(activePods(api(), 'app=web')).toHaveLength(1);
    api().delete('widgets.example.com', 'default', 'w');
    await controllers().idle();
    expect(api().tryGet('deployments.apps', 'default', 'web')).toBeUndefined();
    expect(activePods(api(), 'app=web')).toEqual([]);
  });
});
