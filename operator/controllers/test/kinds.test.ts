import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../platform/kube/client.js';
import { isAborted } from '../../../platform/kube/errors.js';
import { Resources } from '../../../platform/kube/resources.js';
import {
  NS,
  agentConfig,
  connector,
  license,
  manifest,
  orchestrator,
  policy,
  secret,
  withCommunityMode,
  withConnectionSecret,
  withPoolSelector,
  withReplicas,
} from './builders.js';
import { startHarness, type Harness } from './harness.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';

const kube = useTestCluster({ crds: 'crds/', client: false });
let h: Harness;

beforeEach(async () => {
  h = await startHarness(kube.cluster);
});
afterEach(async () => {
  await h.stop();
});

type Conditioned = KubeObject & {
  status?: Record<string, unknown> & {
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
};
const get = (ref: (typeof Resources)[keyof typeof Resources], name: string) =>
  h.client.tryGet<Conditioned>(ref, NS, name);
const condition = (o: Conditioned | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);

describe('AgentConfig reconciler', () => {
  it('waits with Ready=False NoOrchestrator when no pool selects the agent', async () => {
    await h.client.create(
      Resources.Orchestrator,
      manifest(orchestrator('prod', withCommunityMode(), withPoolSelector({ team: 'other' }))),
    );
    await h.client.create(Resources.AgentConfig, manifest(agentConfig('travel')));
    await h.reconcile('agentconfig', `${NS}/travel`);
    expect(condition(await get(Resources.AgentConfig, 'travel'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NoOrchestrator',
    });
    expect(await get(Resources.Deployment, 'travel-agent')).toBeUndefined();
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'NoOrchestrator' }));
  });

  it("creates A-agent with the Orchestrator's ServiceAccount, keeps healthyAgents, and then makes no write", async () => {
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', withCommunityMode())));
    await h.client.create(Resources.AgentConfig, manifest(agentConfig('travel', withReplicas(2))));
    // Before the Orchestrator made O-internal (the agent token), the agent waits instead of deploying pods that cannot start.
    await h.reconcile('agentconfig', `${NS}/travel`);
    expect(condition(await get(Resources.AgentConfig, 'travel'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'OrchestratorPending',
    });
    expect(await get(Resources.Deployment, 'travel-agent')).toBeUndefined();
    await h.reconcile('orchestrator', `${NS}/prod`);
    await h.reconcile('agentconfig', `${NS}/travel`);
    const d = (await get(Resources.Deployment, 'travel-agent')) as KubeObject & {
      spec: { replicas: number; template: { spec: { serviceAccountName: string } } };
    };
    expect([d.spec.replicas, d.spec.template.spec.serviceAccountName]).toEqual([2, 'prod-runtime']);
    expect(await get(Resources.Service, 'travel-agent')).toBeDefined();

    // The orchestrator runtime's field, and the Deployment's ready pods.
    kube.cluster.store.patch(
      'agentconfigs.steward.dev',
      NS,
      'travel',
      { status: { healthyAgents: 2 } },
      { subresource: 'status' },
    );
    kube.cluster.store.patch(
      'deployments.apps',
      NS,
      'travel-agent',
      { status: { replicas: 2, readyReplicas: 2 } },
      { subresource: 'status' },
    );
    await h.reconcile('agentconfig', `${NS}/travel`);
    const a = await get(Resources.AgentConfig, 'travel');
    expect(a!.status).toMatchObject({ healthyAgents: 2, readyReplicas: 2 });
    expect(condition(a, 'Ready')).toMatchObject({ status: 'True' });

    const writes = h.writes();
    await h.reconcile('agentconfig', `${NS}/travel`);
    expect(h.writes()).toBe(writes);
  });
});

describe('Policy reconciler', () => {
  const good = 'package steward.custom\n\ndeny contains msg if {\n  input.query == "drop"\n  msg := "no"\n}\n';

  it('sets Compiled=False with file:line:column when the Rego does not parse', async () => {
    await h.client.create(
      Resources.Policy,
      manifest(policy('bad', 'package steward.custom\n\ndeny contains msg if {\n  input.query ==\n}\n')),
    );
    await h.reconcile('policy', `${NS}/bad`);
    const p = await get(Resources.Policy, 'bad');
    expect(condition(p, 'Compiled')).toMatchObject({
      status: 'False',
      reason: 'CompileFailed',
      message: expect.stringMatching(/^bad\.rego:5:1: /),
    });
    expect(condition(p, 'Ready')).toMatchObject({ status: 'False', reason: 'CompileFailed' });
    expect(h.events).toContainEqual(
      expect.objectContaining({ kind: 'Policy', type: 'Warning', reason: 'CompileFailed' }),
    );
  });

  it('prunes the entries of gone pods and is Ready once every running gateway pod loaded the generation', async () => {
    for (const name of ['gw-a', 'gw-b']) {
      kube.cluster.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name,
          namespace: NS,
          labels: { 'app.kubernetes.io/name': 'steward', 'app.kubernetes.io/component': 'gateway' },
        },
        spec: { containers: [{ name: 'gateway', image: 'ghcr.io/steward-dev/steward:latest' }] },
      });
      kube.cluster.store.patch('pods', NS, name, { status: { phase: 'Running' } }, { subresource: 'status' });
    }
    await h.client.create(Resources.Policy, manifest(policy('pii', good)));
    const entry = (pod: string) => ({ pod, observedGeneration: 1, loaded: true });
    kube.cluster.store.patch(
      'policies.steward.dev',
      NS,
      'pii',
      { status: { byPod: [entry('gw-old'), entry('gw-a')] } },
      { subresource: 'status' },
    );
    await h.reconcile('policy', `${NS}/pii`);
    let p = await get(Resources.Policy, 'pii');
    expect(p!.status!.byPod).toEqual([entry('gw-a')]);
    expect(condition(p, 'Compiled')).toMatchObject({ status: 'True', reason: 'CompileSucceeded' });
    expect(condition(p, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'RolloutPending',
      message: expect.stringMatching(/gw-b/),
    });

    kube.cluster.store.patch(
      'policies.steward.dev',
      NS,
      'pii',
      { status: { byPod: [entry('gw-a'), entry('gw-b')] } },
      { subresource: 'status' },
    );
    await h.reconcile('policy', `${NS}/pii`);
    p = await get(Resources.Policy, 'pii');
    expect(condition(p, 'Ready')).toMatchObject({ status: 'True', reason: 'Loaded' });

    const writes = h.writes();
    await h.reconcile('policy', `${NS}/pii`);
    expect(h.writes()).toBe(writes);
  });

  it('recomputes from a fresh read when a gateway pod wrote its entry meanwhile (409)', async () => {
    await h.client.create(Resources.Policy, manifest(policy('pii', good)));
    kube.cluster.faults.inject({ verb: 'update', resource: 'policies/status', status: 409, times: 1 });
    await h.reconcile('policy', `${NS}/pii`);
    expect(condition(await get(Resources.Policy, 'pii'), 'Compiled')).toMatchObject({ status: 'True' });
    expect(kube.cluster.requests.count({ verb: 'update', resource: 'policies/status' })).toBe(2);
  });
});

