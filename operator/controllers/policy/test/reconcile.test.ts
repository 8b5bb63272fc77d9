import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../platform/kube/client.js';
import { Resources } from '../../../../platform/kube/resources.js';
import { useTestCluster } from '../../../../testing/kube/fixture.js';
import { NS, manifest, policy, withWasm } from '../../test/builders.js';
import { startHarness, type Harness } from '../../test/harness.js';

const kube = useTestCluster({ crds: 'crds/', client: false });
let h: Harness;

beforeEach(async () => {
  h = await startHarness(kube.cluster);
});
afterEach(async () => {
  await h.stop();
});

type Conditioned = KubeObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } };
const conditions = async (name: string) =>
  (await h.client.tryGet<Conditioned>(Resources.Policy, NS, name))?.status?.conditions ?? [];

describe('Policy reconciler, wasm bundle in a ConfigMap', () => {
  it('sets Compiled and Ready to False with ConfigMapMissing until the ConfigMap holds the key', async () => {
    await h.client.create(
      Resources.Policy,
      manifest(
        policy('wasm', '', withWasm({ configMapRef: { name: 'bundles', key: 'bundle' }, entrypoint: 'x/deny' })),
      ),
    );
    await h.reconcile('policy', `${NS}/wasm`);
    expect(await conditions('wasm')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Compiled', status: 'False', reason: 'ConfigMapMissing' }),
        expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ConfigMapMissing' }),
      ]),
    );

    await h.client.create(Resources.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bundles', namespace: NS },
      binaryData: { bundle: 'AGFzbQEAAAA=' },
    });
    await h.reconcile('policy', `${NS}/wasm`);
    expect(await conditions('wasm')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Compiled', status: 'True', reason: 'CompileSucceeded' }),
        expect.objectContaining({ type: 'Ready', status: 'True' }),
      ]),
    );
  });
});
