/**
 * The operator's cache at cluster scale (docs/adr/0015): through the Manager and all the controllers on the test
 * cluster, the Secrets and Pods that are not Steward's never reach the cache, and a change to a Secret a resource
 * names still reconciles that resource.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LABELS } from '../../../api/constants.js';
import { KubeClient, type KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { eventually } from '../../../testing/eventually.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import { Manager } from '../../manager/manager.js';
import { allControllers } from '../index.js';
import { CONFIG_HASH_ANNOTATION } from '../meta.js';
import {
  NS,
  connector,
  manifest,
  orchestrator,
  secret,
  withCommunityMode,
  withConnectionSecret,
  withDatabase,
} from './builders.js';

const OTHER = 'elsewhere';
const USER_AGENT = 'selections-test-operator';
const kube = useTestCluster({ crds: 'crds/', namespaces: [OTHER], client: 'selections-test' });
let manager: { manager: Manager; client: KubeClient } | undefined;
afterEach(async () => {
  await manager?.manager.stop();
  await manager?.client.close();
  manager = undefined;
});

/** The Manager with all the controllers, on a client of its own (its requests told apart by User-Agent). */
async function startManager(): Promise<Manager> {
  const client = await KubeClient.connect({ kubeconfigYaml: kube.cluster.kubeconfigYaml, userAgent: USER_AGENT });
  const m = new Manager({ client, log: pino({ level: 'silent' }), informerBackoffMs: 20 });
  manager = { manager: m, client };
  for (const spec of allControllers(m.context())) m.add(spec);
  await m.start();
  return m;
}

type WithConditions = KubeObject & { status?: { conditions?: { type: string; status: string; reason: string }[] } };
const ready = async (name: string) =>
  (await kube.client.get<WithConditions>(Resources.Connector, NS, name)).status?.conditions?.find(
    (c) => c.type === 'Ready',
  );
const pod = (namespace: string, name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'main', image: 'busybox' }] },
});
const cached = (m: Manager, ref: typeof Resources.Secret | typeof Resources.Pod) =>
  m.cache
    .list(ref)
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
    .sort();
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the operator cache', () => {
  it('holds no Secret or Pod of the cluster but the ones Steward names or runs', async () => {
    for (const ns of [NS, OTHER]) {
      await kube.client.create(Resources.Secret, {
        ...secret('unrelated', { token: 'x' }),
        metadata: { name: 'unrelated', namespace: ns },
      });
      await kube.client.create(Resources.Pod, pod(ns, 'web', { app: 'web' }));
    }
    await kube.client.create(
      Resources.Pod,
      pod(NS, 'prod-gateway-1', { [LABELS.name]: 'steward', [LABELS.component]: 'gateway' }),
    );
    await kube.client.create(Resources.Secret, secret('pg', { url: 'postgres://pg/orders' }));
    await kube.client.create(Resources.Connector, manifest(connector('orders', withConnectionSecret('pg'))));
    const m = await startManager();
    await eventually(async () => expect(await ready('orders')).toMatchObject({ status: 'True' }));

    expect(cached(m, Resources.Secret)).toEqual([`${NS}/pg`]);
    expect(cached(m, Resources.Pod)).toEqual([`${NS}/prod-gateway-1`]);
    // Every list of Secrets or Pods the operator made carried a selector: the others never left the server.
    const lists = kube.cluster.requests
      .filter({ verb: 'list' })
      .filter((r) => r.userAgent === USER_AGENT && (r.resource === 'secrets' || r.resource === 'pods'));
    expect(lists.length).toBeGreaterThan(0);
    for (const r of lists) expect(r.query).toMatch(/labelSelector=|fieldSelector=/);
  });

  it('reconciles a Connector when the Secret it names is created, and again when its key goes', async () => {
    await kube.client.create(Resources.Connector, manifest(connector('orders', withConnectionSecret('pg'))));
    const m = await startManager();
    await eventually(async () =>
      expect(await ready('orders')).toMatchObject({ status: 'False', reason: 'SecretMissing' }),
    );

    await kube.client.create(Resources.Secret, secret('pg', { url: 'postgres://pg/orders' }));
    await eventually(async () => expect(await ready('orders')).toMatchObject({ status: 'True' }));
    await kube.client.replace(Resources.Secret, {
      ...(await kube.client.get(Resources.Secret, NS, 'pg')),
      data: { other: b64('x') },
    });
    await eventually(async () =>
      expect(await ready('orders')).toMatchObject({ status: 'False', reason: 'SecretMissing' }),
    );
    expect(cached(m, Resources.Secret)).toEqual([`${NS}/pg`]);
  });

  it('reconciles a Connector named after its Secret exists straight to Ready: the new watch lists first', async () => {
    await kube.client.create(Resources.Secret, secret('pg', { url: 'postgres://pg/orders' }));
    const m = await startManager();
    // The Secret's list is slow: a reconcile that did not wait for it would find the Secret missing.
    kube.cluster.faults.latency(500, { verb: 'list', resource: 'secrets' });
    await kube.client.create(Resources.Connector, manifest(connector('orders', withConnectionSecret('pg'))));
    await eventually(async () => expect(await ready('orders')).toMatchObject({ status: 'True' }));
    await m.events.flush();
    const warnings = (await kube.client.list(Resources.Event, { namespace: NS })).items.filter(
      (e) => (e as { reason?: string }).reason === 'SecretMissing',
    );
    expect(warnings).toEqual([]);
  });

  it("rolls an Orchestrator's pods when its database Secret changes, and caches the Secret it made", async () => {
    await kube.client.create(Resources.Secret, secret('db', { url: 'postgres://db:5432/a' }));
    await kube.client.create(
      Resources.Orchestrator,
      manifest(orchestrator('prod', withCommunityMode(), withDatabase('db'))),
    );
    const m = await startManager();
    type Deployment = KubeObject & { spec: { template: { metadata: { annotations?: Record<string, string> } } } };
    const hash = async () =>
      (await kube.client.tryGet<Deployment>(Resources.Deployment, NS, 'prod-gateway'))?.spec.template.metadata
        .annotations?.[CONFIG_HASH_ANNOTATION];
    const before = await eventually(async () => {
      const h = await hash();
      expect(h).toBeTruthy();
      return h;
    });
    await kube.client.patch(Resources.Secret, NS, 'db', { data: { url: b64('postgres://db:5432/b') } });
    await eventually(async () => expect(await hash()).not.toBe(before));
    await eventually(() => expect(cached(m, Resources.Secret)).toEqual([`${NS}/db`, `${NS}/prod-internal`]));
  });
});
