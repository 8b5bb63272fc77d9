import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnyResource, PolicyResource } from '../../../api/index.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { KubernetesSource, SourceWriteError, type SourceEvent } from '../index.js';
import { eventually } from '../../../testing/eventually.js';

let cluster: TestCluster;
let client: KubeClient;
let source: KubernetesSource | undefined;

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/' });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'kube-source-test' });
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
});
beforeEach(() => cluster.reset());
afterEach(async () => {
  await source?.close();
  source = undefined;
});

const policy = (
  name: string,
  rego = 'package t\n\ndeny contains "no" if input.query == "bad"\n',
  extra: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Policy',
  metadata: { name, namespace: 'default' },
  spec: { type: 'custom', rego, ...extra },
});

function start(): KubernetesSource {
  source = new KubernetesSource({
    client,
    namespace: 'default',
    informer: { backoffMs: 20, maxBackoffMs: 100, watchTimeoutSeconds: 1 },
  });
  return source;
}

function recorder(s: KubernetesSource): string[] {
  const seen: string[] = [];
  s.subscribe((events: readonly SourceEvent[]) =>
    seen.push(...events.map((e) => `${e.type} ${e.resource.kind} ${e.resource.metadata.name}`)),
  );
  return seen;
}

describe('KubernetesSource', () => {
  it('lists and gets the kinds of its namespace from the caches, validated and defaulted', async () => {
    await client.create(Resources.Policy, policy('pii'));
    await client
      .create(Resources.Policy, { ...policy('elsewhere'), metadata: { name: 'elsewhere', namespace: 'other' } })
      .catch(() => undefined);
    const s = start();
    await s.ready();
    expect(s.synced).toBe(true);
    expect(s.list('Policy').map((p) => p.metadata.name)).toEqual(['pii']);
    const pii = s.get('Policy', 'pii')!;
    expect(pii.spec).toMatchObject({ priority: 100, enabled: true, action: 'block', regoVersion: 'v1' });
    expect(pii.metadata.generation).toBe(1);
    expect(pii.metadata).not.toHaveProperty('managedFields');
    expect(s.list('Policy', 'other')).toEqual([]);
    expect(s.issues()).toEqual([]);
  });

  it('tells subscribers of additions, changes and deletions made through the API server', async () => {
    const s = start();
    await s.ready();
    const seen = recorder(s);
    await client.create(Resources.Policy, policy('a'));
    await client.patch(Resources.Policy, 'default', 'a', { spec: { priority: 7 } });
    await client.delete(Resources.Policy, 'default', 'a');
    await eventually(() => expect(seen).toEqual(['added Policy a', 'modified Policy a', 'deleted Policy a']));
  });

  it('turns an object our schemas refuse into an issue naming it, and takes it back once fixed', async () => {
    const s = start();
    await s.ready();
    // NB: the CRD cannot say "exactly one of rego or wasm"; the api/ rules can.
    await client.create(Resources.Policy, { ...policy('neither'), spec: { type: 'custom' } });
    await eventually(() =>
      expect(s.issues()).toEqual([
        {
          file: 'policies/default/neither',
          documentIndex: 0,
          field: 'spec.rego',
          message: 'exactly one of spec.rego or spec.wasm must be set',
        },
      ]),
    );
    expect(s.get('Policy', 'neither')).toBeUndefined();
    await client.patch(Resources.Policy, 'default', 'neither', { spec: { rego: 'package t\n' } });
    await eventually(() => expect(s.get('Policy', 'neither')).toBeDefined());
    expect(s.issues()).toEqual([]);
  });

  it('applies by creating the object when absent and replacing it (new generation) when present', async () => {
    const s = start();
    await s.ready();
    const doc = {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'org-acme.p' },
      spec: { type: 'custom', rego: 'package p\n' },
    } as unknown as AnyResource;
    const created = (await s.apply(doc)) as PolicyResource;
    expect(created.metadata).toMatchObject({ name: 'org-acme.p', namespace: 'default', generation: 1 });
    // Visible to a read right after the write, as a folder's write is.
    expect(s.get('Policy', 'org-acme.p')?.metadata.generation).toBe(1);
    const replaced = (await s.apply({
      ...doc,
      spec: { type: 'custom', rego: 'package p\n', priority: 5 },
    } as unknown as AnyResource)) as PolicyResource;
    expect(replaced.spec.priority).toBe(5);
    expect(replaced.metadata.generation).toBe(2);
    expect(cluster.requests.count({ verb: 'create', resource: 'policies' })).toBe(1);
    expect(cluster.requests.count({ verb: 'update', resource: 'policies' })).toBe(1);
  });

  it('retries a replace once after re-reading when its cached resourceVersion is stale', async () => {
    const s = start();
    await s.ready();
    await client.create(Resources.Policy, policy('raced'));
    await eventually(() => expect(s.get('Policy', 'raced')).toBeDefined());
    cluster.faults.inject({ verb: 'update', resource: 'policies', status: 409, times: 1 });
    const out = (await s.apply({
      ...(policy('raced', 'package t\n', { priority: 9 }) as unknown as AnyResource),
    })) as PolicyResource;
    expect(out.spec.priority).toBe(9);
    expect(cluster.requests.count({ verb: 'update', resource: 'policies' })).toBe(2);
  });

  it('refuses an invalid document and a stale resourceVersion with SourceWriteError', async () => {
    const s = start();
    await s.ready();
    await expect(
      s.apply({
        apiVersion: 'steward.dev/v1alpha1',
        kind: 'Policy',
        metadata: { name: 'x' },
        spec: { type: 'custom' },
      } as unknown as AnyResource),
    ).rejects.toBeInstanceOf(SourceWriteError);
    const created = await client.create(Resources.Policy, policy('pinned'));
    await client.patch(Resources.Policy, 'default', 'pinned', { spec: { priority: 3 } });
    const stale = {
      ...policy('pinned'),
      metadata: { name: 'pinned', namespace: 'default', resourceVersion: created.metadata.resourceVersion },
    } as unknown as AnyResource;
    await expect(s.apply(stale)).rejects.toMatchObject({
      name: 'SourceWriteError',
      issues: [{ field: 'metadata.resourceVersion' }],
    });
  });

  it('deletes the object, and answers false for one that is not there', async () => {
    const s = start();
    await s.ready();
    await client.create(Resources.Policy, policy('gone'));
    await eventually(() => expect(s.get('Policy', 'gone')).toBeDefined());
    expect(await s.delete('Policy', 'gone')).toBe(true);
    expect(s.get('Policy', 'gone')).toBeUndefined();
    expect(await s.delete('Policy', 'gone')).toBe(false);
  });

  it('keeps following after a dropped watch, and after a compacted history re-lists without losing a deletion', async () => {
    const s = start();
    await s.ready();
    const seen = recorder(s);
    cluster.faults.inject({ verb: 'watch', resource: 'policies', dropWatch: true, times: 1 });
    cluster.closeWatches('policies.steward.dev');
    await client.create(Resources.Policy, policy('after-drop'));
    await eventually(() => expect(s.get('Policy', 'after-drop')).toBeDefined());

    await client.create(Resources.Policy, policy('removed-in-gap'));
    await eventually(() => expect(s.get('Policy', 'removed-in-gap')).toBeDefined());
    const stopFailing = cluster.faults.inject({ verb: 'watch', resource: 'policies', status: 500, times: 1_000_000 });
    const before = cluster.requests.count({ verb: 'watch', resource: 'policies' });
    cluster.closeWatches('policies.steward.dev');
    await eventually(() =>
      expect(cluster.requests.count({ verb: 'watch', resource: 'policies' })).toBeGreaterThan(before),
    );
    await client.delete(Resources.Policy, 'default', 'removed-in-gap');
    await client.create(Resources.Policy, policy('created-in-gap'));
    cluster.compact();
    stopFailing();
    await eventually(() => {
      expect(s.get('Policy', 'created-in-gap')).toBeDefined();
      expect(s.get('Policy', 'removed-in-gap')).toBeUndefined();
    });
    expect(seen).toEqual(
      expect.arrayContaining([
        'added Policy after-drop',
        'deleted Policy removed-in-gap',
        'added Policy created-in-gap',
      ]),
    );
  });

  it('reads Secret keys of its namespace, and tells the Connectors that use a Secret when it changes', async () => {
    await client.create(Resources.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'default' },
      data: { url: Buffer.from('postgres://a@h/db').toString('base64') },
    });
    await client.create(Resources.Connector, {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Connector',
      metadata: { name: 'orders', namespace: 'default' },
      spec: { type: 'postgres', connection: { secretRef: { name: 'db', key: 'url' } }, allowedOperations: ['query'] },
    });
    const s = start();
    await s.ready();
    expect(s.secret('default', 'db', 'url')).toBe('postgres://a@h/db');
    expect(s.secret('default', 'db', 'missing')).toBeUndefined();
    expect(s.secret('other', 'db', 'url')).toBeUndefined();
    const seen = recorder(s);
    await client.patch(Resources.Secret, 'default', 'db', {
      data: { url: Buffer.from('postgres://b@h/db').toString('base64') },
    });
    await eventually(() => expect(seen).toContain('modified Connector orders'));
    expect(s.secret('default', 'db', 'url')).toBe('postgres://b@h/db');
  });

  it('reads ConfigMaps of its namespace, and tells the Policies whose wasm bundle one holds when it changes', async () => {
    await client.create(Resources.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bundles', namespace: 'default' },
      binaryData: { b: 'AGFzbQ==' },
    });
    await client.create(Resources.Policy, {
      ...policy('w'),
      spec: { type: 'custom', wasm: { configMapRef: { name: 'bundles', key: 'b' }, entrypoint: 'x/deny' } },
    });
    await client.create(Resources.Policy, policy('rego-only'));
    const s = start();
    await s.ready();
    const first = s.configMap('default', 'bundles');
    expect(first).toMatchObject({ name: 'bundles', binaryData: { b: 'AGFzbQ==' }, data: {} });
    expect(s.configMap('other', 'bundles')).toBeUndefined();
    const seen = recorder(s);
    await client.patch(Resources.ConfigMap, 'default', 'bundles', { binaryData: { b: 'AGFzbQE=' } });
    await eventually(() => expect(seen).toEqual(['modified Policy w']));
    expect(s.configMap('default', 'bundles')?.version).not.toBe(first?.version);
    await client.delete(Resources.ConfigMap, 'default', 'bundles');
    await eventually(() => expect(s.configMap('default', 'bundles')).toBeUndefined());
    await eventually(() => expect(seen).toEqual(['modified Policy w', 'modified Policy w']));
  });
});
