import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { agentSettings, orchestratorSettings } from '../../../cmd/config/settings.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { createLogger } from '../../../platform/log.js';
import { StartupError } from '../../../platform/startup-error.js';
import { startAgent, type RunningAgent } from '../../agent/main.js';
import { startOrchestrator, type RunningOrchestrator } from '../main.js';
import { agentConfig, agentSlice, eventually, NS, orchestrator } from './cluster-fixtures.js';

/**
 * `steward orchestrator` and `steward agent` with STEWARD_SOURCE=kubernetes (docs/cluster-mode.md): state from the
 * test API server, pool agents from EndpointSlices, probes for the kubelet.
 */
const TOKEN = 'agent-token-0123456789';
const log = createLogger({ level: 'silent' });
let cluster: TestCluster;
let client: KubeClient;
let tmp: string;

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/', namespaces: ['agents'] });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'cluster-mode-test' });
  tmp = await mkdtemp(join(tmpdir(), 'steward-cluster-mode-'));
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
  await rm(tmp, { recursive: true, force: true });
});

const clusterEnv = () => ({
  STEWARD_SOURCE: 'kubernetes',
  STEWARD_KUBECONFIG: cluster.kubeconfig,
  STEWARD_NAMESPACE: NS,
  STEWARD_HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
});

function agentEnv(extra: Record<string, string> = {}) {
  return agentSettings({
    ...clusterEnv(),
    STEWARD_AGENT_PORT: '0',
    STEWARD_AGENT_NAME: 'flights',
    STEWARD_AGENT_TOKEN: TOKEN,
    ...extra,
  });
}

describe('steward agent with STEWARD_SOURCE=kubernetes', () => {
  it('reads its AgentConfig from the API server and serves the kubelet probes', async () => {
    await client.create(Resources.AgentConfig, agentConfig('flights'));
    const agent = await startAgent(agentEnv(), log);
    try {
      const ready = await fetch(`${agent.url}/readyz`);
      expect(ready.status).toBe(200);
      expect((await fetch(`${agent.url}/healthz`)).status).toBe(200);
      expect(cluster.requests.count({ verb: 'get', resource: 'agentconfigs', name: 'flights' })).toBe(1);
    } finally {
      await agent.close();
    }
  });

  it('reads it from STEWARD_NAMESPACE when STEWARD_AGENT_NAMESPACE is not set', async () => {
    await client.create(Resources.AgentConfig, agentConfig('cars', { namespace: 'agents' }));
    const agent = await startAgent(agentEnv({ STEWARD_AGENT_NAME: 'cars', STEWARD_NAMESPACE: 'agents' }), log);
    await agent.close();
    expect(cluster.requests.count({ verb: 'get', resource: 'agentconfigs', namespace: 'agents', name: 'cars' })).toBe(
      1,
    );
  });

  it('fails to start with a StartupError naming STEWARD_AGENT_NAME when its AgentConfig does not exist', async () => {
    const err = await startAgent(agentEnv({ STEWARD_AGENT_NAME: 'nowhere' }), log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as StartupError).setting).toBe('STEWARD_AGENT_NAME');
    expect((err as Error).message).toContain(`no AgentConfig ${NS}/nowhere in the cluster`);
  });
});

describe('the orchestrator settings', () => {
  it('require STEWARD_ORCHESTRATOR_NAME with STEWARD_AGENT_DISCOVERY=kubernetes, and no STEWARD_AGENT_ENDPOINTS', () => {
    expect(() => orchestratorSettings({ STEWARD_AGENT_DISCOVERY: 'kubernetes' })).toThrow(
      /STEWARD_ORCHESTRATOR_NAME: required with STEWARD_AGENT_DISCOVERY=kubernetes/,
    );
    expect(() =>
      orchestratorSettings({
        STEWARD_AGENT_DISCOVERY: 'kubernetes',
        STEWARD_ORCHESTRATOR_NAME: 'main',
        STEWARD_AGENT_ENDPOINTS: 'http://a:8090',
      }),
    ).toThrow(/STEWARD_AGENT_ENDPOINTS: set either/);
  });
});

