import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../platform/kube/client.js';
import type { InformerEvent } from '../../../platform/kube/informer.js';
import { Resources } from '../../../platform/kube/resources.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import { SharedCache } from '../cache.js';
import type { Selection } from '../types.js';
import { configMap, eventually } from './helpers.js';

const kube = useTestCluster({ crds: 'crds/', client: 'cache-test' });
let cache: SharedCache | undefined;
afterEach(async () => {
  await cache?.stop();
  cache = undefined;
});

/** ConfigMaps name Secrets in `data.secrets` (comma-separated): a stand-in for a Connector's secretRef. */
const namedByConfigMaps: Selection = {
  resource: Resources.Secret,
  namedBy: Resources.ConfigMap,
  names: (cm) => ((cm.data as Record<string, string> | undefined)?.secrets ?? '').split(',').filter(Boolean),
};
const labelledSecrets: Selection = { resource: Resources.Secret, labelSelector: 'steward.dev/test=owned' };

function startCache(...selections: Selection[]): SharedCache {
  cache = new SharedCache(kube.client, { namespace: 'default', backoffMs: 20 });
  cache.select(selections);
  return cache;
}

const secret = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  stringData: { k: name },
});
const pod = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels },
  spec: { containers: [{ name: 'main', image: 'busybox' }] },
});
const names = (c: SharedCache, ref = Resources.Secret) =>
  c
    .list(ref)
    .map((o) => o.metadata.name)
    .sort();
const useSecrets = (cm: string, secrets: string) =>
  kube.client.patch(Resources.ConfigMap, 'default', cm, { data: { secrets } });

