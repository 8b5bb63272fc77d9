import { afterEach, describe, expect, it } from 'vitest';
import { useTestCluster } from '../../../testing/kube/fixture.js';
import { KubeClient, type KubeObject } from '../../../platform/kube/client.js';
import { isAborted } from '../../../platform/kube/errors.js';
import { Resources } from '../../../platform/kube/resources.js';
import { Manager } from '../manager.js';
import type { ReconcileRequest } from '../types.js';
import { configMap, eventually, silent, sleep } from './helpers.js';

const kube = useTestCluster({ crds: 'crds/', client: false });
const running: { manager: Manager; client: KubeClient }[] = [];

afterEach(async () => {
  kube.cluster.faults.clear();
  for (const r of running.splice(0)) {
    await r.manager.stop();
    await r.client.close();
  }
});

interface Reconcile {
  holder: string;
  startedAt: number;
  endedAt: number;
}

type LeaderExtra = { onLostLeadership?: () => void; leaseDurationMs?: number; renewDeadlineMs?: number };

/** A manager with leader election on the Lease `operator-lease`, and its own client named `identity`; not started. */
async function leaderManager(
  identity: string,
  extra: LeaderExtra = {},
): Promise<{ manager: Manager; client: KubeClient }> {
  const { leaseDurationMs = 2000, renewDeadlineMs = 1500, onLostLeadership } = extra;
  const client = await KubeClient.connect({ kubeconfigYaml: kube.cluster.kubeconfigYaml, userAgent: identity });
  const manager = new Manager({
    client,
    log: silent,
    namespace: 'default',
    informerBackoffMs: 20,
    leaderElection: {
      namespace: 'default',
      name: 'operator-lease',
      identity,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs: 100,
    },
    onLostLeadership,
  });
  running.push({ manager, client });
  return { manager, client };
}

/**
 * A replica: its own client and manager, with a controller that reconciles every ConfigMap again every 10 ms
 * (so whoever leads is always busy) and records when each reconcile ran.
 */
async function replica(identity: string, log: Reconcile[], extra: LeaderExtra = {}): Promise<Manager> {
  const { manager } = await leaderManager(identity, extra);
  manager.add({
    name: 'busy',
    for: Resources.ConfigMap,
    reconciler: {
      async reconcile() {
        const startedAt = Date.now();
        await sleep(5);
        log.push({ holder: identity, startedAt, endedAt: Date.now() });
        return { requeueAfterMs: 10 };
      },
    },
  });
  await manager.start();
  return manager;
}

/** Reconciles of different replicas never overlap in time. */
function expectNoOverlap(log: Reconcile[]): void {
  const sorted = [...log].sort((x, y) => x.startedAt - y.startedAt);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted.slice(0, i).filter((r) => r.holder !== sorted[i]!.holder);
    const lastOther = Math.max(...prev.map((r) => r.endedAt), -Infinity);
    expect(
      sorted[i]!.startedAt,
      `${sorted[i]!.holder} started while another replica was reconciling`,
    ).toBeGreaterThanOrEqual(lastOther);
  }
}

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };
const countBy = (log: Reconcile[], holder: string) => log.filter((r) => r.holder === holder).length;