describe('steward orchestrator with STEWARD_SOURCE=kubernetes and STEWARD_AGENT_DISCOVERY=kubernetes', () => {
  let orch: RunningOrchestrator;
  let agent: RunningAgent;

  beforeAll(async () => {
    await client.create(Resources.Orchestrator, orchestrator('main', { pool: 'main' }));
    await client.create(Resources.AgentConfig, agentConfig('hotels', { labels: { pool: 'main' }, replicas: 2 }));
    // NB: the echo stand-in is its only provider: the AgentConfig's openai falls back to it.
    agent = await startAgent(agentEnv({ STEWARD_AGENT_NAME: 'hotels', STEWARD_LLM_ECHO: 'true' }), log);
    await client.create(
      Resources.EndpointSlice,
      agentSlice('hotels-agent-1', 'hotels', Number(new URL(agent.url).port), [{ ip: '127.0.0.1', pod: 'hotels-1' }]),
    );
    const config = orchestratorSettings({
      ...clusterEnv(),
      PORT: '0',
      STEWARD_DATA_DIR: join(tmp, 'data'),
      STEWARD_COMMUNITY_MODE: 'true',
      STEWARD_AGENT_DISCOVERY: 'kubernetes',
      STEWARD_ORCHESTRATOR_NAME: 'main',
      STEWARD_POD_NAME: 'main-orchestrator-0',
      STEWARD_AGENT_TOKEN: TOKEN,
      STEWARD_AGENT_PROBE_INTERVAL_MS: '100',
      STEWARD_STATUS_MIN_INTERVAL_MS: '100',
    });
    orch = await startOrchestrator(config, log);
  });
  afterAll(async () => {
    await orch?.close();
    await agent?.close();
  });

  it('is live and ready once the informers, the database and the pool discovery are', async () => {
    const healthz = await fetch(`${orch.url}/healthz`);
    expect(healthz.status).toBe(200);
    const readyz = await fetch(`${orch.url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toEqual({ status: 'ok' });
  });

  it('takes the pool agents from the EndpointSlices and writes the pool status to the cluster', async () => {
    await eventually(() =>
      expect(orch.parts.pool.status()).toEqual({ desired: 2, available: 1, healthy: 1, unhealthy: 0 }),
    );
    await eventually(async () => {
      const o = await client.get<KubeObject & { status?: { pool?: unknown } }>(Resources.Orchestrator, NS, 'main');
      expect(o.status?.pool).toEqual({ desired: 2, available: 1, healthy: 1, unhealthy: 0 });
      const a = await client.get<KubeObject & { status?: { healthyAgents?: number; llm?: unknown } }>(
        Resources.AgentConfig,
        NS,
        'hotels',
      );
      expect(a.status?.healthyAgents).toBe(1);
      // The provider its agents report they call: a fallback shows in the AgentConfig's status.
      expect(a.status?.llm).toEqual({ provider: 'echo', fallback: true, requestedProvider: 'openai' });
    });
  });

  it('lists the registry from AgentConfig resources', async () => {
    const res = await fetch(`${orch.url}/api/v1/agents`);
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { agents: { name: string }[] }).agents.map((a) => a.name);
    expect(names).toContain('hotels');
  });

  it("reads the built-in policy pack under the namespace's Policies", () => {
    expect(orch.parts.deps.source.get('Policy', 'builtin-pii')?.metadata).toMatchObject({
      namespace: NS,
      labels: { 'steward.dev/pack': 'builtin' },
    });
  });

  it('stores a dynamic policy as a Policy resource', async () => {
    const rego =
      'package custom.nobanana\n\ndeny contains msg if {\n  contains(lower(input.query), "banana")\n  msg := "no bananas"\n}\n';
    const res = await fetch(`${orch.url}/api/v1/policies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no-banana', type: 'custom', priority: 10, enabled: true, rego }),
    });
    expect(res.status).toBe(201);
    const { resource_name } = (await res.json()) as { resource_name: string };
    const stored = await client.get<KubeObject & { spec: { rego?: string } }>(Resources.Policy, NS, resource_name);
    expect(stored.spec.rego).toBe(rego);
  });

  it('fails GET /readyz from the first moment of the shutdown', async () => {
    const closing = orch.close();
    const readyz = await orch.app.inject({ method: 'GET', url: '/readyz' });
    expect(readyz.statusCode).toBe(503);
    expect(readyz.json()).toEqual({ status: 'not-ready', reason: 'the orchestrator is shutting down' });
    await closing;
  });
});
