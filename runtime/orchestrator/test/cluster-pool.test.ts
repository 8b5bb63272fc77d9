import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { PoolStatusWriter } from '../../cluster/pool-status.js';
import { AgentPool, EndpointSliceSource } from '../pool/index.js';
import { HttpAgent } from '../pool/test/http-agent.js';
import { agentConfig, agentSlice, agentWorkload, eventually, NS, orchestrator } from './cluster-fixtures.js';

/**
 * The orchestrator's pool in cluster mode against the test API server: members from the EndpointSlices of the
 * selected AgentConfigs' Services, and the pool's status written by the replica holding the Lease.
 */
let cluster: TestCluster;
let client: KubeClient;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  cluster = await startTestCluster({
    crds: 'crds/',
    namespaces: ['everything'],
    workloads: { kubeletMode: 'simulated' },
  });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'cluster-pool-test' });
});
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
});

const create = (obj: KubeObject) => client.create(refOf(obj), obj);
function refOf(obj: KubeObject) {
  const ref = Object.values(Resources).find((r) => r.kind === obj.kind);
  if (!ref) throw new Error(`no resource for ${obj.kind}`);
  return ref;
}

async function agents(n: number): Promise<HttpAgent[]> {
  const list = await Promise.all(Array.from({ length: n }, () => new HttpAgent().start()));
  cleanup.push(() => Promise.all(list.map((a) => a.stop())));
  return list;
}

async function startPool(
  orchestratorName: string,
  namespace = NS,
  c = client,
): Promise<{ pool: AgentPool; source: EndpointSliceSource }> {
  const source = new EndpointSliceSource({ client: c, namespace, orchestrator: orchestratorName });
  const pool = await AgentPool.start({ source, probeIntervalMs: 50 });
  cleanup.push(() => pool.close());
  return { pool, source };
}

const memberKeys = (pool: AgentPool) =>
  pool
    .members()
    .filter((m) => !m.draining)
    .map((m) => m.key)
    .sort();
const key = (agent: string, a: HttpAgent, namespace = NS) => `${namespace}/${agent}@${a.endpoint}`;

