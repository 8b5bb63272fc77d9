/**
 * The PolicyException controller against the test API server with the real client: with an injected clock through
 * the controllers' harness (conditions, requeue, Events, no write in a steady state), and under the real Manager,
 * where the condition flips at the expiry by the controller's own requeue.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../../../api/constants.js';
import { KubeClient, type KubeObject } from '../../../../platform/kube/client.js';
import { Resources } from '../../../../platform/kube/resources.js';
import { eventually } from '../../../../testing/eventually.js';
import { useTestCluster } from '../../../../testing/kube/fixture.js';
import { Manager } from '../../../manager/manager.js';
import { allControllers } from '../../index.js';
import { NS, manifest, policy } from '../../test/builders.js';
import { startHarness, type Harness } from '../../test/harness.js';

const kube = useTestCluster({ crds: 'crds/', client: 'policyexception-test' });
const DAY_MS = 86_400_000;

type Conditioned = KubeObject & {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
};

const exception = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: API_VERSION,
  kind: 'PolicyException',
  metadata: { name, namespace: NS },
  spec: { policies: ['builtin-pii'], match: { tenants: ['eu'] }, reason: 'SEC-42', ...spec },
});
const inSeconds = (s: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + s * 1000).toISOString();

const conditionsOf = async (name: string) => {
  const obj = await kube.client.tryGet<Conditioned>(Resources.PolicyException, NS, name);
  return Object.fromEntries((obj?.status?.conditions ?? []).map((c) => [c.type, c]));
};

describe('PolicyException reconciler, injected clock', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kube.cluster);
  });
  afterEach(async () => {
    await h.stop();
  });

  it('sets Ready until expiresAt, then Expired with one Event, requeueing itself for the expiry', async () => {
    const expiresAt = inSeconds(3600);
    await kube.client.create(Resources.Policy, manifest(policy('custom', 'package custom\n')));
    await kube.client.create(
      Resources.PolicyException,
      exception('eu', { policies: ['builtin-pii', 'custom'], expiresAt }),
    );
    const now = new Date(Date.parse(expiresAt) - 60_000);
    h.setNow(now);
    expect(await h.reconcile('policyexception', `${NS}/eu`)).toEqual({ requeueAfterMs: 60_000 });
    let c = await conditionsOf('eu');
    expect(c.Ready).toMatchObject({ status: 'True', reason: 'ExceptionActive' });
    expect(c.Ready!.message).toContain('no Policy builtin-pii in this namespace');
    expect(c.Ready!.message).not.toContain('custom in this namespace');
    expect(c.Expired).toMatchObject({ status: 'False', reason: 'NotExpired', message: `expires at ${expiresAt}` });

    h.setNow(new Date(expiresAt));
    expect(await h.reconcile('policyexception', `${NS}/eu`)).toBeUndefined();
    c = await conditionsOf('eu');
    expect(c.Ready).toMatchObject({ status: 'False', reason: 'Expired' });
    expect(c.Expired).toMatchObject({ status: 'True', reason: 'Expired' });
    expect(h.events).toEqual([
      expect.objectContaining({ kind: 'PolicyException', name: 'eu', type: 'Normal', reason: 'Expired' }),
    ]);

    // A steady state writes nothing and announces nothing again.
    const writes = h.writes();
    await h.reconcile('policyexception', `${NS}/eu`);
    expect(h.writes()).toBe(writes);
    expect(h.events).toHaveLength(1);
  });

  it.each([
    {
      name: 'sets Ready=False InvalidSpec when expiresAt is more than 90 days after the creation',
      spec: { expiresAt: new Date(Date.now() + 91 * DAY_MS).toISOString() },
      message: /^spec\.expiresAt \(.*\) is more than 90 days after the object's creation/,
    },
    {
      // NB: the CRD's CEL rule says so to a real API server; the test server runs no CEL, the operator does.
      name: 'sets Ready=False InvalidSpec when neither expiresAt nor permanent is set',
      spec: {},
      message: /^spec\.expiresAt is required unless spec\.permanent is true$/,
    },
  ])('$name', async ({ spec, message }) => {
    await kube.client.create(Resources.PolicyException, exception('bad', spec));
    await h.reconcile('policyexception', `${NS}/bad`);
    const c = await conditionsOf('bad');
    expect(c.Ready).toMatchObject({ status: 'False', reason: 'InvalidSpec', message: expect.stringMatching(message) });
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'InvalidSpec' }));
  });

  it('keeps a permanent exception Ready with no requeue', async () => {
    await kube.client.create(Resources.PolicyException, exception('forever', { permanent: true }));
    expect(await h.reconcile('policyexception', `${NS}/forever`)).toBeUndefined();
    expect((await conditionsOf('forever')).Ready).toMatchObject({ status: 'True', reason: 'ExceptionActive' });
  });
});

describe('PolicyException controller under the Manager', () => {
  let manager: Manager | undefined;
  let client: KubeClient | undefined;
  afterEach(async () => {
    await manager?.stop();
    await client?.close();
    manager = client = undefined;
  });

  it('flips Ready to False and Expired to True at expiresAt with nothing else changing, and records an Event', async () => {
    client = await KubeClient.connect({ kubeconfigYaml: kube.cluster.kubeconfigYaml, userAgent: 'polex-operator' });
    const m = (manager = new Manager({ client, log: pino({ level: 'silent' }), informerBackoffMs: 20 }));
    for (const spec of allControllers(m.context()).filter((s) => s.name === 'policyexception')) m.add(spec);
    await m.start();

    await kube.client.create(Resources.PolicyException, exception('soon', { expiresAt: inSeconds(3600) }));
    await eventually(async () => expect((await conditionsOf('soon')).Ready?.status).toBe('True'), 30_000);
    // A short expiry from now: the change is reconciled at once, and again by the controller's own requeue.
    const expiresAt = inSeconds(2);
    await kube.client.patch(Resources.PolicyException, NS, 'soon', { spec: { expiresAt } });
    await eventually(async () => {
      const c = await conditionsOf('soon');
      expect(c.Expired).toMatchObject({ status: 'True', reason: 'Expired', message: `expired at ${expiresAt}` });
      expect(c.Ready).toMatchObject({ status: 'False', reason: 'Expired' });
    }, 30_000);
    await eventually(async () => {
      const events = (await kube.client.list(Resources.Event, { namespace: NS })).items as (KubeObject & {
        reason?: string;
        involvedObject?: { name?: string };
      })[];
      expect(events.filter((e) => e.reason === 'Expired' && e.involvedObject?.name === 'soon')).toHaveLength(1);
    }, 30_000);
  });
});
