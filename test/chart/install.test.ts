/**
 * The chart's acceptance scenario on the test cluster with workloads (issue 22): `helm install --wait` with a
 * signing Secret, a License and a default Orchestrator in community mode; the operator pods and the runtime pods
 * run as processes of this checkout, the CRD hook Job runs the real kubectl (kubectl-in-pod.sh plays the kubectl
 * image). The Orchestrator becomes Ready, `helm upgrade` with a changed value (and a changed CRD) rolls the operator
 * and updates the CRD, `helm uninstall` removes everything but the CRDs, a reinstall over those CRDs works, and a
 * release watching one namespace reconciles only there. The test server does not enforce RBAC: the rules are
 * checked in chart.test.ts. Slow by nature (Steward processes): one file, one cluster, the scenario in order.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../api/kinds.js';
import { issueLicenseKey } from '../../api/licensekey.js';
import { eventually } from '../../testing/eventually.js';
import { livePids, startTestCluster, type TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { CHART, helm } from './helm-run.js';

const NS = 'steward-system';
const SIGNING_SECRET = 'chart-signing-secret-0123456789abcdef';
const SHIM = fileURLToPath(new URL('kubectl-in-pod.sh', import.meta.url));
const VALUES = [
  '--set',
  'licenseSigningSecret.existingSecret=steward-signing',
  '--set',
  'license.existingSecret=steward-license',
  '--set',
  'orchestrator.create=true',
  '--set',
  'orchestrator.communityMode=true',
  '--set',
  'orchestrator.gateway.replicas=1',
  '--set',
  'orchestrator.orchestrator.replicas=1',
];

let cluster: TestCluster;
let kubectl: Kubectl;
const dir = mkdtempSync(join(tmpdir(), 'chart-install-'));

type Obj = {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

async function getJson<T>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl.ok([...args, '-o', 'json'])) as T;
}

/** What a person would look at when the install does not come up. */
async function diagnose(): Promise<string> {
  const out: string[] = [(await kubectl.run(['get', 'pods,deployments,jobs', '-n', NS, '-o', 'wide'])).stdout];
  out.push((await kubectl.run(['get', 'orchestrators,licenses', '-n', NS, '-o', 'yaml'])).stdout.slice(-3000));
  const pods = JSON.parse((await kubectl.run(['get', 'pods', '-n', NS, '-o', 'json'])).stdout || '{"items":[]}') as {
    items: (Obj & { spec: { containers: { name: string }[] } })[];
  };
  for (const p of pods.items) {
    for (const c of p.spec.containers)
      out.push(
        `--- ${p.metadata.name}/${c.name} ---\n${(cluster.workloads?.kubelet.logs.read(NS, p.metadata.name, c.name, {}) ?? '').slice(-2000)}`,
      );
  }
  return out.join('\n');
}

async function helmOrDiagnose(args: string[]): Promise<string> {
  const r = await helm(args, { kubeconfig: cluster.kubeconfig, timeoutMs: 400_000 });
  if (r.code !== 0)
    throw new Error(`helm ${args.join(' ')} exited ${r.code}\n${r.stderr}${r.stdout}\n${await diagnose()}`);
  return r.stdout;
}

async function operatorPods(): Promise<{ name: string; ready: boolean }[]> {
  const pods = await getJson<{ items: (Obj & { status: { conditions?: { type: string; status: string }[] } })[] }>([
    'get',
    'pods',
    '-n',
    NS,
    '-l',
    'app.kubernetes.io/component=operator',
  ]);
  return pods.items.map((p) => ({
    name: p.metadata.name,
    ready: p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
  }));
}

beforeAll(async () => {
  cluster = await startTestCluster({
    tls: true,
    workloads: { images: { 'registry.k8s.io/kubectl': [SHIM] }, backoffBaseMs: 1000 },
  });
  kubectl = new Kubectl(cluster.kubeconfig);
  await kubectl.ok(['create', 'namespace', NS]);
  await kubectl.ok([
    'create',
    'secret',
    'generic',
    'steward-signing',
    '-n',
    NS,
    `--from-literal=signing-secret=${SIGNING_SECRET}`,
  ]);
  const key = issueLicenseKey({
    tier: 'ENT',
    expiresAt: new Date(Date.now() + 365 * 86_400_000),
    secret: SIGNING_SECRET,
  });
  await kubectl.ok(['create', 'secret', 'generic', 'steward-license', '-n', NS, `--from-literal=license-key=${key}`]);
}, 120_000);

afterAll(async () => {
  await cluster?.close();
  kubectl?.dispose();
  rmSync(dir, { recursive: true, force: true });
  expect(livePids()).toEqual([]);
}, 120_000);