describe('EndpointSlice discovery', () => {
  it('adds ready endpoints of the selected AgentConfigs, drops ones that stop being ready or disappear, and adds new ones', async () => {
    const [a, b, c, d] = await agents(4);
    await create(orchestrator('disc', { pool: 'disc' }));
    await create(agentConfig('disc-travel', { labels: { pool: 'disc' }, replicas: 2 }));
    await create(agentConfig('disc-other', { labels: { pool: 'elsewhere' } }));
    await create(
      agentSlice('disc-travel-agent-a', 'disc-travel', a!.port, [{ ip: '127.0.0.1', pod: 'disc-travel-a' }]),
    );
    await create(
      agentSlice('disc-travel-agent-b', 'disc-travel', b!.port, [{ ip: '127.0.0.1', pod: 'disc-travel-b' }]),
    );
    await create(agentSlice('disc-other-agent-c', 'disc-other', c!.port, [{ ip: '127.0.0.1', pod: 'disc-other-c' }]));

    const { pool } = await startPool('disc');
    expect(memberKeys(pool)).toEqual([key('disc-travel', a!), key('disc-travel', b!)].sort());
    await eventually(() => expect(pool.status()).toEqual({ desired: 2, available: 2, healthy: 2, unhealthy: 0 }));

    // b's pod stops being ready: its endpoint stays in the slice with ready=false.
    await client.patch(Resources.EndpointSlice, NS, 'disc-travel-agent-b', {
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: false, serving: false, terminating: true } }],
    });
    await eventually(() => expect(memberKeys(pool)).toEqual([key('disc-travel', a!)]));

    // a's pod is deleted: the controller removes its endpoint (here, its slice).
    await client.delete(Resources.EndpointSlice, NS, 'disc-travel-agent-a');
    await eventually(() => expect(memberKeys(pool)).toEqual([]));
    expect(pool.status()).toEqual({ desired: 2, available: 0, healthy: 0, unhealthy: 0 });

    // A replacement pod becomes ready.
    await create(
      agentSlice('disc-travel-agent-d', 'disc-travel', d!.port, [{ ip: '127.0.0.1', pod: 'disc-travel-d' }]),
    );
    await eventually(() => expect(memberKeys(pool)).toEqual([key('disc-travel', d!)]));
    await eventually(() => expect(pool.status()).toEqual({ desired: 2, available: 1, healthy: 1, unhealthy: 0 }));
  });

  it('follows the selector: relabelling an AgentConfig into the pool adds its agents and its replicas', async () => {
    const [a, b] = await agents(2);
    await create(orchestrator('sel', { pool: 'sel' }));
    await create(agentConfig('sel-in', { labels: { pool: 'sel' }, replicas: 1 }));
    await create(agentConfig('sel-out', { labels: { pool: 'not-sel' }, replicas: 3 }));
    await create(agentSlice('sel-in-agent-a', 'sel-in', a!.port, [{ ip: '127.0.0.1' }]));
    await create(agentSlice('sel-out-agent-b', 'sel-out', b!.port, [{ ip: '127.0.0.1' }]));
    const { pool } = await startPool('sel');
    expect(memberKeys(pool)).toEqual([key('sel-in', a!)]);
    expect(pool.status().desired).toBe(1);

    await client.patch(Resources.AgentConfig, NS, 'sel-out', { metadata: { labels: { pool: 'sel' } } });
    await eventually(() => expect(memberKeys(pool)).toEqual([key('sel-in', a!), key('sel-out', b!)].sort()));
    expect(pool.status().desired).toBe(4);

    await client.patch(Resources.Orchestrator, NS, 'sel', {
      spec: { agentPool: { selector: { matchLabels: { pool: 'nothing' } } } },
    });
    await eventually(() => expect(memberKeys(pool)).toEqual([]));
    expect(pool.status().desired).toBe(0);
  });

  it('takes every AgentConfig of the namespace when the Orchestrator has no selector, and none of another namespace', async () => {
    const [a, b] = await agents(2);
    await create(orchestrator('all', undefined, 'everything'));
    await create(agentConfig('one', { namespace: 'everything' }));
    await create(agentConfig('two', { namespace: 'everything', replicas: 2 }));
    await create(agentSlice('one-agent-a', 'one', a!.port, [{ ip: '127.0.0.1' }], 'everything'));
    await create(agentSlice('two-agent-b', 'two', b!.port, [{ ip: '127.0.0.1' }], 'everything'));
    // The same names in another namespace are not this pool's.
    await create(agentConfig('one', { labels: {} }));
    await create(agentSlice('one-agent-a', 'one', a!.port, [{ ip: '127.0.0.1' }]));
    const { pool } = await startPool('all', 'everything');
    expect(memberKeys(pool)).toEqual([key('one', a!, 'everything'), key('two', b!, 'everything')]);
    expect(pool.status().desired).toBe(3);
  });

  it('drops the agent of a deleted pod and adds its replacement (simulated Deployment, Service and EndpointSlice controller)', async () => {
    const { deployment, service } = agentWorkload('wl', 2);
    await create(orchestrator('wl-orch', { pool: 'wl' }));
    await create(agentConfig('wl', { labels: { pool: 'wl' }, replicas: 2 }));
    await create(deployment);
    await create(service);
    const { pool } = await startPool('wl-orch');
    // Simulated pods have IPs but no processes: members, never healthy.
    const ids = await eventually(() => {
      const members = pool.members().filter((m) => !m.draining);
      expect(members).toHaveLength(2);
      return members.map((m) => m.id);
    });
    expect(pool.status()).toMatchObject({ desired: 2, available: 2, healthy: 0 });
    const victim = ids[0]!;
    await client.delete(Resources.Pod, NS, victim);
    await eventually(() => {
      const now = pool
        .members()
        .filter((m) => !m.draining)
        .map((m) => m.id);
      expect(now).not.toContain(victim);
      expect(now).toHaveLength(2);
    });
  });
});

