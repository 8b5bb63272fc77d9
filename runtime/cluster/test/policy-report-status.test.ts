/**
 * `Policy.status.report` written by the holder of a Lease, against the test API server with the real client and
 * the real kubectl: two replicas over one database, one of them writes; a change is written at most once per
 * interval and only when the counts differ. The writers' clock is the test's: the interval passes when it says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyReportStatus } from '../../../api/index.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { createLogger } from '../../../platform/log.js';
import { eventually } from '../../../testing/eventually.js';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { Kubectl } from '../../../testing/kube/test/kubectl.js';
import type { PolicyResult } from '../../policy/types.js';
import { PolicyReports } from '../../policy/reports/index.js';
import { migrate, openPglite, storeOn, type Db, type Store } from '../../store/index.js';
import { leaseReplicas, type Replica } from './lease-replicas.js';
import { PolicyReportWriter } from '../policy-report-status.js';

const NS = 'default';
const LEASE = 'steward-gateway-status';
const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The writers' clock. */
let now = new Date('2030-01-01T12:00:00.000Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

let cluster: TestCluster;
let client: KubeClient;
let kubectl: Kubectl;
let db: Db;
let store: Store;
const replicas: Replica<PolicyReportWriter>[] = [];
let fleet: ReturnType<typeof leaseReplicas<PolicyReportWriter>>;

const policy = (name: string, enforcementAction: string): KubeObject => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Policy',
  metadata: { name, namespace: NS },
  spec: {
    type: 'custom',
    enforcementAction,
    rego: `package ${name.replace('-', '_')}\n\ndeny contains "no" if false\n`,
  },
});
const blocked: PolicyResult = { policy: 'p-block', mode: 'enforce', would: 'block', decision: 'block' };
const audited: PolicyResult = { policy: 'p-audit', mode: 'audit', would: 'block', decision: 'audit' };

let n = 0;
const precheck = (at: Date, results: PolicyResult[]) =>
  store.contexts.results.record({
    contextId: `ctx_${n++}`,
    organizationId: 'acme',
    clientId: 'app',
    evaluated: ['p-block', 'p-audit', 'builtin-pii'],
    results,
    createdAt: at,
  });

const reportOf = async (name: string) =>
  ((await client.get(Resources.Policy, NS, name)) as KubeObject & { status?: { report?: PolicyReportStatus } }).status
    ?.report;
const writes = () => fleet.writes();
const leader = () => fleet.leader();

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/' });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'policy-report-test' });
  kubectl = new Kubectl(cluster.kubeconfig);
  db = await openPglite();
  await migrate(db);
  store = storeOn(db);
  await client.create(Resources.Policy, policy('p-block', 'enforce'));
  await client.create(Resources.Policy, policy('p-audit', 'audit'));
  await precheck(minutesAgo(10), [blocked]);
  await precheck(minutesAgo(20), [audited]);
  await precheck(minutesAgo(120), [blocked, audited]);
  await precheck(minutesAgo(25 * 60), [blocked]);
  fleet = leaseReplicas(
    { client, namespace: NS, lease: LEASE, log, replicas },
    (source) =>
      new PolicyReportWriter({
        client,
        source,
        reports: new PolicyReports(db),
        now: () => now,
        log,
      }),
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

const zero = { block: 0, warn: 0, log: 0, audit: 0, exempted: 0, redact: 0 };

describe('Policy.status.report', () => {
  it('is written by the Lease holder alone: both windows, with the time the counts were taken', async () => {
    await eventually(async () =>
      expect(await reportOf('p-block')).toEqual({
        updatedAt: now.toISOString(),
        last1h: { evaluations: 2, violations: 1 },
        last24h: { evaluations: 3, violations: 2, byDecision: { ...zero, block: 2 } },
      }),
    );
    await eventually(async () =>
      expect(await reportOf('p-audit')).toMatchObject({
        last1h: { evaluations: 2, violations: 1 },
        last24h: { evaluations: 3, violations: 2, byDecision: { ...zero, audit: 2 } },
      }),
    );
    expect(replicas.filter((r) => r.role.holding)).toHaveLength(1);
    expect(replicas.find((r) => !r.role.holding)!.writer.writes).toBe(0);
    expect(writes()).toBe(2);
  });

  it('shows the Mode and Violations(24h) columns in kubectl get stwpol', async () => {
    const out = await kubectl.ok(['get', 'stwpol', '-n', NS]);
    const [head, ...rows] = out.trim().split('\n');
    expect(head).toMatch(/NAME\s+TYPE\s+ACTION\s+MODE\s+VIOLATIONS\(24H\)\s+PRIORITY/);
    expect(rows.map((r) => r.split(/\s+/).slice(0, 5))).toEqual([
      ['p-audit', 'custom', 'block', 'audit', '2'],
      ['p-block', 'custom', 'block', 'enforce', '2'],
    ]);
  });

  it('holds a change until the interval has passed, then writes the Policies whose counts changed', async () => {
    await precheck(now, [blocked]);
    await leader().writer.count();
    expect(writes()).toBe(2);
    expect((await reportOf('p-block'))?.last24h.violations).toBe(2);

    now = new Date(now.getTime() + 61_000);
    await leader().writer.count();
    expect(writes()).toBe(4);
    expect(await reportOf('p-block')).toEqual({
      updatedAt: now.toISOString(),
      last1h: { evaluations: 3, violations: 2 },
      last24h: { evaluations: 4, violations: 3, byDecision: { ...zero, block: 3 } },
    });
    expect(await reportOf('p-audit')).toMatchObject({ last1h: { evaluations: 3 }, last24h: { evaluations: 4 } });
  });

  it('writes nothing when the counts have not changed, whether or not its cache shows its last write yet', async () => {
    now = new Date(now.getTime() + 61_000);
    await leader().writer.count();
    expect(writes()).toBe(4);
    await eventually(async () =>
      expect(leader().source.object('Policy', 'p-block')?.status).toHaveProperty('report.last24h.evaluations', 4),
    );
    await leader().writer.count();
    expect(writes()).toBe(4);
  });

  it('moves to the other replica when the holder gives the Lease up, which writes what changed', async () => {
    const first = leader();
    await first.role.stop();
    const second = await eventually(() => {
      const r = replicas.find((x) => x !== first && x.role.holding);
      if (!r) throw new Error('no new holder yet');
      return r;
    });
    await precheck(now, [blocked]);
    await second.writer.count();
    expect((await reportOf('p-block'))?.last24h.violations).toBe(4);
    expect(second.writer.writes).toBe(2);
  });
});