describe('helm install, upgrade and uninstall of charts/steward on the test cluster', { timeout: 600_000 }, () => {
  it('installs: the CRD hook runs, the operator comes up, the default Orchestrator and its License become Ready', async () => {
    const out = await helmOrDiagnose([
      'install',
      'steward',
      CHART,
      '-n',
      NS,
      '--create-namespace',
      '--wait',
      '--timeout',
      '5m',
      ...VALUES,
    ]);
    expect(out).toContain('STATUS: deployed');
    expect(out).toContain('kubectl get orchestrators'); // NOTES.txt
    // The hook's objects are gone after success (hook-succeeded); the CRDs are there.
    expect(cluster.store.tryGet('jobs.batch', NS, 'steward-crd-upgrade')).toBeUndefined();
    const crds = await getJson<{ items: Obj[] }>(['get', 'crds']);
    expect(
      crds.items
        .map((c) => c.metadata.name)
        .filter((n) => n.endsWith('.steward.dev'))
        .sort(),
    ).toEqual([
      'agentconfigs.steward.dev',
      'budgets.steward.dev',
      'connectors.steward.dev',
      'licenses.steward.dev',
      'orchestrators.steward.dev',
      'policies.steward.dev',
      'policyexceptions.steward.dev',
    ]);

    // One field manager for Helm's crds/ and the hook's apply (so that a reinstall does not conflict).
    const orchestratorCrd = await getJson<{ metadata: { managedFields?: { manager: string }[] } }>([
      'get',
      'crd',
      'orchestrators.steward.dev',
      '--show-managed-fields',
    ]);
    expect(orchestratorCrd.metadata.managedFields?.map((f) => f.manager)).toEqual(['helm']);

    const pods = await operatorPods();
    expect(pods).toHaveLength(2);
    expect(pods.every((p) => p.ready)).toBe(true);

    const wait = await kubectl.run(
      ['wait', '--for=condition=Ready', 'orchestrator/steward', '-n', NS, '--timeout=300s'],
      { timeoutMs: 310_000 },
    );
    if (wait.code !== 0) throw new Error(`kubectl wait: ${wait.stderr}\n${await diagnose()}`);
    const license = await getJson<Obj>(['get', 'license', 'steward', '-n', NS]);
    expect(license.status).toMatchObject({ valid: true, tier: 'ENT' });
    const deployments = await getJson<{ items: Obj[] }>(['get', 'deployments', '-n', NS]);
    expect(deployments.items.map((d) => d.metadata.name).sort()).toEqual([
      'steward-gateway',
      'steward-operator',
      'steward-orchestrator',
    ]);
  });

  it('passes helm test: a US SSN is blocked and a benign question approved through the gateway Service', async () => {
    const out = await helmOrDiagnose(['test', 'steward', '-n', NS, '--timeout', '5m']);
    expect(out).toMatch(/steward-test-pre-check[\s\S]*Succeeded/);
  });

  it('upgrades with a changed value and a changed CRD: the hook updates the CRD, the operator pods roll', async () => {
    const before = (await operatorPods()).map((p) => p.name);
    // A later chart version whose CRD changed (Helm itself never upgrades crds/).
    const next = join(dir, 'steward');
    cpSync(CHART, next, { recursive: true });
    const crdFile = join(next, 'crds/orchestrators.steward.dev.yaml');
    writeFileSync(
      crdFile,
      readFileSync(crdFile, 'utf8').replace('A Steward installation:', 'A Steward installation (upgraded):'),
    );
    const out = await helmOrDiagnose([
      'upgrade',
      'steward',
      next,
      '-n',
      NS,
      '--wait',
      '--timeout',
      '5m',
      ...VALUES,
      '--set',
      'operator.logLevel=debug',
    ]);
    expect(out).toContain('STATUS: deployed');
    // The old operator pods are gone and two new ones are ready.
    await eventually(
      async () => {
        const now = await operatorPods();
        expect(now.filter((p) => p.ready && !before.includes(p.name))).toHaveLength(2);
        expect(now).toHaveLength(2);
      },
      180_000,
      250,
    );
    const deployment = await getJson<{
      spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
    }>(['get', 'deployment', 'steward-operator', '-n', NS]);
    expect(deployment.spec.template.spec.containers[0]!.env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
    const crd = await getJson<{ spec: { versions: { schema: { openAPIV3Schema: { description: string } } }[] } }>([
      'get',
      'crd',
      'orchestrators.steward.dev',
    ]);
    expect(crd.spec.versions[0]!.schema.openAPIV3Schema.description).toMatch(/^A Steward installation \(upgraded\):/);
    const wait = await kubectl.run(
      ['wait', '--for=condition=Ready', 'orchestrator/steward', '-n', NS, '--timeout=120s'],
      { timeoutMs: 130_000 },
    );
    expect(wait.code).toBe(0);
  });

  it('uninstalls everything but the CRDs', async () => {
    const out = await helmOrDiagnose(['uninstall', 'steward', '-n', NS, '--wait', '--timeout', '5m']);
    expect(out).toContain('release "steward" uninstalled');
    // The release's objects and what the operator made are gone.
    await eventually(
      () => {
        const left = [
          ...cluster.store.list('deployments.apps', { namespace: NS }).items,
          ...cluster.store.list('orchestrators.steward.dev', { namespace: NS }).items,
          ...cluster.store.list('licenses.steward.dev', { namespace: NS }).items,
          ...cluster.store.list('services', { namespace: NS }).items,
          ...cluster.store.list('serviceaccounts', { namespace: NS, labelSelector: 'app.kubernetes.io/name=steward' })
            .items,
          ...cluster.store.list('pods', { namespace: NS }).items,
        ];
        expect(left.map((o) => `${String(o.kind)}/${String((o.metadata as { name: string }).name)}`)).toEqual([]);
      },
      180_000,
      250,
    );
    expect(
      cluster.store.tryGet('clusterroles.rbac.authorization.k8s.io', undefined, 'steward-operator'),
    ).toBeUndefined();
    expect(
      cluster.store.tryGet('clusterrolebindings.rbac.authorization.k8s.io', undefined, 'steward-operator'),
    ).toBeUndefined();
    expect(cluster.store.list('secrets', { namespace: NS, labelSelector: 'owner=helm' }).items).toEqual([]);
    const crds = await getJson<{ items: Obj[] }>(['get', 'crds']);
    expect(crds.items.filter((c) => c.metadata.name.endsWith('.steward.dev'))).toHaveLength(KINDS.length);
  });

  it("reinstalls over the CRDs left behind (Helm 4 applies crds/ with the hook's field manager: no conflict)", async () => {
    await helmOrDiagnose([
      'install',
      'steward',
      CHART,
      '-n',
      NS,
      '--wait',
      '--timeout',
      '5m',
      '--set',
      'operator.replicas=1',
    ]);
    const crd = await getJson<{ spec: { versions: { schema: { openAPIV3Schema: { description: string } } }[] } }>([
      'get',
      'crd',
      'orchestrators.steward.dev',
    ]);
    expect(crd.spec.versions[0]!.schema.openAPIV3Schema.description).toMatch(/^A Steward installation:/);
    await helmOrDiagnose(['uninstall', 'steward', '-n', NS, '--wait', '--timeout', '5m']);
  });

  it('installs a second release that watches one namespace: it reconciles there and nowhere else', async () => {
    for (const ns of ['team-a', 'team-b']) await kubectl.ok(['create', 'namespace', ns]);
    // NB: --skip-crds: the live CRDs are the upgraded ones of the first release; this older chart would put its own back.
    const out = await helmOrDiagnose([
      'install',
      'steward-team-a',
      CHART,
      '-n',
      NS,
      '--skip-crds',
      '--wait',
      '--timeout',
      '5m',
      '--set',
      'operator.watchNamespace=team-a',
      '--set',
      'operator.replicas=1',
      '--set',
      'crdUpgrade.enabled=false',
    ]);
    expect(out).toContain('watching the namespace team-a');
    expect(cluster.store.tryGet('roles.rbac.authorization.k8s.io', 'team-a', 'steward-team-a-operator')).toBeDefined();
    expect(
      cluster.store.tryGet('clusterroles.rbac.authorization.k8s.io', undefined, 'steward-team-a-operator'),
    ).toBeUndefined();
    const orchestrator = (ns: string) => ({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Orchestrator',
      metadata: { name: 'small', namespace: ns },
      spec: { communityMode: true, gateway: { replicas: 1 }, orchestrator: { replicas: 1 } },
    });
    await kubectl.ok(['apply', '-f', '-'], {
      stdin: [orchestrator('team-a'), orchestrator('team-b')].map((o) => JSON.stringify(o)).join('\n'),
    });
    const wait = await kubectl.run(
      ['wait', '--for=condition=Ready', 'orchestrator/small', '-n', 'team-a', '--timeout=300s'],
      { timeoutMs: 310_000 },
    );
    if (wait.code !== 0) throw new Error(`kubectl wait: ${wait.stderr}\n${await diagnose()}`);
    // team-b is not watched: no status, no workloads.
    expect((await getJson<Obj>(['get', 'orchestrator', 'small', '-n', 'team-b'])).status ?? {}).toEqual({});
    expect(cluster.store.list('deployments.apps', { namespace: 'team-b' }).items).toEqual([]);
    await helmOrDiagnose(['uninstall', 'steward-team-a', '-n', NS, '--wait', '--timeout', '5m']);
    expect(
      cluster.store.tryGet('roles.rbac.authorization.k8s.io', 'team-a', 'steward-team-a-operator'),
    ).toBeUndefined();
  });
});
