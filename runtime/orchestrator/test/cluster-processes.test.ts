import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { AgentPool, EndpointSliceSource, agentServiceName } from '../pool/index.js';
import { agentConfig, eventually, NS, orchestrator } from './cluster-fixtures.js';

/**
 * Real `steward agent` pods (the test kubelet runs this checkout's CLI as the Steward image) behind their Service:
 * each reads its AgentConfig through the pod's service account, the EndpointSlice controller lists the ready
 * ones, and the orchestrator's pool follows them, health probes included.
 */
const TOKEN = 'agent-token-0123456789';
let cluster: TestCluster;
let client: KubeClient;

beforeAll(async () => {
  // NB: in-cluster clients speak https: the pods' service account carries the server's ca.crt.
  cluster = await startTestCluster({ crds: 'crds/', tls: true, workloads: { kubeletMode: 'process' } });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'cluster-processes-test' });
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
});

const fieldEnv = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });

/** The agent Deployment as docs/cluster-mode.md describes it (the operator's, less what these tests do not need). */
function agentDeployment(agent: string, replicas: number): KubeObject {
  const labels = { 'steward.dev/agent': agent };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: agentServiceName(agent), namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            {
              name: 'agent',
              image: 'ghcr.io/steward-dev/steward:test',
              args: ['agent'],
              ports: [{ name: 'http', containerPort: 8090 }],
              env: [
                { name: 'STEWARD_SOURCE', value: 'kubernetes' },
                fieldEnv('STEWARD_NAMESPACE', 'metadata.namespace'),
                fieldEnv('STEWARD_POD_NAME', 'metadata.name'),
                fieldEnv('STEWARD_HOST', 'status.podIP'),
                { name: 'STEWARD_AGENT_NAME', value: agent },
                { name: 'STEWARD_AGENT_PORT', value: '8090' },
                { name: 'STEWARD_AGENT_TOKEN', value: TOKEN },
                { name: 'LOG_LEVEL', value: 'warn' },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
            },
          ],
        },
      },
    },
  };
}

describe('the pool over steward agent pods', () => {
  // Two agent pods of AgentConfig `procs`, which the Orchestrator `procs` selects, behind their Service.
  beforeAll(async () => {
    await client.create(Resources.Orchestrator, orchestrator('procs', { pool: 'procs' }));
    await client.create(Resources.AgentConfig, agentConfig('procs', { labels: { pool: 'procs' }, replicas: 2 }));
    await client.create(Resources.Deployment, agentDeployment('procs', 2));
    await client.create(Resources.Service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: agentServiceName('procs'), namespace: NS },
      spec: { selector: { 'steward.dev/agent': 'procs' }, ports: [{ name: 'http', port: 8090, targetPort: 'http' }] },
    });
  });

  it('gets healthy agents from their EndpointSlices, drops a deleted pod and takes its replacement', async () => {
    const pool = await AgentPool.start({
      source: new EndpointSliceSource({ client, namespace: NS, orchestrator: 'procs', token: TOKEN }),
      probeIntervalMs: 200,
    });
    try {
      await eventually(
        () => expect(pool.status()).toEqual({ desired: 2, available: 2, healthy: 2, unhealthy: 0 }),
        60_000,
      );
      // The pod behind one member, found by its IP.
      const victim = pool.members()[0]!;
      const ip = new URL(victim.key.slice(victim.key.indexOf('@') + 1)).hostname;
      const pods = await client.list<KubeObject & { status?: { podIP?: string } }>(Resources.Pod, {
        namespace: NS,
        labelSelector: 'steward.dev/agent=procs',
      });
      const pod = pods.items.find((p) => p.status?.podIP === ip);
      expect(pod).toBeDefined();
      await client.delete(Resources.Pod, NS, pod!.metadata.name!);
      await eventually(
        () =>
          expect(
            pool
              .members()
              .filter((m) => !m.draining)
              .map((m) => m.key),
          ).not.toContain(victim.key),
        60_000,
      );
      await eventually(
        () => expect(pool.status()).toEqual({ desired: 2, available: 2, healthy: 2, unhealthy: 0 }),
        60_000,
      );
    } catch (err) {
      // The pods' states and logs say why an agent never became ready.
      const pods = await client.list<KubeObject & { status?: unknown }>(Resources.Pod, { namespace: NS });
      const report = pods.items.map(
        (p) =>
          `${p.metadata.name}: ${JSON.stringify(p.status)}\n${cluster.workloads!.kubelet.logs.read(NS, p.metadata.name!, 'agent', { tailLines: 20 }) ?? ''}`,
      );
      throw new Error(`${(err as Error).message}\n${report.join('\n')}`, { cause: err });
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('runs steward orchestrator in a pod: ready once synced, and the pool status written to the Orchestrator', async () => {
    await client.create(Resources.Deployment, orchestratorDeployment('procs'));
    const expected = { desired: 2, available: 2, healthy: 2, unhealthy: 0 };
    await eventually(async () => {
      const o = await client.get<KubeObject & { status?: { pool?: unknown } }>(Resources.Orchestrator, NS, 'procs');
      expect(o.status?.pool).toEqual(expected);
      const a = await client.get<KubeObject & { status?: { healthyAgents?: number } }>(
        Resources.AgentConfig,
        NS,
        'procs',
      );
      expect(a.status?.healthyAgents).toBe(2);
      // NB: a process to start in a pod (its embedded database, informers, the pool's probes): slow on a busy machine
    }, 150_000);
    // The kubelet's readiness probe (GET /readyz) passes.
    await eventually(async () => {
      const pods = await client.list<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
        Resources.Pod,
        { namespace: NS, labelSelector: 'app.kubernetes.io/component=orchestrator' },
      );
      expect(pods.items).toHaveLength(1);
      expect(pods.items[0]!.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }, 60_000);
    expect(cluster.requests.count({ verb: 'patch', resource: 'orchestrators/status', name: 'procs' })).toBeGreaterThan(
      0,
    );
  }, 240_000);
});

/** The orchestrator Deployment as docs/cluster-mode.md describes it, with embedded PGlite and community mode. */
function orchestratorDeployment(name: string): KubeObject {
  const labels = { 'app.kubernetes.io/instance': name, 'app.kubernetes.io/component': 'orchestrator' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${name}-orchestrator`, namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            {
              name: 'orchestrator',
              image: 'ghcr.io/steward-dev/steward:test',
              args: ['orchestrator'],
              ports: [{ name: 'http', containerPort: 8081 }],
              env: [
                { name: 'STEWARD_SOURCE', value: 'kubernetes' },
                { name: 'STEWARD_AGENT_DISCOVERY', value: 'kubernetes' },
                { name: 'STEWARD_ORCHESTRATOR_NAME', value: name },
                fieldEnv('STEWARD_NAMESPACE', 'metadata.namespace'),
                fieldEnv('STEWARD_POD_NAME', 'metadata.name'),
                fieldEnv('STEWARD_HOST', 'status.podIP'),
                { name: 'PORT', value: '8081' },
                { name: 'STEWARD_COMMUNITY_MODE', value: 'true' },
                { name: 'STEWARD_AGENT_TOKEN', value: TOKEN },
                { name: 'STEWARD_AGENT_PROBE_INTERVAL_MS', value: '500' },
                { name: 'STEWARD_STATUS_MIN_INTERVAL_MS', value: '500' },
                { name: 'LOG_LEVEL', value: 'warn' },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
            },
          ],
        },
      },
    },
  };
}
