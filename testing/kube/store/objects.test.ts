import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import type { JsonObject } from '../schema/types.js';
import { ApiError } from '../status-errors.js';
import { CRD_DIR, configMap, deployment, widget } from '../test/fixtures.js';

const kube = useTestCluster({ crds: CRD_DIR, client: false });

const meta = (o: JsonObject): JsonObject => o.metadata as JsonObject;
const rv = (o: JsonObject): number => Number(meta(o).resourceVersion);

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('system fields', () => {
  it('sets uid, creationTimestamp and an integer resourceVersion from one global counter', () => {
    kube.cluster.clock.freeze(Date.parse('2030-01-02T03:04:05.678Z'));
    const a = kube.cluster.store.create('configmaps', configMap('a'));
    const b = kube.cluster.store.create('widgets.example.com', widget('b'));
    kube.cluster.clock.resume();
    expect(meta(a).uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta(a).creationTimestamp).toBe('2030-01-02T03:04:05Z');
    expect(rv(b)).toBe(rv(a) + 1);
  });

  it('generates names from generateName', () => {
    const o = kube.cluster.store.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-', namespace: 'default' },
    });
    expect(meta(o).name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('requires a name or generateName and a known namespace', () => {
    expect(
      failure(() =>
        kube.cluster.store.create('configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'default' },
        }),
      ).status.message,
    ).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
    expect(
      failure(() =>
        kube.cluster.store.create('configmaps', { ...configMap('x'), metadata: { name: 'x', namespace: 'nope' } }),
      ).status,
    ).toMatchObject({
      code: 404,
      message: 'namespaces "nope" not found',
    });
  });

  it('rejects a duplicate with 409 AlreadyExists', () => {
    kube.cluster.store.create('configmaps', configMap('dup'));
    expect(failure(() => kube.cluster.store.create('configmaps', configMap('dup'))).status.reason).toBe(
      'AlreadyExists',
    );
  });
});

describe('optimistic concurrency', () => {
  it('answers a stale update with 409 Conflict', () => {
    const v1 = kube.cluster.store.create('configmaps', configMap('cc'));
    kube.cluster.store.update('configmaps', { ...v1, data: { k: 'v2' } });
    const e = failure(() => kube.cluster.store.update('configmaps', { ...v1, data: { k: 'v3' } }));
    expect(e.status.code).toBe(409);
    expect(e.status.message).toBe(
      'Operation cannot be fulfilled on configmaps "cc": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('lets built-ins update without a resourceVersion but not custom resources (422)', () => {
    const cm = kube.cluster.store.create('configmaps', configMap('uncond'));
    delete meta(cm).resourceVersion;
    expect(kube.cluster.store.update('configmaps', { ...cm, data: { k: 'new' } }).data).toEqual({ k: 'new' });
    const w = kube.cluster.store.create('widgets.example.com', widget('uncond'));
    delete meta(w).resourceVersion;
    const e = failure(() => kube.cluster.store.update('widgets.example.com', w));
    expect(e.status.code).toBe(422);
    expect(e.status.message).toBe(
      'widgets.example.com "uncond" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it('keeps everything, resourceVersion included, on a no-op write', () => {
    const w = kube.cluster.store.create('widgets.example.com', widget('noop'));
    const again = kube.cluster.store.update('widgets.example.com', w);
    expect(meta(again).resourceVersion).toBe(meta(w).resourceVersion);
    expect(kube.cluster.store.resourceVersion).toBe(meta(w).resourceVersion);
  });
});

describe('generation and the status subresource', () => {
  it('bumps a custom resource generation on spec changes only, never on status writes', () => {
    const w = kube.cluster.store.create('widgets.example.com', widget('gen'));
    expect(meta(w).generation).toBe(1);
    const labelled = kube.cluster.store.update('widgets.example.com', {
      ...w,
      metadata: { ...meta(w), labels: { a: 'b' } },
    });
    expect(meta(labelled).generation).toBe(1);
    const spec = kube.cluster.store.update('widgets.example.com', { ...labelled, spec: { size: 'large' } });
    expect(meta(spec).generation).toBe(2);
    const status = kube.cluster.store.updateStatus('widgets.example.com', { ...spec, status: { replicas: 3 } });
    expect(meta(status).generation).toBe(2);
    expect(status.status).toEqual({ replicas: 3 });
  });

  it('ignores status on main writes and everything but status on status writes', () => {
    const w = kube.cluster.store.create('widgets.example.com', { ...widget('split'), status: { replicas: 9 } });
    expect(w.status).toBeUndefined();
    const s = kube.cluster.store.updateStatus('widgets.example.com', {
      ...w,
      spec: { size: 'large' },
      metadata: { ...meta(w), labels: { x: 'y' } },
      status: { replicas: 2 },
    });
    expect(s.spec).toEqual({ size: 'small', replicas: 1 });
    expect(meta(s).labels).toBeUndefined();
    const m = kube.cluster.store.update('widgets.example.com', { ...s, status: { replicas: 100 } });
    expect(m.status).toEqual({ replicas: 2 });
  });

  it('counts status changes in the generation of a custom resource without a status subresource', () => {
    const g = kube.cluster.store.create('gadgets.example.com', {
      apiVersion: 'example.com/v1alpha1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: { a: 1 },
    });
    const s = kube.cluster.store.update('gadgets.example.com', { ...g, status: { phase: 'x' } });
    expect(meta(s).generation).toBe(2);
  });

  it('follows the built-in rules: Deployments track spec, ConfigMaps have no generation', () => {
    const d = kube.cluster.store.create('deployments.apps', deployment('web'));
    expect(meta(d).generation).toBe(1);
    expect(d.spec).toMatchObject({
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
    });
    const scaled = kube.cluster.store.update('deployments.apps', {
      ...d,
      spec: { ...(d.spec as JsonObject), replicas: 3 },
    });
    expect(meta(scaled).generation).toBe(2);
    const cm = kube.cluster.store.create('configmaps', configMap('nogen'));
    expect(meta(cm).generation).toBeUndefined();
  });

  it('folds Secret stringData into base64 data', () => {
    const s = kube.cluster.store.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
      data: { a: 'YQ==' },
      stringData: { b: 'héllo' },
    });
    expect(s).toMatchObject({ type: 'Opaque', data: { a: 'YQ==', b: Buffer.from('héllo').toString('base64') } });
    expect(s).not.toHaveProperty('stringData');
  });
});

