/**
 * client-node's informer against the test server over real HTTP: list, watch, re-watch after the server
 * closes the stream, and re-list (with deletes for what vanished) after 410 Expired.
 */
import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import { loadClientNode } from './client-node.js';
import { configMap } from './fixtures.js';

const kube = useTestCluster({ client: false, resetBeforeEach: false });

async function until(cond: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('client-node informer', () => {
  it('lists, watches, re-watches after a server close and re-lists after 410', async () => {
    const k8s = await loadClientNode();
    const kc = new k8s.KubeConfig();
    kc.loadFromString(kube.cluster.kubeconfigYaml);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    kube.cluster.store.create('configmaps', configMap('before'));

    const log: string[] = [];
    const errors: unknown[] = [];
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    informer.on('add', (o) => log.push(`add ${o.metadata!.name!}`));
    informer.on('update', (o) => log.push(`update ${o.metadata!.name!}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata!.name!}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await until(() => log.includes('add before'), 'the initial list');
      await until(() => kube.cluster.openWatches() === 1, 'the watch');

      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'live' }, data: { a: '1' } },
      });
      // NB: client-node sends application/json-patch+json by default.
      await core.patchNamespacedConfigMap({
        namespace: 'default',
        name: 'live',
        body: [{ op: 'replace', path: '/data/a', value: '2' }],
      });
      await until(() => log.includes('update live'), 'watch events');

      // The server ends the stream (as at a watch timeout): the informer watches again from where it was.
      const watchesBefore = kube.cluster.requests.count({ verb: 'watch' });
      const lastRv = kube.cluster.store.resourceVersion;
      kube.cluster.closeWatches('configmaps');
      await until(
        () => kube.cluster.requests.count({ verb: 'watch' }) === watchesBefore + 1 && kube.cluster.openWatches() === 1,
        're-watch',
      );
      const rewatch = kube.cluster.requests.filter({ verb: 'watch' }).at(-1)!;
      expect(new URLSearchParams(rewatch.query).get('resourceVersion')).toBe(lastRv);
      kube.cluster.store.create('configmaps', configMap('after-rewatch'));
      await until(() => log.includes('add after-rewatch'), 'an event on the new watch');
      const listsBefore = kube.cluster.requests.count({ verb: 'list' });

      // History is compacted while the informer is away: its next watch gets 410 and it re-lists,
      // reporting the object deleted in between.
      kube.cluster.faults.latency(300, { verb: 'watch' });
      kube.cluster.closeWatches('configmaps');
      kube.cluster.store.delete('configmaps', 'default', 'before');
      kube.cluster.store.create('configmaps', configMap('during-gap'));
      kube.cluster.compact();
      await until(() => log.includes('delete before') && log.includes('add during-gap'), 're-list after 410');
      expect(kube.cluster.requests.count({ verb: 'list' })).toBe(listsBefore + 1);
      expect(errors).toEqual([]);
      expect(
        informer
          .list()
          .map((o) => o.metadata!.name)
          .sort(),
      ).toEqual(['after-rewatch', 'during-gap', 'live']);
    } finally {
      kube.cluster.faults.clear();
      await informer.stop();
    }
  });
});
