import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import type { KubeObject } from '../client.js';
import { isConflict, isNotFound, KubeApiError } from '../errors.js';
import { Informer, type InformerEvent } from '../informer.js';
import { Resources } from '../resources.js';
import { eventually } from '../../../testing/eventually.js';

const kube = useTestCluster({ crds: 'crds/', client: 'informer-test' });

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

describe('KubeClient', () => {
  it('creates, reads, replaces, patches and deletes', async () => {
    const created = await kube.client.create(Resources.ConfigMap, cm('a', { x: '1' }));
    expect(created.metadata.uid).toBeTruthy();
    const replaced = await kube.client.replace(Resources.ConfigMap, { ...created, data: { x: '2' } });
    expect(replaced.data).toEqual({ x: '2' });
    const stale = await kube.client
      .replace(Resources.ConfigMap, { ...created, data: { x: '3' } })
      .catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    const patched = await kube.client.patch(Resources.ConfigMap, 'default', 'a', { data: { y: '1' } });
    expect(patched.data).toEqual({ x: '2', y: '1' });
    expect(await kube.client.delete(Resources.ConfigMap, 'default', 'a')).toBe(true);
    expect(await kube.client.delete(Resources.ConfigMap, 'default', 'a')).toBe(false);
    expect(isNotFound(await kube.client.get(Resources.ConfigMap, 'default', 'a').catch((e: unknown) => e))).toBe(true);
  });

  it('waits out a 429 with Retry-After and then succeeds', async () => {
    kube.cluster.faults.inject({ verb: 'create', resource: 'configmaps', status: 429, retryAfterSeconds: 1, times: 1 });
    const created = await kube.client.create(Resources.ConfigMap, cm('throttled'));
    expect(created.metadata.name).toBe('throttled');
  });

  it('surfaces a 500 as a KubeApiError with the code', async () => {
    kube.cluster.faults.inject({ verb: 'get', resource: 'configmaps', status: 500, times: 1 });
    const err = await kube.client.get(Resources.ConfigMap, 'default', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).code).toBe(500);
  });
});

describe('Informer', () => {
  it('lists, then follows changes through the watch', async () => {
    await kube.client.create(Resources.ConfigMap, cm('one'));
    const inf = new Informer(kube.client, Resources.ConfigMap, { namespace: 'default' }).start();
    const events: InformerEvent<KubeObject>[] = [];
    inf.on((e) => events.push(e));
    await inf.synced();
    expect(inf.get('default', 'one')?.kind).toBe('ConfigMap');
    await kube.client.create(Resources.ConfigMap, cm('two'));
    await kube.client.patch(Resources.ConfigMap, 'default', 'one', { data: { a: 'b' } });
    await kube.client.delete(Resources.ConfigMap, 'default', 'two');
    // NB: a listener registered before the first list also hears the listed objects as additions.
    await eventually(() =>
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
        'added one',
        'added two',
        'modified one',
        'deleted two',
      ]),
    );
    await inf.stop();
  });

  it('re-opens a dropped watch without a new list, and re-lists after a compacted history', async () => {
    const inf = new Informer(kube.client, Resources.ConfigMap, {
      namespace: 'default',
      backoffMs: 20,
      maxBackoffMs: 100,
      watchTimeoutSeconds: 1,
    }).start();
    await inf.synced();
    kube.cluster.faults.inject({ verb: 'watch', resource: 'configmaps', dropWatch: true, times: 1 });
    await kube.client.create(Resources.ConfigMap, cm('during-drop'));
    await eventually(() => expect(inf.get('default', 'during-drop')).toBeDefined());

    // While watches fail, one object is deleted and one created, and the history is compacted: the next watch
    // from the informer's resourceVersion gets 410 Gone, and the re-list reports the deletion it missed.
    await kube.client.create(Resources.ConfigMap, cm('removed-in-gap'));
    await eventually(() => expect(inf.get('default', 'removed-in-gap')).toBeDefined());
    const stopFailing = kube.cluster.faults.inject({
      verb: 'watch',
      resource: 'configmaps',
      status: 500,
      times: 1_000_000,
    });
    const failedBefore = kube.cluster.requests.count({ verb: 'watch' });
    // The open watch ends at its timeout (1 s here); the re-opens fail until the faults go.
    await eventually(() => expect(kube.cluster.requests.count({ verb: 'watch' })).toBeGreaterThan(failedBefore + 1));
    await kube.client.delete(Resources.ConfigMap, 'default', 'removed-in-gap');
    await kube.client.create(Resources.ConfigMap, cm('created-in-gap'));
    await kube.client.create(Resources.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
    });
    kube.cluster.compact();
    const deleted: string[] = [];
    inf.on((e) => e.type === 'deleted' && deleted.push(String(e.object.metadata.name)));
    stopFailing();
    await eventually(() => {
      expect(inf.get('default', 'created-in-gap')).toBeDefined();
      expect(deleted).toEqual(['removed-in-gap']);
    });
    expect(inf.stats.relistsOnGone).toBeGreaterThanOrEqual(1);
    await inf.stop();
  });
});
