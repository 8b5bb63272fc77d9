/**
 * `steward gateway` in cluster mode, in process, against the test API server: declarative state from the
 * namespace's resources, License keys and connection URLs from Secrets, this pod's Policy.status.byPod entries and
 * (holding the Lease) Connector.status.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLicenseKey, type PolicyPodStatus } from '../../../api/index.js';
import { gatewaySettings } from '../../../cmd/config/settings.js';
import { KubeClient, Resources, type KubeObject } from '../../../platform/kube/index.js';
import { createLogger } from '../../../platform/log.js';
import { startClusterGateway, TEST_SIGNING_SECRET } from '../../../testing/gateway.js';
import { startTestCluster, type TestCluster } from '../../../testing/kube/index.js';
import { startGateway, type RunningGateway } from '../main.js';
import { eventually } from '../../../testing/eventually.js';

const NS = 'default';
const POD = 'steward-gateway-0';
const KEY = issueLicenseKey({ tier: 'ENT', expiresAt: new Date('2099-12-31T00:00:00Z'), secret: TEST_SIGNING_SECRET });

let cluster: TestCluster;
let client: KubeClient;
let gw: RunningGateway;
let api: Server;
let dataDir: string;

const b64 = (s: string) => Buffer.from(s).toString('base64');
const policy = (name: string, rego: string): KubeObject => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Policy',
  metadata: { name, namespace: NS },
  spec: { type: 'custom', rego },
});
// NB: a package per policy: modules of one package would share their deny rules.
const denies = (word: string) => `package ${word}\n\ndeny contains "no ${word}" if contains(input.query, "${word}")\n`;

beforeAll(async () => {
  cluster = await startTestCluster({ crds: 'crds/' });
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'kubectl' });
  api = createServer((_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  await client.create(Resources.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'steward-secrets', namespace: NS },
    data: { license: b64(KEY), api: b64(apiUrl) },
  });
  await client.create(Resources.License, {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'License',
    metadata: { name: 'acme', namespace: NS },
    spec: { organizationId: 'acme', keySecretRef: { name: 'steward-secrets', key: 'license' } },
  });
  await client.create(Resources.Policy, policy('no-bad', denies('bad')));
  await client.create(Resources.Connector, {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Connector',
    metadata: { name: 'api', namespace: NS },
    spec: {
      type: 'http',
      connection: { secretRef: { name: 'steward-secrets', key: 'api' } },
      allowedOperations: ['query'],
      options: { allowedCidrs: ['127.0.0.0/8'] },
    },
  });
  dataDir = await mkdtemp(join(tmpdir(), 'steward-gw-cluster-'));
  gw = await startClusterGateway(cluster.kubeconfig, {
    dataDir,
    namespace: NS,
    pod: POD,
    env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000' },
  });
}, 120_000);
afterAll(async () => {
  await gw?.close();
  await client?.close();
  await cluster?.close();
  await new Promise((resolve) => api?.close(resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const precheck = (query: string) =>
  gw.app.inject({
    method: 'POST',
    url: '/api/policy/pre-check',
    headers: { 'x-license-key': KEY },
    payload: { client_id: 'app', user_token: 'u', query },
  });

const byPod = async (name: string): Promise<PolicyPodStatus[]> =>
  ((await client.get(Resources.Policy, NS, name)) as KubeObject & { status?: { byPod?: PolicyPodStatus[] } }).status
    ?.byPod ?? [];

describe('steward gateway in cluster mode', () => {
  it('is live, and ready once the informers synced and the database answers, without credentials', async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });
  });

  it('pre-checks with the cluster policies and a License whose key is in a Secret', async () => {
    const res = await precheck('something bad');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ approved: false, block_reason: 'no-bad: no bad' });
    expect((await precheck('something fine')).json()).toMatchObject({ approved: true });
  });

  it('enforces a Policy created through the API server and reports its pod entry with the generation', async () => {
    await client.create(Resources.Policy, policy('no-worse', denies('worse')));
    await eventually(async () =>
      expect((await precheck('even worse')).json()).toMatchObject({
        approved: false,
        block_reason: 'no-worse: no worse',
      }),
    );
    await eventually(async () =>
      expect(await byPod('no-worse')).toEqual([{ pod: POD, observedGeneration: 1, loaded: true }]),
    );
  });

  it('keeps the previous version in force when a new one does not compile, reporting loaded=false with line:column', async () => {
    // Another gateway pod's entry, which this pod must keep.
    const current = await client.get(Resources.Policy, NS, 'no-worse');
    const other = { pod: 'steward-gateway-1', observedGeneration: 1, loaded: true };
    await client.replaceStatus(Resources.Policy, {
      ...current,
      status: { byPod: [other, ...(await byPod('no-worse'))] },
    });
    await client.patch(Resources.Policy, NS, 'no-worse', {
      spec: { rego: 'package worse\n\ndeny contains "x" if {\n  input.query ==\n' },
    });
    await eventually(async () => {
      const entries = await byPod('no-worse');
      expect(entries).toContainEqual(other);
      expect(entries).toContainEqual({
        pod: POD,
        observedGeneration: 2,
        loaded: false,
        error: expect.stringMatching(/^no-worse\.rego:\d+:\d+: /),
      });
    });
    expect((await precheck('even worse')).json()).toMatchObject({
      approved: false,
      block_reason: 'no-worse: no worse',
    });
    expect(await byPod('no-bad')).toEqual([{ pod: POD, observedGeneration: 1, loaded: true }]);
  });

  it('blocks a US SSN with the built-in pack, whose policies have no object and so no pod entry', async () => {
    expect((await precheck('my ssn is 123-45-6789')).json()).toMatchObject({
      approved: false,
      block_reason: expect.stringMatching(/^builtin-pii: /),
    });
    expect(gw.source.get('Policy', 'builtin-pii')?.metadata).toMatchObject({
      namespace: NS,
      labels: { 'steward.dev/pack': 'builtin' },
    });
    expect(await client.tryGet(Resources.Policy, NS, 'builtin-pii')).toBeUndefined();
    expect(cluster.requests.count({ resource: 'policies/status', name: 'no-bad' })).toBeGreaterThan(0);
    expect(cluster.requests.count({ resource: 'policies/status', name: 'builtin-pii' })).toBe(0);
  });

  it('lets a cluster Policy of the same name override a pack policy, and deleting it brings the pack policy back', async () => {
    await client.create(Resources.Policy, {
      ...policy('builtin-pii', ''),
      spec: { type: 'pii', enabled: false, rego: 'package steward.builtin.pii\n' },
    });
    await eventually(async () =>
      expect((await precheck('my ssn is 123-45-6789')).json()).toMatchObject({ approved: true }),
    );
    // The override is an object: this pod reports it.
    await eventually(async () =>
      expect(await byPod('builtin-pii')).toEqual([{ pod: POD, observedGeneration: 1, loaded: true }]),
    );
    await client.delete(Resources.Policy, NS, 'builtin-pii');
    await eventually(async () =>
      expect((await precheck('my ssn is 123-45-6789')).json()).toMatchObject({
        approved: false,
        block_reason: expect.stringMatching(/^builtin-pii: /),
      }),
    );
    expect(gw.source.get('Policy', 'builtin-pii')?.spec.enabled).toBe(true);
  });

  it('leaves the pack out with STEWARD_BUILTIN_POLICY_PACK=disabled', async () => {
    const bare = await startGateway(
      gatewaySettings({
        STEWARD_SOURCE: 'kubernetes',
        STEWARD_KUBECONFIG: cluster.kubeconfig,
        STEWARD_NAMESPACE: NS,
        STEWARD_POD_NAME: 'steward-gateway-bare',
        STEWARD_BUILTIN_POLICY_PACK: 'disabled',
        STEWARD_HOST: '127.0.0.1',
        STEWARD_GATEWAY_PORT: '0',
        STEWARD_DATA_DIR: join(dataDir, 'bare'),
        STEWARD_LICENSE_SIGNING_SECRET: TEST_SIGNING_SECRET,
        STEWARD_RATE_LIMIT_PER_MINUTE: '100000',
      }),
      createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
      {},
      { informer: { backoffMs: 20, maxBackoffMs: 200 } },
    );
    try {
      expect(bare.source.get('Policy', 'builtin-pii')).toBeUndefined();
      const res = await bare.app.inject({
        method: 'POST',
        url: '/api/policy/pre-check',
        headers: { 'x-license-key': KEY },
        payload: { client_id: 'app', user_token: 'u', query: 'my ssn is 123-45-6789' },
      });
      expect(res.json()).toMatchObject({ approved: true });
    } finally {
      await bare.close();
    }
  });

  it('writes Connector.status once while holding the Lease, and not again while nothing changes', async () => {
    await eventually(async () => {
      const obj = (await client.get(Resources.Connector, NS, 'api')) as KubeObject & {
        status?: Record<string, unknown>;
      };
      expect(obj.status).toMatchObject({
        status: 'healthy',
        lastHealthCheck: expect.any(String),
        latencyMs: expect.any(Number),
      });
    });
    const lease = (await client.get(Resources.Lease, NS, 'steward-gateway-status')) as KubeObject & {
      spec?: { holderIdentity?: string };
    };
    expect(lease.spec?.holderIdentity).toBe(POD);
    const patches = () => cluster.requests.count({ verb: 'patch', resource: 'connectors/status' });
    expect(patches()).toBe(1);
    for (let i = 0; i < 3; i++) await gw.parts.deps.connectors.checkHealth('api');
    // The server goes away: the status changes, and that is the second write; steady checks before it made none.
    await new Promise((resolve) => api.close(resolve));
    api.closeAllConnections();
    await gw.parts.deps.connectors.checkHealth('api');
    await eventually(async () => {
      const obj = (await client.get(Resources.Connector, NS, 'api')) as KubeObject & {
        status?: Record<string, unknown>;
      };
      expect(obj.status).toMatchObject({ status: 'unhealthy', message: expect.any(String) });
    });
    expect(patches()).toBe(2);
  });

  it('fails /readyz at once when it starts draining', async () => {
    const closing = gw.close();
    const res = await gw.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not-ready' });
    await closing;
  });
});
