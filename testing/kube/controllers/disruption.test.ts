import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../schema/types.js';
import { deploymentObj, readyAll, useControllerCluster } from './fixtures.js';
import { arr, obj } from './util.js';

const { cluster, controllers, api } = useControllerCluster();

describe('disruption controller', () => {
  function pdb(spec: JsonObject): JsonObject {
    return {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
    };
  }

  it.each([
    {
      name: 'minAvailable 2 of 3 ready pods allows 1',
      spec: { minAvailable: 2 },
      want: { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 },
      allowed: 'True',
    },
    {
      name: 'maxUnavailable 0 allows none',
      spec: { maxUnavailable: 0 },
      want: { expectedPods: 3, desiredHealthy: 3, currentHealthy: 3, disruptionsAllowed: 0 },
      allowed: 'False',
    },
    {
      name: 'minAvailable 50% rounds up',
      spec: { minAvailable: '50%' },
      want: { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 },
      allowed: 'True',
    },
  ])('$name', async ({ spec, want, allowed }) => {
    api().create('deployments.apps', deploymentObj('web', { replicas: 3 }));
    await controllers().idle();
    readyAll(api(), cluster().clock, 'app=web');
    api().create('poddisruptionbudgets.policy', pdb(spec));
    await controllers().idle();
    const got = api().get('poddisruptionbudgets.policy', 'default', 'web');
    expect(got.status).toMatchObject({ ...want, observedGeneration: 1 });
    expect(arr(obj(got.status).conditions)).toMatchObject([
      {
        type: 'DisruptionAllowed',
        status: allowed,
        reason: allowed === 'True' ? 'SufficientPods' : 'InsufficientPods',
      },
    ]);
  });
});