describe('deletion', () => {
  it('holds an object with finalizers behind a deletionTimestamp, bumping generation, and deletes it when they go', () => {
    const w = kube.cluster.store.create(
      'widgets.example.com',
      widget('fin', { size: 'small' }, { finalizers: ['example.com/hold'] }),
    );
    const r = kube.cluster.store.delete('widgets.example.com', 'default', 'fin');
    expect(r.deleted).toBe(false);
    const held = kube.cluster.store.get('widgets.example.com', 'default', 'fin');
    expect(meta(held).deletionTimestamp).toBeTruthy();
    expect(meta(held).generation).toBe(2);
    expect(
      failure(() =>
        kube.cluster.store.update('widgets.example.com', {
          ...held,
          metadata: { ...meta(held), finalizers: ['example.com/hold', 'example.com/new'] },
        }),
      ).status.message,
    ).toContain('no new finalizers can be added if the object is being deleted');
    kube.cluster.store.update('widgets.example.com', { ...held, metadata: { ...meta(held), finalizers: [] } });
    expect(kube.cluster.store.tryGet('widgets.example.com', 'default', 'fin')).toBeUndefined();
    expect(meta(w).uid).toBeTruthy();
  });

  it('checks uid and resourceVersion preconditions', () => {
    const cm = kube.cluster.store.create('configmaps', configMap('pre'));
    const e = failure(() =>
      kube.cluster.store.delete('configmaps', 'default', 'pre', { preconditions: { uid: 'other' } }),
    );
    expect(e.status.code).toBe(409);
    expect(e.status.message).toBe(
      `Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: other, UID in object meta: ${String(meta(cm).uid)}`,
    );
  });

  it('adds the orphan or foregroundDeletion finalizer for the propagation policy', () => {
    kube.cluster.store.create('configmaps', configMap('orph'));
    kube.cluster.store.delete('configmaps', 'default', 'orph', { propagationPolicy: 'Orphan' });
    expect(meta(kube.cluster.store.get('configmaps', 'default', 'orph')).finalizers).toEqual(['orphan']);
    kube.cluster.store.create('configmaps', configMap('fg'));
    kube.cluster.store.delete('configmaps', 'default', 'fg', { propagationPolicy: 'Foreground' });
    expect(meta(kube.cluster.store.get('configmaps', 'default', 'fg')).finalizers).toEqual(['foregroundDeletion']);
  });

  it('answers with the object for custom resources and a Success Status for ConfigMaps', () => {
    kube.cluster.store.create('configmaps', configMap('st'));
    expect(kube.cluster.store.delete('configmaps', 'default', 'st').body).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'st', kind: 'configmaps' },
    });
    kube.cluster.store.create('widgets.example.com', widget('obj'));
    expect(kube.cluster.store.delete('widgets.example.com', 'default', 'obj').body).toMatchObject({
      kind: 'Widget',
      metadata: { name: 'obj' },
    });
  });

  it('deletes a namespace with its contents and refuses new content while it terminates', async () => {
    kube.cluster.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    kube.cluster.store.create('configmaps', {
      ...configMap('inside'),
      metadata: { name: 'inside', namespace: 'doomed' },
    });
    kube.cluster.store.create(
      'widgets.example.com',
      widget('held', { size: 'small' }, { namespace: 'doomed', finalizers: ['example.com/hold'] }),
    );
    kube.cluster.store.delete('namespaces', undefined, 'doomed');
    const e = failure(() =>
      kube.cluster.store.create('configmaps', {
        ...configMap('late'),
        metadata: { name: 'late', namespace: 'doomed' },
      }),
    );
    expect(e.status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    });
    await kube.cluster.idle();
    expect(kube.cluster.store.tryGet('configmaps', 'doomed', 'inside')).toBeUndefined();
    expect(meta(kube.cluster.store.get('namespaces', undefined, 'doomed')).deletionTimestamp).toBeTruthy();
    const held = kube.cluster.store.get('widgets.example.com', 'doomed', 'held');
    kube.cluster.store.update('widgets.example.com', { ...held, metadata: { ...meta(held), finalizers: [] } });
    await kube.cluster.idle();
    expect(kube.cluster.store.tryGet('namespaces', undefined, 'doomed')).toBeUndefined();
  });

  it('removes the instances of a deleted CRD and stops serving it', async () => {
    kube.cluster.store.create('widgets.example.com', widget('gone'));
    kube.cluster.store.delete('customresourcedefinitions.apiextensions.k8s.io', undefined, 'widgets.example.com');
    await kube.cluster.idle();
    expect(
      kube.cluster.store.tryGet('customresourcedefinitions.apiextensions.k8s.io', undefined, 'widgets.example.com'),
    ).toBeUndefined();
    expect(() => kube.cluster.store.type('widgets.example.com')).toThrow(/unknown resource/);
  });
});