describe('pool status', () => {
  const lease = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 100 };

  function statusWriter(
    pool: AgentPool,
    source: EndpointSliceSource,
    orchestratorName: string,
    identity: string,
    c = client,
    minIntervalMs = 50,
  ): PoolStatusWriter {
    const w = new PoolStatusWriter({
      client: c,
      namespace: NS,
      orchestrator: orchestratorName,
      identity,
      pool,
      selection: source,
      minIntervalMs,
      lease,
    }).start();
    cleanup.push(() => w.stop());
    return w;
  }
  const statusOf = async (ref: typeof Resources.Orchestrator, name: string) =>
    (await client.get<KubeObject & { status?: Record<string, unknown> }>(ref, NS, name)).status ?? {};
  const patches = (name?: string) =>
    cluster.requests.count({ verb: 'patch', resource: 'orchestrators/status', ...(name ? { name } : {}) }) +
    cluster.requests.count({ verb: 'patch', resource: 'agentconfigs/status' });

  it('writes Orchestrator.status.pool and AgentConfig.status.healthyAgents, and nothing more in a steady state', async () => {
    const [x, y] = await agents(2);
    y!.ready = false;
    await create(orchestrator('st', { pool: 'st' }));
    await create(agentConfig('st-a', { labels: { pool: 'st' }, replicas: 2 }));
    await create(agentConfig('st-b', { labels: { pool: 'st' }, replicas: 1 }));
    await create(agentSlice('st-a-agent-x', 'st-a', x!.port, [{ ip: '127.0.0.1' }]));
    await create(agentSlice('st-a-agent-y', 'st-a', y!.port, [{ ip: '127.0.0.1' }]));
    const { pool, source } = await startPool('st');
    statusWriter(pool, source, 'st', 'orch-0');

    await eventually(async () => {
      expect((await statusOf(Resources.Orchestrator, 'st')).pool).toEqual({
        desired: 3,
        available: 2,
        healthy: 1,
        unhealthy: 1,
      });
      expect((await statusOf(Resources.AgentConfig, 'st-a')).healthyAgents).toBe(1);
      expect((await statusOf(Resources.AgentConfig, 'st-b')).healthyAgents).toBe(0);
    });
    // Converged: the informers hold what was written. More probe rounds change nothing, so write nothing.
    await eventually(() =>
      expect(source.orchestrator()?.status?.pool).toEqual({ desired: 3, available: 2, healthy: 1, unhealthy: 1 }),
    );
    const before = patches();
    for (let i = 0; i < 5; i++) await pool.probeNow();
    await new Promise((r) => setTimeout(r, 200));
    expect(patches()).toBe(before);

    // A change is written: y becomes healthy.
    y!.ready = true;
    await eventually(async () => {
      expect((await statusOf(Resources.Orchestrator, 'st')).pool).toEqual({
        desired: 3,
        available: 2,
        healthy: 2,
        unhealthy: 0,
      });
      expect((await statusOf(Resources.AgentConfig, 'st-a')).healthyAgents).toBe(2);
    });
  });

  it('writes an object at most once per interval, and the last state lands', async () => {
    const [x, y] = await agents(2);
    y!.ready = false;
    await create(orchestrator('rl', { pool: 'rl' }));
    await create(agentConfig('rl-a', { labels: { pool: 'rl' }, replicas: 2 }));
    await create(agentSlice('rl-a-agent-x', 'rl-a', x!.port, [{ ip: '127.0.0.1' }]));
    await create(agentSlice('rl-a-agent-y', 'rl-a', y!.port, [{ ip: '127.0.0.1' }]));
    const { pool, source } = await startPool('rl');
    statusWriter(pool, source, 'rl', 'orch-0', client, 2000);
    await eventually(async () =>
      expect((await statusOf(Resources.Orchestrator, 'rl')).pool).toMatchObject({ healthy: 1 }),
    );
    // Three changes within the interval: one trailing write carries the last.
    for (const ready of [true, false, true]) {
      y!.ready = ready;
      await pool.probeNow();
    }
    await eventually(async () =>
      expect((await statusOf(Resources.Orchestrator, 'rl')).pool).toMatchObject({ healthy: 2 }),
    );
    expect(cluster.requests.count({ verb: 'patch', resource: 'orchestrators/status', name: 'rl' })).toBe(2);
  });

  it('leaves the fields other writers own alone', async () => {
    const [x] = await agents(1);
    await create(orchestrator('own', { pool: 'own' }));
    await create(agentConfig('own-a', { labels: { pool: 'own' } }));
    await client.patch(
      Resources.AgentConfig,
      NS,
      'own-a',
      {
        status: {
          readyReplicas: 1,
          conditions: [
            { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
          ],
        },
      },
      { subresource: 'status' },
    );
    await create(agentSlice('own-a-agent-x', 'own-a', x!.port, [{ ip: '127.0.0.1' }]));
    const { pool, source } = await startPool('own');
    statusWriter(pool, source, 'own', 'orch-0');
    const status = await eventually(async () => {
      const s = await statusOf(Resources.AgentConfig, 'own-a');
      expect(s.healthyAgents).toBe(1);
      return s;
    });
    expect(status.readyReplicas).toBe(1);
    expect(status.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True' })]);
  });

  it('is written only by the replica holding the Lease, and by the other once it gives the Lease up', async () => {
    const [x] = await agents(1);
    await create(orchestrator('ha', { pool: 'ha' }));
    await create(agentConfig('ha-a', { labels: { pool: 'ha' } }));
    await create(agentSlice('ha-a-agent-x', 'ha-a', x!.port, [{ ip: '127.0.0.1' }]));
    const clients = await Promise.all(
      ['replica-1', 'replica-2'].map((userAgent) =>
        KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent }),
      ),
    );
    cleanup.push(() => Promise.all(clients.map((c) => c.close())));
    const replicas = await Promise.all(clients.map((c) => startPool('ha', NS, c)));
    const writers = replicas.map(({ pool, source }, i) => statusWriter(pool, source, 'ha', `orch-${i}`, clients[i]));
    const writersOf = () =>
      new Set(
        cluster.requests
          .filter({ verb: 'patch', resource: 'orchestrators/status', name: 'ha' })
          .map((r) => r.userAgent),
      );

    await eventually(async () =>
      expect((await statusOf(Resources.Orchestrator, 'ha')).pool).toEqual({
        desired: 1,
        available: 1,
        healthy: 1,
        unhealthy: 0,
      }),
    );
    const leader = writers.findIndex((r) => r.leading);
    expect(leader).toBeGreaterThanOrEqual(0);
    expect(writers.filter((r) => r.leading)).toHaveLength(1);
    x!.ready = false;
    await eventually(async () =>
      expect((await statusOf(Resources.Orchestrator, 'ha')).pool).toMatchObject({ healthy: 0, unhealthy: 1 }),
    );
    expect([...writersOf()]).toEqual([`replica-${leader + 1}`]);

    // The leader stops (a rolling update): it gives the Lease up and the other replica takes over.
    await writers[leader]!.stop();
    const other = 1 - leader;
    await eventually(() => expect(writers[other]!.leading).toBe(true));
    x!.ready = true;
    await eventually(async () =>
      expect((await statusOf(Resources.Orchestrator, 'ha')).pool).toMatchObject({ healthy: 1, unhealthy: 0 }),
    );
    expect(writersOf()).toContain(`replica-${other + 1}`);
  });
});
