/**
 * The Budget controller against the test API server with the real client, through the controllers' harness:
 * Ready from what the CRD cannot check, observedGeneration, Events, the gateway's status fields kept, and no write
 * in a steady state; and once under the real Manager.
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
import { NS } from '../../test/builders.js';
import { startHarness, type Harness } from '../../test/harness.js';

const kube = useTestCluster({ crds: 'crds/', client: 'budget-test' });

type Conditioned = KubeObject & {
  status?: Record<string, unknown> & {
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string; message: string; observedGeneration?: number }[];
  };
};

const budget = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: API_VERSION,
  kind: 'Budget',
  metadata: { name, namespace: NS },
  spec: { limit: { usd: 100 }, window: { period: 'month', timeZone: 'Europe/Lisbon' }, ...spec },
});

const get = (name: string) => kube.client.tryGet<Conditioned>(Resources.Budget, NS, name);
const ready = async (name: string) => (await get(name))?.status?.conditions?.find((c) => c.type === 'Ready');

describe('Budget reconciler', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kube.cluster);
  });
  afterEach(async () => {
    await h.stop();
  });

  it("sets Ready=True with what it holds and observedGeneration, keeps the gateway's figures, then writes nothing", async () => {
    await kube.client.create(Resources.Budget, budget('team', { each: 'client' }));
    // the gateway's figures, written before the operator got to the Budget
    const obj = (await get('team'))!;
    await kube.client.patch(
      Resources.Budget,
      NS,
      'team',
      { status: { spent: { usd: 1, tokens: 10 }, windowEnds: '2030-02-01T00:00:00.000Z' } },
      { subresource: 'status' },
    );
    expect(await h.reconcile('budget', `${NS}/team`)).toBeUndefined();
    const after = (await get('team'))!;
    expect(after.status).toMatchObject({
      observedGeneration: obj.metadata.generation,
      spent: { usd: 1, tokens: 10 },
      windowEnds: '2030-02-01T00:00:00.000Z',
    });
    expect(await ready('team')).toMatchObject({
      status: 'True',
      reason: 'BudgetActive',
      message: 'refuses calls past $100 per month (Europe/Lisbon), per client',
      observedGeneration: obj.metadata.generation,
    });
    expect(h.events).toEqual([]);

    const writes = h.writes();
    await h.reconcile('budget', `${NS}/team`);
    expect(h.writes()).toBe(writes);
  });

  it.each([
    {
      name: 'sets Ready=False UnknownTimeZone with a Warning Event when the time zone is unknown',
      spec: { window: { period: 'day', timeZone: 'Europe/Atlantis' } },
      reason: 'UnknownTimeZone',
      message: /^spec\.window\.timeZone "Europe\/Atlantis" is no IANA time zone/,
    },
    {
      // NB: the CRD's CEL rule says so to a real API server; the test server runs no CEL, the operator does.
      name: 'sets Ready=False InvalidSpec with a Warning Event when the window has both period and hours',
      spec: { window: { period: 'day', hours: 5 } },
      reason: 'InvalidSpec',
      message: /^spec\.window.*exactly one of period and hours.*: the gateways skip this Budget$/,
    },
  ])('$name', async ({ spec, reason, message }) => {
    await kube.client.create(Resources.Budget, budget('bad', spec));
    await h.reconcile('budget', `${NS}/bad`);
    expect(await ready('bad')).toMatchObject({ status: 'False', reason, message: expect.stringMatching(message) });
    expect(h.events).toEqual([expect.objectContaining({ kind: 'Budget', name: 'bad', type: 'Warning', reason })]);
  });

  it('turns Ready=True once the spec is fixed, with the new observedGeneration', async () => {
    await kube.client.create(Resources.Budget, budget('fixed', { window: { period: 'week', timeZone: 'Nowhere' } }));
    await h.reconcile('budget', `${NS}/fixed`);
    expect((await ready('fixed'))?.status).toBe('False');
    await kube.client.patch(Resources.Budget, NS, 'fixed', { spec: { window: { timeZone: 'Asia/Tokyo' } } });
    await eventually(async () => {
      await h.reconcile('budget', `${NS}/fixed`);
      const obj = (await get('fixed'))!;
      expect(obj.status?.observedGeneration).toBe(obj.metadata.generation);
      expect(await ready('fixed')).toMatchObject({
        status: 'True',
        message: 'refuses calls past $100 per week (Asia/Tokyo)',
      });
    });
  });
});

describe('Budget controller under the Manager', () => {
  let manager: Manager | undefined;
  let client: KubeClient | undefined;
  afterEach(async () => {
    await manager?.stop();
    await client?.close();
    manager = client = undefined;
  });

  it('reconciles a Budget created and changed while it runs', async () => {
    client = await KubeClient.connect({ kubeconfigYaml: kube.cluster.kubeconfigYaml, userAgent: 'budget-operator' });
    const m = (manager = new Manager({ client, log: pino({ level: 'silent' }), informerBackoffMs: 20 }));
    for (const spec of allControllers(m.context()).filter((s) => s.name === 'budget')) m.add(spec);
    await m.start();

    await kube.client.create(Resources.Budget, budget('live', {}));
    await eventually(async () => expect((await ready('live'))?.status).toBe('True'), 30_000);
    await kube.client.patch(Resources.Budget, NS, 'live', { spec: { window: { timeZone: 'Not/AZone' } } });
    await eventually(async () => expect((await ready('live'))?.reason).toBe('UnknownTimeZone'), 30_000);
  });
});
