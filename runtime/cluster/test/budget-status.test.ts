/**
 * `Budget.status` written by the holder of a Lease, against the test API server with the real client and the real
 * kubectl: two replicas over one database, one of them writes; a change is written at most once per interval and
 * only when the figures differ. The writers' clock is the test's: the interval passes when it says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetWindowSpec } from '../../../api/index.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { createLogger } from '../../../platform/log.js';
import { eventually } from '../../../testing/eventually.js';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { Kubectl } from '../../../testing/kube/test/kubectl.js';
import { budgetWindowOf } from '../../budgets/window-of.js';
import { windowSpan } from '../../budgets/windows.js';
import { migrate, openPglite, storeOn, type Db, type Store } from '../../store/index.js';
import { BudgetStatusWriter } from '../budget-status.js';
import { leaseReplicas, type Replica } from './lease-replicas.js';

const NS = 'default';
const LEASE = 'steward-gateway-status';
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The writers' clock. */
let now = new Date('2030-01-15T12:00:00.000Z');
const FAR = new Date('2031-01-01T00:00:00Z');
const MONTH: BudgetWindowSpec = { period: 'month', timeZone: 'UTC' };
const DAY: BudgetWindowSpec = { period: 'day', timeZone: 'UTC' };

let cluster: TestCluster;
let client: KubeClient;
let kubectl: Kubectl;
let db: Db;
let store: Store;
const replicas: Replica<BudgetStatusWriter>[] = [];
let fleet: ReturnType<typeof leaseReplicas<BudgetStatusWriter>>;

const budget = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Budget',
  metadata: { name, namespace: NS },
  spec,
});

let n = 0;
/** A settled call of `used` on a ledger, in the window of the writers' clock. */
async function spend(ledger: string, window: BudgetWindowSpec, used: { micros: number; tokens: number }) {
  const span = windowSpan(budgetWindowOf(window), now);
  const id = `call-${n++}`;
  await store.budgets.reserve(id, [{ ledger, bucket: span.bucket, from: span.from, block: false }], used, FAR);
  await store.budgets.settle(id, used);
}

type Status = { spent?: unknown; reserved?: unknown; remaining?: unknown; windowEnds?: string; ledgers?: number };
const statusOf = async (name: string) =>
  ((await client.get(Resources.Budget, NS, name)) as KubeObject & { status?: Status & { updatedAt?: string } }).status;
const writes = () => fleet.writes();
const leader = () => fleet.leader();

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/' });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'budget-status-test' });
  kubectl = new Kubectl(cluster.kubeconfig);
  db = await openPglite();
  await migrate(db);
  store = storeOn(db);
  await client.create(Resources.Budget, budget('team', { limit: { usd: 5, tokens: 1000 }, window: MONTH }));
  await client.create(
    Resources.Budget,
    budget('per-client', { each: 'client', limit: { tokens: 100 }, window: DAY, action: 'warn' }),
  );
  await spend('default/team', MONTH, { micros: 1_500_000, tokens: 400 });
  await spend('default/per-client#a', DAY, { micros: 0, tokens: 30 });
  await spend('default/per-client#b', DAY, { micros: 0, tokens: 70 });
  fleet = leaseReplicas(
    { client, namespace: NS, lease: LEASE, log, replicas },
    (source) => new BudgetStatusWriter({ client, source, ledger: store.budgets, now: () => now, log }),
  );
  await fleet.start('gateway-a');
  await fleet.start('gateway-b');
}, 60_000);
afterAll(async () => {
  await fleet?.close();
  await db?.close();
  await client?.close();
  kubectl?.dispose();
  await cluster?.close();
});

