import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { issueLicenseKey } from '../../../api/licensekey.js';
import type { KubeObject } from '../../../platform/kube/client.js';
import { Resources } from '../../../platform/kube/resources.js';
import { CONFIG_HASH_ANNOTATION } from '../meta.js';
import {
  NS,
  agentConfig,
  license,
  manifest,
  orchestrator,
  secret,
  withCommunityMode,
  withDatabase,
  withIngress,
  withLicense,
  withProvider,
  withRedis,
  withReplicas,
  withTls,
} from './builders.js';
import { startHarness, type Harness } from './harness.js';
import { useTestCluster } from '../../../testing/kube/fixture.js';

const SIGNING = 'signing-secret-0123456789';
const kube = useTestCluster({ crds: 'crds/', client: false });
let h: Harness;

beforeEach(async () => {
  h = await startHarness(kube.cluster, { licenseSigningSecret: SIGNING });
});
afterEach(async () => {
  await h.stop();
});

const get = <T extends KubeObject = KubeObject>(ref: (typeof Resources)[keyof typeof Resources], name: string) =>
  h.client.tryGet<T>(ref, NS, name);
type Deployment = KubeObject & {
  spec: { replicas: number; template: { metadata: { annotations: Record<string, string> } } };
};
type WithConditions = KubeObject & {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
};
const condition = (o: WithConditions | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);

