import { afterEach, describe, expect, it } from 'vitest';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import { Resources } from '../../../platform/kube/resources.js';
import { Manager } from '../manager.js';
import { TerminalError } from '../types.js';
import { configMap, copyController, eventually, secretData, silent } from './helpers.js';

const kube = useTestCluster({ crds: 'crds/', client: 'manager-test' });
let manager: Manager | undefined;

afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

function newManager(): Manager {
  return (manager = new Manager({ client: kube.client, log: silent, namespace: 'default', informerBackoffMs: 20 }));
}

describe('Manager', () => {
  it('reconciles a primary object on create, update and delete', async () => {
    const m = newManager();
    const seen: string[] = [];
    m.add(copyController(m.context(), { seen }));
    await m.start();
    expect(m.ready).toBe(true);
    expect(m.leading).toBe(true);

    await kube.client.create(Resources.ConfigMap, configMap('a', { x: '1' }));
    await eventually(async () => expect(await secretData(kube.client, 'a-copy')).toEqual({ x: '1' }));
    await kube.client.patch(Resources.ConfigMap, 'default', 'a', { data: { x: '2' } });
    await eventually(async () => expect(await secretData(kube.client, 'a-copy')).toEqual({ x: '2' }));
    await kube.client.delete(Resources.ConfigMap, 'default', 'a');
    await eventually(() => expect(seen.at(-1)).toBe('default/a gone'));
    expect(m.stats().copy!.reconciles).toBeGreaterThanOrEqual(3);
  });

  it('reconciles the owner when an owned object changes, through its controller ownerReference', async () => {
    const m = newManager();
    m.add(copyController(m.context()));
    await m.start();
    await kube.client.create(Resources.ConfigMap, configMap('b', { k: 'v' }));
    await eventually(async () => expect(await secretData(kube.client, 'b-copy')).toEqual({ k: 'v' }));

    // Someone edits the owned Secret by hand; the change maps to ConfigMap b, whose reconcile puts it back.
    await kube.client.patch(Resources.Secret, 'default', 'b-copy', { stringData: { k: 'tampered' } });
    await eventually(async () => expect(await secretData(kube.client, 'b-copy')).toEqual({ k: 'v' }));
    await kube.client.delete(Resources.Secret, 'default', 'b-copy');
    await eventually(async () => expect(await secretData(kube.client, 'b-copy')).toEqual({ k: 'v' }));
  });

  it('reconciles the keys a watch maps an unrelated object to', async () => {
    const m = newManager();
    const seen: string[] = [];
    m.add({
      ...copyController(m.context(), { seen }),
      watches: [
        { resource: Resources.Service, map: (svc) => [`default/${svc.metadata.annotations?.['test/for'] ?? ''}`] },
      ],
    });
    await m.start();
    await kube.client.create(Resources.ConfigMap, configMap('c'));
    await eventually(() => expect(seen).toContain('default/c {}'));
    const before = seen.length;
    await kube.client.create(Resources.Service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', namespace: 'default', annotations: { 'test/for': 'c' } },
      spec: { ports: [{ port: 80 }] },
    });
    await eventually(() => expect(seen.length).toBeGreaterThan(before));
    expect(seen.at(-1)).toBe('default/c {}');
  });

  it('retries with back-off after the reconciler throws, then forgets the failures', async () => {
    const m = newManager();
    let failuresLeft = 3;
    const attempts: number[] = [];
    m.add(
      copyController(m.context(), {
        before: (req) => {
          if (req.name !== 'flaky') return;
          attempts.push(Date.now());
          if (failuresLeft-- > 0) throw new Error('not yet');
        },
      }),
    );
    await m.start();
    await kube.client.create(Resources.ConfigMap, configMap('flaky', { a: 'b' }));
    await eventually(async () => expect(await secretData(kube.client, 'flaky-copy')).toEqual({ a: 'b' }));
    // NB: creating the Secret is itself an owned-object change, so a fifth reconcile may follow.
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(m.stats().copy).toMatchObject({ errors: 3, terminalErrors: 0 });
    // The retries waited at least 5, 10 and 20 ms (lower bounds only: a slow machine only waits longer).
    const gaps = attempts.slice(1, 4).map((t, i) => t - attempts[i]!);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(5 * 2 ** i - 2));
  });

  it('does not retry a TerminalError until the object changes', async () => {
    const m = newManager();
    const seen: string[] = [];
    m.add(
      copyController(m.context(), {
        seen,
        before: (req) => {
          const cm = m.cache.get(Resources.ConfigMap, req.namespace, req.name);
          if (cm?.data?.['broken' as never]) throw new TerminalError('the ConfigMap says it is broken');
        },
      }),
    );
    await m.start();
    await kube.client.create(Resources.ConfigMap, configMap('t', { broken: 'yes' }));
    await eventually(() => expect(m.stats().copy!.terminalErrors).toBe(1));
    // Another key reconciled after the failure: a retry of `t` (5 ms back-off) would have run by then too.
    await kube.client.create(Resources.ConfigMap, configMap('other'));
    await eventually(async () => expect(await secretData(kube.client, 'other-copy')).toEqual({}));
    expect(m.stats().copy!.terminalErrors).toBe(1);
    await kube.client.replace(Resources.ConfigMap, {
      ...(await kube.client.get(Resources.ConfigMap, 'default', 't')),
      data: { fixed: 'yes' },
    });
    await eventually(async () => expect(await secretData(kube.client, 't-copy')).toEqual({ fixed: 'yes' }));
  });

  it('converges through injected API faults: 409, 500, 429 with Retry-After, and a dropped watch', async () => {
    const m = newManager();
    m.add(copyController(m.context()));
    await m.start();
    kube.cluster.faults.inject({ verb: 'create', resource: 'secrets', status: 500, times: 2 });
    kube.cluster.faults.inject({ verb: 'get', resource: 'secrets', status: 429, retryAfterSeconds: 1, times: 1 });
    await kube.client.create(Resources.ConfigMap, configMap('f', { v: '1' }));
    await eventually(async () => expect(await secretData(kube.client, 'f-copy')).toEqual({ v: '1' }));

    kube.cluster.faults.inject({ verb: 'update', resource: 'secrets', status: 409, times: 3 });
    kube.cluster.faults.inject({ verb: 'watch', resource: 'configmaps', dropWatch: true, times: 2 });
    kube.cluster.closeWatches('configmaps');
    await kube.client.patch(Resources.ConfigMap, 'default', 'f', { data: { v: '2' } });
    await eventually(async () => expect(await secretData(kube.client, 'f-copy')).toEqual({ v: '2' }));
    expect(kube.cluster.faults.pending().filter((f) => f.spec.verb === 'update')).toEqual([]);
    expect(m.stats().copy!.errors).toBeGreaterThanOrEqual(5);
  });
});
