/**
 * Lifecycle of Steward resources under the real operator (all five controllers), driven and observed with the
 * real kubectl against the test cluster with simulated pods: a Policy that stops compiling, a License that is
 * replaced by an expired key or expires by itself, the License node cap, and scaling an AgentConfig.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../platform/kube/client.js';
import { Resources } from '../../platform/kube/resources.js';
import type { TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { startOperator, type RunningOperator } from '../main.js';
import { silent } from '../manager/test/helpers.js';
import {
  BAD_REGO,
  DAY_MS,
  eventually,
  GOOD_REGO,
  licenseKey,
  m,
  ManifestDir,
  operatorConfig,
  startSimulatedCluster,
} from './install.js';

let cluster: TestCluster;
let client: KubeClient;
let kubectl: Kubectl;
let dir: ManifestDir;
let op: RunningOperator;

beforeAll(async () => {
  cluster = await startSimulatedCluster();
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'lifecycle-test' });
  kubectl = new Kubectl(cluster.kubeconfig);
  dir = new ManifestDir();
  op = await startOperator(
    operatorConfig(cluster, { STEWARD_POD_NAME: 'op-lifecycle', STEWARD_LEASE_NAME: 'lifecycle' }),
    { log: silent },
  );
  await eventually(() => expect(op.manager.leading).toBe(true));
});
afterAll(async () => {
  await op?.stop();
  await client?.close();
  await cluster?.close();
  kubectl?.dispose();
  dir?.dispose();
});

const POOL = { 'steward.dev/pool': 'main' };

const apply = (name: string, objects: Parameters<ManifestDir['write']>[1]) =>
  kubectl.ok(['apply', '-f', dir.write(name, objects)]);
const wait = (ns: string, ...args: string[]) =>
  kubectl.ok(['wait', '-n', ns, '--timeout=120s', ...args], { timeoutMs: 130_000 });
const jsonpath = async (ns: string, target: string, path: string) =>
  (await kubectl.ok(['get', '-n', ns, target, '-o', `jsonpath=${path}`])).trim();
const condition = (ns: string, target: string, type: string, field: 'status' | 'reason' | 'message') =>
  jsonpath(ns, target, `{.status.conditions[?(@.type=="${type}")].${field}}`);

describe('operator lifecycle, with kubectl', () => {
  it('reports a Rego syntax error applied over a good Policy as Compiled=False with its position', async () => {
    const ns = 'policy';
    await apply('policy-good', [m.namespace(ns), m.policy(ns, 'pii', GOOD_REGO)]);
    await wait(ns, '--for=condition=Compiled', 'policy/pii');

    await apply('policy-bad', [m.policy(ns, 'pii', BAD_REGO)]);
    await wait(ns, '--for=condition=Compiled=false', 'policy/pii');
    expect(await condition(ns, 'policy/pii', 'Compiled', 'reason')).toBe('CompileFailed');
    expect(await condition(ns, 'policy/pii', 'Compiled', 'message')).toMatch(/^pii\.rego:\d+:\d+: /);
    expect(await condition(ns, 'policy/pii', 'Ready', 'status')).toBe('False');
    expect(await jsonpath(ns, 'policy/pii', '{.status.observedGeneration}')).toBe('2');
    const warnings = JSON.parse(
      await kubectl.ok([
        'get',
        'events',
        '-n',
        ns,
        '--field-selector',
        'reason=CompileFailed,involvedObject.name=pii',
        '-o',
        'json',
      ]),
    ) as { items: { type: string }[] };
    expect(warnings.items.map((e) => e.type)).toContain('Warning');
  });

  it(
    'invalidates a License whose Secret gets an expired key, and one whose key expires by itself',
    { timeout: 120_000 },
    async () => {
      const ns = 'license';
      // Minted first, so its expiry runs while the rest of the test does: keys carry the expiry in seconds. NB:
      // 12 s leaves a slow machine the time to see it valid first (the operator needs well under a second).
      const soonExpiry = new Date(Date.now() + 12_000);
      await apply('license-base', [
        m.namespace(ns),
        m.secret(ns, 'acme-key', { key: licenseKey('ENT', new Date(Date.now() + 30 * DAY_MS)) }),
        m.secret(ns, 'soon-key', { key: licenseKey('PRO', soonExpiry) }),
        m.secret(ns, 'db', { url: `postgres://steward:pw@db.${ns}.svc:5432/steward` }),
      ]);
      await apply('license-resources', [
        m.license(ns, 'soon', 'soon-key'),
        m.license(ns, 'acme', 'acme-key'),
        m.orchestrator(ns, 'prod', { license: 'acme', database: 'db' }),
      ]);
      await wait(ns, '--for=jsonpath={.status.valid}=true', 'license/soon');
      await wait(ns, '--for=jsonpath={.status.valid}=true', 'license/acme');
      await wait(ns, '--for=condition=Ready', 'orchestrator/prod');

      // The Secret replaced by an expired key (signed correctly).
      await apply('license-expired', [
        m.secret(ns, 'acme-key', { key: licenseKey('ENT', new Date(Date.now() - DAY_MS)) }),
      ]);
      await wait(ns, '--for=jsonpath={.status.valid}=false', 'license/acme');
      expect(await jsonpath(ns, 'license/acme', '{.status.reason}')).toMatch(/^the license expired at /);
      expect(await condition(ns, 'license/acme', 'Ready', 'reason')).toBe('LicenseInvalid');
      await wait(ns, '--for=condition=Ready=false', 'orchestrator/prod');
      await wait(
        ns,
        '--for=jsonpath={.status.conditions[?(@.type=="Ready")].reason}=LicenseInvalid',
        'orchestrator/prod',
      );
      expect(await condition(ns, 'orchestrator/prod', 'Ready', 'message')).toMatch(
        /^License acme is not valid: the license expired/,
      );

      // The other key expires with nothing else changing: the License controller looks again at its expiry.
      const secretVersion = await jsonpath(ns, 'secret/soon-key', '{.metadata.resourceVersion}');
      await wait(ns, '--for=jsonpath={.status.valid}=false', 'license/soon');
      expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(soonExpiry.getTime() / 1000) * 1000);
      expect(await jsonpath(ns, 'license/soon', '{.status.reason}')).toBe(
        `the license expired at ${new Date(Math.floor(soonExpiry.getTime() / 1000) * 1000).toISOString()}`,
      );
      expect(await jsonpath(ns, 'secret/soon-key', '{.metadata.resourceVersion}')).toBe(secretVersion);
      expect(await jsonpath(ns, 'license/soon', '{.metadata.generation}')).toBe('1');
    },
  );

  it('caps the replicas of a PRO License at 10 pods, with NodeLimitExceeded and a Warning Event', async () => {
    const ns = 'cap';
    await apply('cap-license', [
      m.namespace(ns),
      m.secret(ns, 'pro-key', { key: licenseKey('PRO', new Date(Date.now() + 30 * DAY_MS)) }),
      m.secret(ns, 'db', { url: `postgres://steward:pw@db.${ns}.svc:5432/steward` }),
      m.license(ns, 'pro', 'pro-key'),
    ]);
    await wait(ns, '--for=jsonpath={.status.maxNodes}=10', 'license/pro');
    await apply('cap-resources', [
      m.orchestrator(ns, 'prod', { license: 'pro', database: 'db', gateway: 2, orchestrator: 1, pool: POOL }),
      m.agent(ns, 'alpha', 9, POOL),
      m.agent(ns, 'beta', 1, POOL),
    ]);
    // 13 requested: one pod per component first, then the gateway's second, then alpha's rest up to the cap.
    await wait(
      ns,
      '--for=jsonpath={.status.conditions[?(@.type=="Degraded")].reason}=NodeLimitExceeded',
      'agentconfig/alpha',
    );
    await wait(
      ns,
      '--for=jsonpath={.status.conditions[?(@.type=="Degraded")].reason}=NodeLimitExceeded',
      'orchestrator/prod',
    );
    await wait(ns, '--for=condition=Ready', 'orchestrator/prod');
    await wait(ns, '--for=condition=Ready', 'agentconfig', '--all');
    const replicas = async () =>
      Object.fromEntries(
        (
          await kubectl.ok([
            'get',
            'deployments',
            '-n',
            ns,
            '-o',
            'jsonpath={range .items[*]}{.metadata.name}={.spec.replicas}{"\\n"}{end}',
          ])
        )
          .trim()
          .split('\n')
          .map((l) => l.split('=') as [string, string])
          .map(([k, v]) => [k, Number(v)]),
      );
    expect(await replicas()).toEqual({ 'alpha-agent': 6, 'beta-agent': 1, 'prod-gateway': 2, 'prod-orchestrator': 1 });
    const pods = (await client.list(Resources.Pod, { namespace: ns })).items.filter(
      (p) => !p.metadata.deletionTimestamp,
    );
    expect(pods.length).toBeLessThanOrEqual(10);
    expect(await condition(ns, 'agentconfig/alpha', 'Degraded', 'message')).toMatch(/6 of 9 agent replicas created/);
    expect(await condition(ns, 'agentconfig/beta', 'Degraded', 'reason')).toBe('Reconciled');
    expect(await condition(ns, 'orchestrator/prod', 'Degraded', 'message')).toMatch(
      /allows 10 Steward pods in the namespace and 13 were requested; 3 replicas were not created/,
    );

    const events = JSON.parse(
      await kubectl.ok(['get', 'events', '-n', ns, '--field-selector', 'reason=NodeLimitExceeded', '-o', 'json']),
    ) as {
      items: { type: string; involvedObject: { kind: string; name: string } }[];
    };
    expect(events.items.every((e) => e.type === 'Warning')).toBe(true);
    // NB: a set: a reconcile reading a cache that lags its own last status write may announce the problem again.
    expect([...new Set(events.items.map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}`))].sort()).toEqual([
      'AgentConfig/alpha',
      'Orchestrator/prod',
    ]);
  });

  it('scales an AgentConfig patched with kubectl: its Deployment and readyReplicas follow', async () => {
    const ns = 'scale';
    await apply('scale', [
      m.namespace(ns),
      m.orchestrator(ns, 'prod', { communityMode: true, pool: POOL }),
      m.agent(ns, 'worker', 1, POOL),
    ]);
    await wait(ns, '--for=condition=Ready', 'agentconfig/worker');
    expect(await jsonpath(ns, 'deployment/worker-agent', '{.spec.replicas}')).toBe('1');

    await kubectl.ok(['patch', '-n', ns, 'agentconfig', 'worker', '--type', 'merge', '-p', '{"spec":{"replicas":3}}']);
    await wait(ns, '--for=jsonpath={.spec.replicas}=3', 'deployment/worker-agent');
    await wait(ns, '--for=jsonpath={.status.readyReplicas}=3', 'agentconfig/worker');
    await wait(ns, '--for=condition=Ready', 'agentconfig/worker');
    expect(await jsonpath(ns, 'agentconfig/worker', '{.status.observedGeneration}')).toBe('2');
  });
});
