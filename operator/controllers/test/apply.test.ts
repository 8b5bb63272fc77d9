import { describe, expect, it } from 'vitest';
import { type KubeObject } from '../../../platform/kube/client.js';
import { isConflict } from '../../../platform/kube/errors.js';
import { Resources } from '../../../platform/kube/resources.js';
import { TerminalError } from '../../manager/types.js';
import { APPLIED_HASH_ANNOTATION, createOrUpdate } from '../apply.js';
import type { DesiredObject } from '../meta.js';
import { NS } from './builders.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';

const kube = useTestCluster({ crds: 'crds/', client: 'apply-test' });

const owner = {
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Orchestrator',
  name: 'prod',
  uid: 'uid-prod',
  controller: true,
  blockOwnerDeletion: true,
};
const configMap = (
  data: Record<string, string>,
  labels: Record<string, string> = { app: 'steward' },
): DesiredObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'prod-config', namespace: NS, labels, ownerReferences: [owner] },
  data,
});
const read = () =>
  kube.client.get<KubeObject & { data?: Record<string, string> }>(Resources.ConfigMap, NS, 'prod-config');

describe('createOrUpdate', () => {
  it('creates, leaves an equal object alone, updates a changed one and removes a key we stopped setting', async () => {
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1', b: '2' }), undefined)).toBe(
      'created',
    );
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1', b: '2' }), await read())).toBe(
      'unchanged',
    );
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), await read())).toBe('updated');
    expect((await read()).data).toEqual({ a: '1' });
    expect((await read()).metadata.annotations?.[APPLIED_HASH_ANNOTATION]).toBeTruthy();
  });

  it('keeps the labels and annotations others set', async () => {
    await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), undefined);
    await kube.client.patch(Resources.ConfigMap, NS, 'prod-config', {
      metadata: { labels: { theirs: 'x' }, annotations: { note: 'y' } },
    });
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), await read())).toBe(
      'unchanged',
    );
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '2' }), await read())).toBe('updated');
    expect((await read()).metadata).toMatchObject({
      labels: { theirs: 'x', app: 'steward' },
      annotations: { note: 'y' },
    });
  });

  it('puts back a field someone else changed', async () => {
    await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), undefined);
    await kube.client.patch(Resources.ConfigMap, NS, 'prod-config', { data: { a: 'edited' } });
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), await read())).toBe('updated');
    expect((await read()).data).toEqual({ a: '1' });
  });

  it('re-reads and updates when the cache did not have the object yet (AlreadyExists)', async () => {
    await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), undefined);
    expect(await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '2' }), undefined)).toBe('updated');
    expect((await read()).data).toEqual({ a: '2' });
  });

  it('throws the 409 of an update from a stale cache, so the reconcile is retried', async () => {
    await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), undefined);
    const stale = await read();
    await kube.client.patch(Resources.ConfigMap, NS, 'prod-config', { metadata: { labels: { bump: '1' } } });
    const err = await createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '2' }), stale).catch(
      (e: unknown) => e,
    );
    expect(isConflict(err)).toBe(true);
  });

  it('refuses an object of the same name controlled by something else', async () => {
    await kube.client.create(Resources.ConfigMap, {
      ...configMap({ a: '1' }),
      metadata: { ...configMap({}).metadata, ownerReferences: [{ ...owner, name: 'other', uid: 'uid-other' }] },
    });
    await expect(
      createOrUpdate(kube.client, Resources.ConfigMap, configMap({ a: '1' }), await read()),
    ).rejects.toBeInstanceOf(TerminalError);
  });
});
