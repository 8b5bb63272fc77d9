import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../testing/kube/index.js';
import { Resources } from '../../platform/kube/resources.js';
import { fastLeaseConfig } from './fixtures.js';
import { startOperator, type RunningOperator } from '../main.js';
import { configMap, copyController, eventually, secretData, silent } from '../manager/test/helpers.js';
import { KubeClient } from '../../platform/kube/client.js';

let cluster: TestCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/' });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'operator-test' });
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
});

const config = (identity: string) => fastLeaseConfig(cluster.kubeconfig, identity);

const probe = async (op: RunningOperator, path: string) => (await fetch(`${op.probeUrl}${path}`)).status;

describe('startOperator', () => {
  it('serves probes, leads, reconciles through its controllers, and releases the Lease on stop', async () => {
    const op = await startOperator(config('op-a'), { log: silent, controllers: (ctx) => [copyController(ctx)] });
    try {
      expect(await probe(op, '/healthz')).toBe(200);
      await eventually(async () => expect(await probe(op, '/readyz')).toBe(200));
      await eventually(() => expect(op.manager.leading).toBe(true));
      await client.create(Resources.ConfigMap, configMap('op', { a: '1' }));
      await eventually(async () => expect(await secretData(client, 'op-copy')).toEqual({ a: '1' }));
      const lease = await client.get(Resources.Lease, 'default', 'steward-operator');
      expect((lease.spec as { holderIdentity: string }).holderIdentity).toBe('op-a');
    } finally {
      await op.stop();
    }
    const lease = await client.get(Resources.Lease, 'default', 'steward-operator');
    expect((lease.spec as { holderIdentity: string }).holderIdentity).toBe('');
  });

  it('answers 503 on /readyz once draining starts', async () => {
    const op = await startOperator(config('op-b'), { log: silent, controllers: () => [] });
    await eventually(async () => expect(await probe(op, '/readyz')).toBe(200));
    const stopping = op.stop();
    // The probe server closes at the end of the drain; until then it says not ready.
    const status = await probe(op, '/readyz').catch(() => 'closed');
    expect([503, 'closed']).toContain(status);
    await stopping;
  });

  it('starts with the real controllers and becomes ready once their informers synced', async () => {
    const op = await startOperator(config('op-c'), { log: silent });
    try {
      await eventually(async () => expect(await probe(op, '/readyz')).toBe(200));
      expect(Object.keys(op.manager.stats()).sort()).toEqual([
        'agentconfig',
        'budget',
        'connector',
        'license',
        'orchestrator',
        'policy',
        'policyexception',
      ]);
    } finally {
      await op.stop();
    }
  });
});