describe('Orchestrator reconciler', () => {
  it('creates the objects of the contract, then makes no write on a second pass', async () => {
    await h.client.create(Resources.Secret, secret('db', { url: 'postgres://db:5432/steward' }));
    await h.client.create(
      Resources.Orchestrator,
      manifest(orchestrator('prod', withCommunityMode(), withDatabase('db'))),
    );
    await h.reconcile('orchestrator', `${NS}/prod`);

    for (const [ref, name] of [
      [Resources.Deployment, 'prod-gateway'],
      [Resources.Deployment, 'prod-orchestrator'],
      [Resources.Service, 'prod-gateway'],
      [Resources.Service, 'prod-orchestrator'],
      [Resources.ConfigMap, 'prod-config'],
      [Resources.Secret, 'prod-internal'],
      [Resources.PodDisruptionBudget, 'prod-gateway'],
      [Resources.ServiceAccount, 'prod-runtime'],
      [Resources.Role, 'prod-runtime'],
      [Resources.RoleBinding, 'prod-runtime'],
    ] as const) {
      expect(await get(ref, name), `${ref.kind} ${name}`).toBeDefined();
    }
    expect(await get(Resources.Ingress, 'prod-gateway')).toBeUndefined();
    expect(h.events).toContainEqual(
      expect.objectContaining({ type: 'Normal', reason: 'Created', message: 'created Deployment prod-gateway' }),
    );
    const o = await get<WithConditions & { status: { endpoints: unknown } }>(Resources.Orchestrator, 'prod');
    expect(o!.status.endpoints).toEqual({
      gateway: 'http://prod-gateway.default.svc:8080',
      orchestrator: 'http://prod-orchestrator.default.svc:8081',
    });
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', reason: 'ReplicasUnavailable' });

    const internal = await get<KubeObject & { data: Record<string, string> }>(Resources.Secret, 'prod-internal');
    const writes = h.writes();
    expect(writes).toBeGreaterThan(10);
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(h.writes()).toBe(writes);
    expect((await get<KubeObject & { data: Record<string, string> }>(Resources.Secret, 'prod-internal'))!.data).toEqual(
      internal!.data,
    );
  });

  it('makes no write on a second pass with TLS, an Ingress, Redis and LLM providers either', async () => {
    await h.client.create(Resources.Secret, secret('db', { url: 'postgres://db:5432/steward' }));
    await h.client.create(Resources.Secret, secret('cache', { url: 'redis://cache:6379' }));
    await h.client.create(Resources.Secret, secret('llm', { openai: 'sk-test' }));
    await h.client.create(Resources.Secret, {
      ...secret('orch-tls', { 'tls.crt': 'c', 'tls.key': 'k' }),
      type: 'kubernetes.io/tls',
    });
    await h.client.create(
      Resources.Orchestrator,
      manifest(
        orchestrator(
          'prod',
          withCommunityMode(),
          withDatabase('db'),
          withRedis('cache'),
          withTls('orch-tls'),
          withIngress('steward.example.com'),
          withProvider(
            { name: 'main', type: 'openai', model: 'gpt-4o-mini', secretRef: { name: 'llm', key: 'openai' } },
            true,
          ),
          withProvider({ name: 'local', type: 'ollama', model: 'llama3.1:8b', endpoint: 'http://ollama:11434' }),
        ),
      ),
    );
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(await get(Resources.Ingress, 'prod-gateway')).toBeDefined();
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Ready')).toMatchObject({
      reason: 'ReplicasUnavailable',
    });
    const writes = h.writes();
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(h.writes()).toBe(writes);
  });

  it('updates the Deployments when the spec changes, and is Ready once their replicas are', async () => {
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', withCommunityMode(), withReplicas(1))));
    await h.reconcile('orchestrator', `${NS}/prod`);
    await h.client.patch(Resources.Orchestrator, NS, 'prod', {
      spec: {
        gateway: { replicas: 1 },
        orchestrator: { replicas: 1 },
        image: { repository: 'registry.local/steward', tag: '2.0' },
      },
    });
    await h.reconcile('orchestrator', `${NS}/prod`);
    const d = await get<Deployment & { spec: { template: { spec: { containers: { image: string }[] } } } }>(
      Resources.Deployment,
      'prod-gateway',
    );
    expect(d!.spec.template.spec.containers[0]!.image).toBe('registry.local/steward:2.0');

    for (const name of ['prod-gateway', 'prod-orchestrator']) {
      kube.cluster.store.patch(
        'deployments.apps',
        NS,
        name,
        { status: { replicas: 1, readyReplicas: 1 } },
        { subresource: 'status' },
      );
    }
    await h.reconcile('orchestrator', `${NS}/prod`);
    const o = await get<WithConditions>(Resources.Orchestrator, 'prod');
    expect(condition(o, 'Ready')).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(condition(o, 'Degraded')).toMatchObject({ status: 'False' });
  });

  it('rolls the pods when a referenced Secret changes: the config-hash annotation changes', async () => {
    await h.client.create(Resources.Secret, secret('db', { url: 'postgres://db:5432/a' }));
    await h.client.create(
      Resources.Orchestrator,
      manifest(orchestrator('prod', withCommunityMode(), withDatabase('db'))),
    );
    await h.reconcile('orchestrator', `${NS}/prod`);
    const before = (await get<Deployment>(Resources.Deployment, 'prod-gateway'))!.spec.template.metadata.annotations[
      CONFIG_HASH_ANNOTATION
    ];

    await h.client.patch(Resources.Secret, NS, 'db', {
      data: { url: Buffer.from('postgres://db:5432/b').toString('base64') },
    });
    await h.reconcile('orchestrator', `${NS}/prod`);
    const after = (await get<Deployment>(Resources.Deployment, 'prod-gateway'))!.spec.template.metadata.annotations[
      CONFIG_HASH_ANNOTATION
    ];
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
  });

  it('sets Ready=False ReconcileFailed with the error and rethrows when applying fails', async () => {
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', withCommunityMode())));
    kube.cluster.faults.inject({
      verb: 'create',
      resource: 'deployments',
      status: 500,
      message: 'etcd is down',
      times: 1,
    });
    await expect(h.reconcile('orchestrator', `${NS}/prod`)).rejects.toThrow(/etcd is down/);
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReconcileFailed',
      message: expect.stringMatching(/etcd is down/),
    });
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'ReconcileFailed' }));

    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Ready')).toMatchObject({
      reason: 'ReplicasUnavailable',
    });
  });

  it('deletes the PodDisruptionBudgets when the replicas drop to one', async () => {
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', withCommunityMode(), withReplicas(2))));
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(await get(Resources.PodDisruptionBudget, 'prod-orchestrator')).toBeDefined();
    await h.client.patch(Resources.Orchestrator, NS, 'prod', {
      spec: { gateway: { replicas: 1 }, orchestrator: { replicas: 1 } },
    });
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(await get(Resources.PodDisruptionBudget, 'prod-orchestrator')).toBeUndefined();
  });

  it.each([
    {
      name: 'sets Ready=False LicenseInvalid without licenseRef outside community mode',
      options: [],
      message: 'no licenseRef and communityMode is false',
    },
    {
      name: 'sets Ready=False LicenseInvalid when the License does not exist',
      options: [withLicense('missing')],
      message: 'License missing not found',
    },
  ])('$name', async ({ options, message }) => {
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', ...options)));
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'LicenseInvalid',
      message,
    });
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'Warning', reason: 'LicenseInvalid' }));
  });

  it('sets Ready=False LicenseInvalid once the License expires', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    await h.client.create(
      Resources.Secret,
      secret('acme-key', { key: issueLicenseKey({ tier: 'PRO', expiresAt, secret: SIGNING }) }),
    );
    await h.client.create(Resources.License, manifest(license('acme', 'acme-key')));
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', withLicense('acme'))));
    const result = await h.reconcile('license', `${NS}/acme`);
    expect(result).toEqual({ requeueAfterMs: expect.any(Number) });
    expect((await get<KubeObject & { status: { valid: boolean } }>(Resources.License, 'acme'))!.status.valid).toBe(
      true,
    );
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Ready')).not.toMatchObject({
      reason: 'LicenseInvalid',
    });

    h.setNow(new Date(expiresAt.getTime() + 1000));
    await h.reconcile('license', `${NS}/acme`);
    const l = await get<WithConditions & { status: { valid: boolean; reason: string } }>(Resources.License, 'acme');
    expect(l!.status).toMatchObject({ valid: false, reason: expect.stringMatching(/expired/) });
    await h.reconcile('orchestrator', `${NS}/prod`);
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'LicenseInvalid',
    });
    expect(h.events).toContainEqual(
      expect.objectContaining({ kind: 'Orchestrator', type: 'Warning', reason: 'LicenseInvalid' }),
    );
  });

  it('caps the replicas at the License maxNodes, with a condition and a Warning Event', async () => {
    // PRO allows 10 pods; 3 + 3 servers and 3 + 3 agents ask for 12.
    const expiresAt = new Date(Date.now() + 86_400_000);
    await h.client.create(
      Resources.Secret,
      secret('acme-key', { key: issueLicenseKey({ tier: 'PRO', expiresAt, secret: SIGNING }) }),
    );
    await h.client.create(Resources.License, manifest(license('acme', 'acme-key')));
    await h.client.create(Resources.Orchestrator, manifest(orchestrator('prod', withLicense('acme'), withReplicas(3))));
    await h.client.create(Resources.AgentConfig, manifest(agentConfig('finance', withReplicas(3))));
    await h.client.create(Resources.AgentConfig, manifest(agentConfig('travel', withReplicas(3))));
    await h.reconcile('license', `${NS}/acme`);
    await h.reconcile('orchestrator', `${NS}/prod`);
    await h.reconcile('agentconfig', `${NS}/finance`);
    await h.reconcile('agentconfig', `${NS}/travel`);

    const replicas = async (name: string) => (await get<Deployment>(Resources.Deployment, name))!.spec.replicas;
    expect([
      await replicas('prod-gateway'),
      await replicas('prod-orchestrator'),
      await replicas('finance-agent'),
      await replicas('travel-agent'),
    ]).toEqual([3, 3, 3, 1]);
    expect(condition(await get<WithConditions>(Resources.Orchestrator, 'prod'), 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'NodeLimitExceeded',
    });
    expect(condition(await get<WithConditions>(Resources.AgentConfig, 'travel'), 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'NodeLimitExceeded',
    });
    expect(condition(await get<WithConditions>(Resources.AgentConfig, 'finance'), 'Degraded')).toMatchObject({
      status: 'False',
    });
    expect(h.events).toContainEqual(
      expect.objectContaining({
        kind: 'Orchestrator',
        type: 'Warning',
        reason: 'NodeLimitExceeded',
        message: expect.stringMatching(/allows 10 Steward pods.*12 were requested/),
      }),
    );
    expect(h.events).toContainEqual(
      expect.objectContaining({ kind: 'AgentConfig', name: 'travel', type: 'Warning', reason: 'NodeLimitExceeded' }),
    );

    const writes = h.writes();
    const events = h.events.length;
    for (const [c, k] of [
      ['license', 'acme'],
      ['orchestrator', 'prod'],
      ['agentconfig', 'finance'],
      ['agentconfig', 'travel'],
    ] as const)
      await h.reconcile(c, `${NS}/${k}`);
    expect(h.writes()).toBe(writes);
    expect(h.events.length).toBe(events);
  });
});