describe('SharedCache with selections', () => {
  it('holds only the Pods its label selection selects, and lets go of one that loses the label', async () => {
    await kube.client.create(Resources.Pod, pod('unrelated', { app: 'web' }));
    await kube.client.create(Resources.Pod, pod('gw-1', { 'steward.dev/test': 'gateway' }));
    const c = startCache({ resource: Resources.Pod, labelSelector: 'steward.dev/test=gateway' });
    const events: string[] = [];
    c.informer(Resources.Pod).on((e) => events.push(`${e.type} ${e.object.metadata.name}`));
    await c.synced();
    expect(names(c, Resources.Pod)).toEqual(['gw-1']);

    await kube.client.create(Resources.Pod, pod('unrelated-2'));
    await kube.client.create(Resources.Pod, pod('gw-2', { 'steward.dev/test': 'gateway' }));
    await eventually(() => expect(names(c, Resources.Pod)).toEqual(['gw-1', 'gw-2']));
    await kube.client.patch(Resources.Pod, 'default', 'gw-1', { metadata: { labels: { 'steward.dev/test': null } } });
    await eventually(() => expect(names(c, Resources.Pod)).toEqual(['gw-2']));
    expect(events).toEqual(['added gw-1', 'added gw-2', 'deleted gw-1']);
    const lists = kube.cluster.requests.filter({ verb: 'list', resource: 'pods' });
    expect(lists.map((r) => new URLSearchParams(r.query).get('labelSelector'))).toEqual(['steward.dev/test=gateway']);
  });

  it('holds a Secret only while an object names it, with one list and watch per name', async () => {
    for (const name of ['a', 'b', 'unrelated']) await kube.client.create(Resources.Secret, secret(name));
    await kube.client.create(Resources.ConfigMap, configMap('app', { secrets: 'a' }));
    const c = startCache(namedByConfigMaps);
    c.informer(Resources.Secret);
    await c.synced();
    expect(names(c)).toEqual(['a']);
    expect(c.get(Resources.Secret, 'default', 'unrelated')).toBeUndefined();

    // One watch of ConfigMaps, one per named Secret.
    await eventually(() => expect(kube.cluster.openWatches()).toBe(2));
    await useSecrets('app', 'a,b');
    await eventually(() => expect(names(c)).toEqual(['a', 'b']));
    await eventually(() => expect(kube.cluster.openWatches()).toBe(3));
    await useSecrets('app', 'b');
    await eventually(() => expect(names(c)).toEqual(['b']));
    await eventually(() => expect(kube.cluster.openWatches()).toBe(2));
    await kube.client.delete(Resources.ConfigMap, 'default', 'app');
    await eventually(() => expect(names(c)).toEqual([]));

    const selectors = kube.cluster.requests
      .filter({ verb: 'list', resource: 'secrets' })
      .map((r) => new URLSearchParams(r.query).get('fieldSelector'));
    expect(selectors).toEqual(['metadata.name=a', 'metadata.name=b']);
  });

  it('keeps a Secret two objects name until neither does', async () => {
    await kube.client.create(Resources.Secret, secret('shared'));
    await kube.client.create(Resources.ConfigMap, configMap('one', { secrets: 'shared' }));
    await kube.client.create(Resources.ConfigMap, configMap('two', { secrets: 'shared' }));
    const c = startCache(namedByConfigMaps);
    c.informer(Resources.Secret);
    await c.synced();
    await kube.client.delete(Resources.ConfigMap, 'default', 'one');
    await eventually(() => expect(c.list(Resources.ConfigMap)).toHaveLength(1));
    expect(names(c)).toEqual(['shared']);
    await kube.client.delete(Resources.ConfigMap, 'default', 'two');
    await eventually(() => expect(names(c)).toEqual([]));
  });

  it('tells listeners of a named Secret created, changed and deleted after the start', async () => {
    await kube.client.create(Resources.ConfigMap, configMap('app', { secrets: 'later' }));
    const c = startCache(namedByConfigMaps);
    const events: InformerEvent<KubeObject>[] = [];
    c.informer(Resources.Secret).on((e) => events.push(e));
    await c.synced();
    await kube.client.create(Resources.Secret, secret('later'));
    await kube.client.patch(Resources.Secret, 'default', 'later', { stringData: { k: 'changed' } });
    await kube.client.delete(Resources.Secret, 'default', 'later');
    await eventually(() =>
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
        'added later',
        'modified later',
        'deleted later',
      ]),
    );
  });

  it('keeps an object that is labelled and named while either selection holds it', async () => {
    await kube.client.create(Resources.Secret, secret('both', { 'steward.dev/test': 'owned' }));
    await kube.client.create(Resources.Secret, secret('labelled', { 'steward.dev/test': 'owned' }));
    await kube.client.create(Resources.ConfigMap, configMap('app', { secrets: 'both' }));
    const c = startCache(labelledSecrets, namedByConfigMaps);
    c.informer(Resources.Secret);
    const events: string[] = [];
    c.informer(Resources.Secret).on((e) => events.push(`${e.type} ${e.object.metadata.name}`));
    await c.synced();
    expect(names(c)).toEqual(['both', 'labelled']);

    // The label goes: the labelled informer drops it, the named one still has it, so it is modified, not deleted.
    await kube.client.patch(Resources.Secret, 'default', 'both', {
      metadata: { labels: { 'steward.dev/test': null } },
    });
    await eventually(() => expect(events.filter((e) => e === 'modified both')).toHaveLength(2));
    expect(events).not.toContain('deleted both');
    expect(names(c)).toEqual(['both', 'labelled']);
    await useSecrets('app', '');
    await eventually(() => expect(names(c)).toEqual(['labelled']));
  });

  it('counts a named Secret first listed after the start as not synced until its list is in', async () => {
    await kube.client.create(Resources.Secret, secret('late'));
    const c = startCache(namedByConfigMaps);
    c.informer(Resources.Secret);
    await c.synced();
    const listsFail = kube.cluster.faults.inject({ verb: 'list', resource: 'secrets', status: 500, times: 1_000_000 });
    await kube.client.create(Resources.ConfigMap, configMap('app', { secrets: 'late' }));
    // The ConfigMap's event started the Secret's informer, whose lists fail for now.
    await eventually(() => expect(c.get(Resources.ConfigMap, 'default', 'app')).toBeDefined());
    expect(c.hasSynced).toBe(false);
    expect(c.get(Resources.Secret, 'default', 'late')).toBeUndefined();
    listsFail();
    await c.synced();
    expect(c.get(Resources.Secret, 'default', 'late')).toBeDefined();
  });

  it('refuses a selection of a resource already cached whole', () => {
    const c = startCache();
    c.informer(Resources.Secret);
    expect(() => c.select([labelledSecrets])).toThrow(/select it before its first use/);
  });
});