describe('Budget.status', () => {
  it('is written by the Lease holder alone: the window spend, what is left, when it ends, and when it was read', async () => {
    await eventually(async () =>
      expect(await statusOf('team')).toEqual({
        spent: { usd: 1.5, tokens: 400 },
        reserved: { usd: 0, tokens: 0 },
        remaining: { usd: 3.5, tokens: 600 },
        windowEnds: '2030-02-01T00:00:00.000Z',
        updatedAt: now.toISOString(),
      }),
    );
    await eventually(async () =>
      expect(await statusOf('per-client')).toMatchObject({
        spent: { tokens: 70 },
        remaining: { tokens: 30 },
        windowEnds: '2030-01-16T00:00:00.000Z',
        ledgers: 2,
      }),
    );
    expect(replicas.filter((r) => r.role.holding)).toHaveLength(1);
    expect(replicas.find((r) => !r.role.holding)!.writer.writes).toBe(0);
    expect(writes()).toBe(2);
  });

  it('shows the spend columns in kubectl get budgets', async () => {
    const out = await kubectl.ok(['get', 'budgets', '-n', NS]);
    const [head, ...rows] = out.trim().split('\n');
    expect(head).toMatch(/NAME\s+ACTION\s+LIMIT-USD\s+SPENT-USD\s+LIMIT-TOKENS\s+SPENT-TOKENS\s+WINDOW-ENDS/);
    // NB: kubectl leaves the cell of an absent field blank (per-client has no limit in dollars)
    expect(rows[0]).toMatch(/^per-client\s+warn\s+0\s+100\s+70\s+2030-01-16T00:00:00\.000Z\s/);
    expect(rows[1]).toMatch(/^team\s+block\s+5\s+1\.5\s+1000\s+400\s+2030-02-01T00:00:00\.000Z\s/);
  });

  it('holds a change until the interval has passed, then writes the Budgets whose figures changed', async () => {
    await spend('default/team', MONTH, { micros: 500_000, tokens: 100 });
    await leader().writer.read();
    expect(writes()).toBe(2);
    expect(await statusOf('team')).toMatchObject({ spent: { tokens: 400 } });

    now = new Date(now.getTime() + 31_000);
    await leader().writer.read();
    expect(writes()).toBe(3);
    expect(await statusOf('team')).toMatchObject({
      spent: { usd: 2, tokens: 500 },
      remaining: { usd: 3, tokens: 500 },
      updatedAt: now.toISOString(),
    });
  });

  it('writes nothing when the figures have not changed, whether or not its cache shows its last write yet', async () => {
    now = new Date(now.getTime() + 31_000);
    await leader().writer.read();
    expect(writes()).toBe(3);
    await eventually(async () =>
      expect(leader().source.object('Budget', 'team')?.status).toHaveProperty('spent.tokens', 500),
    );
    await leader().writer.read();
    expect(writes()).toBe(3);
  });

  it('starts from zero in a new window, and drops a unit the limit no longer names', async () => {
    now = new Date('2030-02-01T00:00:10.000Z');
    await client.patch(Resources.Budget, NS, 'team', { spec: { limit: { usd: null } } });
    await eventually(() => expect(leader().source.get('Budget', 'team')?.spec.limit.usd).toBeUndefined());
    await leader().writer.read();
    expect(await statusOf('team')).toEqual({
      spent: { usd: 0, tokens: 0 },
      reserved: { usd: 0, tokens: 0 },
      remaining: { tokens: 1000 },
      windowEnds: '2030-03-01T00:00:00.000Z',
      updatedAt: now.toISOString(),
    });
  });

  it('moves to the other replica when the holder gives the Lease up, which writes what changed', async () => {
    const first = leader();
    await first.role.stop();
    const second = await eventually(() => {
      const r = replicas.find((x) => x !== first && x.role.holding);
      if (!r) throw new Error('no new holder yet');
      return r;
    });
    // its first reading (on taking the Lease) is written; the next change waits for the interval
    await second.writer.read();
    now = new Date(now.getTime() + 31_000);
    await spend('default/team', MONTH, { micros: 0, tokens: 10 });
    await second.writer.read();
    expect(await statusOf('team')).toMatchObject({ spent: { tokens: 10 }, remaining: { tokens: 990 } });
    expect(second.writer.writes).toBeGreaterThan(0);
  });
});