describe('two managers behind one Lease', () => {
  it('run the controllers on one replica only, and hand over at once on a graceful stop', async () => {
    await kube.cluster.store.create(CONFIGMAPS, configMap('work'));
    const log: Reconcile[] = [];
    // A 60 s Lease: had a not released it, b would take over only after the test's deadline.
    const long = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000 };
    const a = await replica('a', log, long);
    await eventually(() => expect(countBy(log, 'a')).toBeGreaterThan(5));
    const b = await replica('b', log, long);
    expect(b.ready).toBe(true);
    // b has a synced cache (ready) but does not reconcile while a leads.
    const seenByA = countBy(log, 'a');
    await eventually(() => expect(countBy(log, 'a')).toBeGreaterThan(seenByA + 20));
    expect(countBy(log, 'b')).toBe(0);
    expect(b.leading).toBe(false);

    await a.stop();
    await eventually(() => expect(countBy(log, 'b')).toBeGreaterThan(5));
    expect(a.leading).toBe(false);
    expectNoOverlap(log);
  });

  it('hand over within the lease duration when the leader crashes without releasing', async () => {
    await kube.cluster.store.create(CONFIGMAPS, configMap('work'));
    const log: Reconcile[] = [];
    const a = await replica('a', log);
    await eventually(() => expect(countBy(log, 'a')).toBeGreaterThan(5));
    const b = await replica('b', log);
    await a.stop({ releaseLease: false });
    const crashedAt = Date.now();
    await eventually(() => expect(countBy(log, 'b')).toBeGreaterThan(5));
    expectNoOverlap(log);
    // The Lease was not released: b waited for it to expire (a lower bound, safe on any machine).
    const firstOfB = Math.min(...log.filter((r) => r.holder === 'b').map((r) => r.startedAt));
    expect(firstOfB).toBeGreaterThan(crashedAt);
    expect(b.leading).toBe(true);
  });

  it('stop the workers of a leader that cannot renew, and tell the process', async () => {
    await kube.cluster.store.create(CONFIGMAPS, configMap('work'));
    const log: Reconcile[] = [];
    let lost = 0;
    const a = await replica('a', log, { onLostLeadership: () => lost++ });
    await eventually(() => expect(countBy(log, 'a')).toBeGreaterThan(5));
    kube.cluster.faults.inject({ verb: ['get', 'update'], resource: 'leases', status: 500, times: 1_000_000 });
    await eventually(() => expect(lost).toBe(1));
    expect(a.leading).toBe(false);
    const after = countBy(log, 'a');
    await sleep(100);
    expect(countBy(log, 'a')).toBe(after);
  });
});

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
const WRITES = ['create', 'update', 'patch', 'delete'] as const;

const secret = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default' },
  stringData: { step: name },
});

/** Opened by the test: the reconcile waits on it between its first write and the next ones. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('a reconcile in flight when leadership is lost', () => {
  it('makes no further writes: its client calls reject with Aborted and it is neither an error nor retried', async () => {
    await kube.cluster.store.create(CONFIGMAPS, configMap('work'));
    let lost = 0;
    const { manager, client } = await leaderManager('a', { onLostLeadership: () => lost++ });
    const held = gate();
    let inFlight: ReconcileRequest | undefined;
    let failure: unknown;
    manager.add({
      name: 'gated',
      for: Resources.ConfigMap,
      reconciler: {
        async reconcile(req) {
          const { signal } = req;
          await client.create(Resources.Secret, secret(`${req.name}-first`), { signal });
          inFlight = req;
          await held.wait;
          try {
            await client.create(Resources.Secret, secret(`${req.name}-second`), { signal });
            await client.patch(Resources.ConfigMap, req.namespace, req.name, { data: { done: 'yes' } }, { signal });
          } catch (err) {
            failure = err;
            throw err;
          }
        },
      },
    });
    await manager.start();
    const writesBy = () => kube.cluster.requests.filter({ verb: [...WRITES] }).filter((r) => r.userAgent === 'a');
    const reconcileWrites = () => writesBy().filter((r) => r.resource !== 'leases').length;

    await eventually(() => expect(inFlight).toBeDefined());
    expect(reconcileWrites()).toBe(1);

    // The Lease can no longer be renewed: after the renew deadline the manager stops leading.
    kube.cluster.faults.inject({ verb: ['get', 'update'], resource: 'leases', status: 500, times: 1_000_000 });
    await eventually(() => expect(inFlight!.signal.aborted).toBe(true));
    expect(manager.leading).toBe(false);

    held.open();
    // The manager tells the process only once the reconciles in flight ended.
    await eventually(() => expect(lost).toBe(1));
    expect(isAborted(failure)).toBe(true);
    expect(reconcileWrites()).toBe(1);
    expect(kube.cluster.store.tryGet(SECRETS, 'default', 'work-first')).toBeDefined();
    expect(kube.cluster.store.tryGet(SECRETS, 'default', 'work-second')).toBeUndefined();
    expect(kube.cluster.store.get(CONFIGMAPS, 'default', 'work').data).toEqual({});
    expect(manager.stats().gated).toMatchObject({ reconciles: 1, errors: 0, retries: 0 });
  });
});