describe('lists', () => {
  it('paginates with limit and continue, consistent at the first page resourceVersion', () => {
    for (const n of ['p1', 'p2', 'p3'])
      kube.cluster.store.create('configmaps', configMap(n, { k: n }, { page: 'yes' }));
    const first = kube.cluster.store.list('configmaps', { namespace: 'default', labelSelector: 'page=yes', limit: 2 });
    expect(first.items.map((o) => meta(o).name)).toEqual(['p1', 'p2']);
    kube.cluster.store.delete('configmaps', 'default', 'p3');
    const second = kube.cluster.store.list('configmaps', {
      namespace: 'default',
      labelSelector: 'page=yes',
      limit: 2,
      continue: first.continue,
    });
    expect(second.items.map((o) => meta(o).name)).toEqual(['p3']);
    expect(second.continue).toBeUndefined();
  });

  it('reports remainingItemCount without selectors and expires continue tokens after compaction', () => {
    for (const n of ['r1', 'r2', 'r3']) kube.cluster.store.create('configmaps', configMap(n));
    const first = kube.cluster.store.list('configmaps', { namespace: 'default', limit: 1 });
    expect(first.remainingItemCount).toBe(2);
    kube.cluster.store.create('configmaps', configMap('r4'));
    kube.cluster.compact();
    const e = failure(() =>
      kube.cluster.store.list('configmaps', { namespace: 'default', limit: 1, continue: first.continue }),
    );
    expect(e.status).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('supports field selectors on metadata and kind-specific fields, and rejects unknown ones', () => {
    kube.cluster.store.create('widgets.example.com', widget('fs-small'));
    kube.cluster.store.create('widgets.example.com', widget('fs-large', { size: 'large' }));
    expect(
      kube.cluster.store
        .list('widgets.example.com', { fieldSelector: 'spec.size=large' })
        .items.map((o) => meta(o).name),
    ).toEqual(['fs-large']);
    expect(
      kube.cluster.store
        .list('widgets.example.com', { fieldSelector: 'metadata.name!=fs-large,metadata.namespace=default' })
        .items.map((o) => meta(o).name),
    ).toEqual(['fs-small']);
    expect(
      failure(() => kube.cluster.store.list('widgets.example.com', { fieldSelector: 'spec.color=red' })).status.message,
    ).toBe('field label not supported: spec.color');
  });
});