describe('Connector reconciler', () => {
  it('sets Ready=False SecretMissing, then ReferencesResolved once the Secret exists', async () => {
    await h.client.create(Resources.Connector, manifest(connector('orders', withConnectionSecret('pg', 'url'))));
    await h.reconcile('connector', `${NS}/orders`);
    expect(condition(await get(Resources.Connector, 'orders'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SecretMissing',
      message: 'spec.connection.secretRef: Secret pg not found',
    });

    await h.client.create(Resources.Secret, secret('pg', { url: 'postgres://pg/orders' }));
    await h.reconcile('connector', `${NS}/orders`);
    expect(condition(await get(Resources.Connector, 'orders'), 'Ready')).toMatchObject({
      status: 'True',
      reason: 'ReferencesResolved',
    });
  });

  it("reports the gateway's failed health check and never touches the gateway's fields", async () => {
    await h.client.create(Resources.Connector, manifest(connector('orders')));
    const health = {
      status: 'unhealthy',
      message: 'connection refused',
      latencyMs: 12,
      lastHealthCheck: '2026-01-01T00:00:00Z',
    };
    kube.cluster.store.patch('connectors.steward.dev', NS, 'orders', { status: health }, { subresource: 'status' });
    await h.reconcile('connector', `${NS}/orders`);
    const c = await get(Resources.Connector, 'orders');
    expect(c!.status).toMatchObject(health);
    expect(condition(c, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'HealthCheckFailed',
      message: 'connection refused',
    });
  });
});

describe('License reconciler', () => {
  it('sets valid=false with "no signing secret configured" when the operator has none', async () => {
    await h.client.create(Resources.Secret, secret('k', { key: 'STW-PRO-12345-abc-ABCDE' }));
    await h.client.create(Resources.License, {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'License',
      metadata: { name: 'acme', namespace: NS },
      spec: { organizationId: 'acme', keySecretRef: { name: 'k', key: 'key' } },
    });
    expect(await h.reconcile('license', `${NS}/acme`)).toBeUndefined();
    const l = await get(Resources.License, 'acme');
    expect(l!.status).toMatchObject({ valid: false, reason: 'no signing secret configured' });
    expect(condition(l, 'Ready')).toMatchObject({ status: 'False', reason: 'LicenseInvalid' });
  });
});

describe('every reconciler', () => {
  const cases: {
    name: string;
    controller: string;
    ref: (typeof Resources)[keyof typeof Resources];
    object: KubeObject;
  }[] = [
    {
      name: 'orchestrator',
      controller: 'orchestrator',
      ref: Resources.Orchestrator,
      object: manifest(orchestrator('prod', withCommunityMode())),
    },
    {
      name: 'agentconfig',
      controller: 'agentconfig',
      ref: Resources.AgentConfig,
      object: manifest(agentConfig('travel')),
    },
    {
      name: 'policy',
      controller: 'policy',
      ref: Resources.Policy,
      object: manifest(policy('deny', 'package p\ndeny := true')),
    },
    { name: 'connector', controller: 'connector', ref: Resources.Connector, object: manifest(connector('orders')) },
    { name: 'license', controller: 'license', ref: Resources.License, object: manifest(license('acme', 'k')) },
  ];

  it.each(cases)(
    '$name: makes no write once its signal is aborted, and fails with Aborted',
    async ({ controller, ref, object }) => {
      await h.client.create(ref, object);
      await h.cache.sync();
      const writes = h.writes();
      const ended = new AbortController();
      ended.abort(new Error('leadership lost'));
      const failure = await h
        .reconcile(controller, `${NS}/${object.metadata.name}`, ended.signal)
        .catch((e: unknown) => e);
      expect(isAborted(failure)).toBe(true);
      expect(h.writes()).toBe(writes);
      expect(h.events).toEqual([]);
    },
  );
});
