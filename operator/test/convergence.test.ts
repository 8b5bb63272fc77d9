/**
 * Convergence of the real operator (all five controllers) against the test cluster with simulated pods: the
 * same installation, applied with the real kubectl, ends in the same state whether the API server behaves or
 * answers with 409 conflicts, 500s, 429 with Retry-After, dropped watches and a compacted history — with no
 * duplicate objects. And with two replicas, only the Lease holder reconciles; when it crashes (the Lease is not
 * released) the standby takes over and reconciles a change made after the crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS, MANAGED_BY } from '../../api/constants.js';
import { KubeClient, type KubeObject } from '../../platform/kube/client.js';
import { Resources, type ResourceRef } from '../../platform/kube/resources.js';
import type { FaultSpec } from '../../testing/kube/faults.js';
import type { TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { CONFIG_HASH_ANNOTATION, AGENT_LABEL } from '../controllers/meta.js';
import { startOperator, type RunningOperator } from '../main.js';
import { silent } from '../manager/test/helpers.js';
import {
  DAY_MS,
  eventually,
  GOOD_REGO,
  licenseKey,
  m,
  ManifestDir,
  operatorConfig,
  startSimulatedCluster,
} from './install.js';
import { ORCHESTRATOR_OWNS } from '../controllers/index.js';

let cluster: TestCluster;
let client: KubeClient;
let kubectl: Kubectl;
let dir: ManifestDir;

beforeAll(async () => {
  cluster = await startSimulatedCluster();
  client = await KubeClient.connect({ kubeconfigYaml: cluster.kubeconfigYaml, userAgent: 'convergence-test' });
  kubectl = new Kubectl(cluster.kubeconfig);
  dir = new ManifestDir();
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
  kubectl?.dispose();
  dir?.dispose();
});

const POOL = { 'steward.dev/pool': 'main' };

/** Namespace and Secrets: applied before any fault is armed (kubectl creates Secrets too). */
function base(ns: string): KubeObject[] {
  return [
    m.namespace(ns),
    m.secret(ns, 'license-key', { key: licenseKey('PRO', new Date(Date.now() + 30 * DAY_MS)) }),
    m.secret(ns, 'db', { url: `postgres://steward:pw@db.${ns}.svc:5432/steward` }),
    m.secret(ns, 'warehouse-db', { url: `postgres://reader:pw@warehouse.${ns}.svc:5432/sales` }),
  ];
}

/** The Steward resources; step 2 scales the orchestrator and one agent, so Deployments are updated too. */
function resources(ns: string, step: 1 | 2): KubeObject[] {
  return [
    m.license(ns, 'acme', 'license-key'),
    m.orchestrator(ns, 'prod', { license: 'acme', database: 'db', gateway: 2, orchestrator: step, pool: POOL }),
    m.agent(ns, 'planner', step, POOL),
    m.agent(ns, 'search', 1, POOL),
    m.policy(ns, 'no-drop', GOOD_REGO),
    m.connector(ns, 'warehouse', 'warehouse-db'),
  ];
}

async function waitConverged(ns: string, generation: number): Promise<void> {
  const wait = (...args: string[]) => kubectl.ok(['wait', '-n', ns, '--timeout=120s', ...args], { timeoutMs: 130_000 });
  await wait(`--for=jsonpath={.status.observedGeneration}=${generation}`, 'orchestrator/prod');
  await wait(`--for=jsonpath={.status.observedGeneration}=${generation}`, 'agentconfig/planner');
  await wait('--for=condition=Ready', 'orchestrator', '--all');
  await wait('--for=condition=Ready', 'agentconfig', '--all');
  await wait('--for=condition=Ready', 'connector', '--all');
  await wait('--for=jsonpath={.status.valid}=true', 'license', '--all');
  await wait('--for=condition=Compiled', 'policy', '--all');
}

/** Applies the installation in two steps, running `hooks` before the resources and between the steps. */
async function install(
  ns: string,
  hooks: { beforeResources?: () => void; betweenSteps?: () => Promise<void> } = {},
): Promise<void> {
  await kubectl.ok(['apply', '-f', dir.write(`${ns}-base`, base(ns))]);
  hooks.beforeResources?.();
  await kubectl.ok(['apply', '-f', dir.write(`${ns}-step1`, resources(ns, 1))]);
  await waitConverged(ns, 1);
  await hooks.betweenSteps?.();
  await kubectl.ok(['apply', '-f', dir.write(`${ns}-step2`, resources(ns, 2))]);
  await waitConverged(ns, 2);
}

/** What the operator manages (the kinds it owns). */
const OWNED = ORCHESTRATOR_OWNS;
const STEWARD_KINDS: ResourceRef[] = [
  Resources.Orchestrator,
  Resources.AgentConfig,
  Resources.Policy,
  Resources.Connector,
  Resources.License,
];

interface Snapshot {
  /** `Kind/name` of every object labelled managed-by=steward-operator. */
  objects: string[];
  /** Objects per (kind, component, agent) listed by labels: 1 each when there are no duplicates. */
  perComponent: Record<string, number>;
  /** Replicas, ready replicas and the config hash (relabelled h1, h2... in name order: the hashes hold random O-internal values). */
  deployments: Record<string, { replicas: unknown; readyReplicas: unknown; configHash: string }>;
  /** Pods (not terminating) per component. */
  pods: Record<string, number>;
  /** `type=status/reason` of each Steward resource's conditions. */
  conditions: Record<string, string[]>;
}

async function snapshot(ns: string): Promise<Snapshot> {
  const selector = `${LABELS.managedBy}=${MANAGED_BY}`;
  const norm = (s: string) => s.split(ns).join('NS');
  const objects: string[] = [];
  const perComponent: Record<string, number> = {};
  const owned: KubeObject[] = [];
  for (const ref of OWNED) {
    for (const o of (await client.list(ref, { namespace: ns, labelSelector: selector })).items) {
      objects.push(`${ref.kind}/${norm(o.metadata.name!)}`);
      owned.push({ ...o, kind: ref.kind });
      const l = o.metadata.labels ?? {};
      const key = `${ref.kind}:${l[LABELS.component]}:${l[AGENT_LABEL] ?? '-'}`;
      perComponent[key] = (perComponent[key] ?? 0) + 1;
    }
  }
  const hashes = new Map<string, string>();
  const deployments: Snapshot['deployments'] = {};
  for (const d of owned
    .filter((o) => o.kind === 'Deployment')
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!))) {
    const spec = d.spec as { replicas?: number; template?: { metadata?: { annotations?: Record<string, string> } } };
    const hash = spec.template?.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? 'none';
    if (!hashes.has(hash)) hashes.set(hash, `h${hashes.size + 1}`);
    deployments[d.metadata.name!] = {
      replicas: spec.replicas,
      readyReplicas: (d.status as { readyReplicas?: number } | undefined)?.readyReplicas,
      configHash: hashes.get(hash)!,
    };
  }
  const pods: Record<string, number> = {};
  for (const p of (await client.list(Resources.Pod, { namespace: ns, labelSelector: selector })).items) {
    if (p.metadata.deletionTimestamp) continue;
    const l = p.metadata.labels ?? {};
    const key = `${l[LABELS.component]}:${l[AGENT_LABEL] ?? '-'}`;
    pods[key] = (pods[key] ?? 0) + 1;
  }
  const conditions: Record<string, string[]> = {};
  for (const ref of STEWARD_KINDS) {
    for (const o of (await client.list(ref, { namespace: ns })).items) {
      const cs = (
        (o.status as { conditions?: { type: string; status: string; reason: string }[] } | undefined)?.conditions ?? []
      ).map((c) => `${c.type}=${c.status}/${c.reason}`);
      conditions[`${ref.kind}/${o.metadata.name}`] = cs.sort();
    }
  }
  return { objects: objects.sort(), perComponent, deployments, pods, conditions };
}

/** The same snapshot twice in a row: nothing is still moving. */
async function settledSnapshot(ns: string): Promise<Snapshot> {
  let last = await snapshot(ns);
  await eventually(async () => {
    await new Promise((r) => setTimeout(r, 250));
    const next = await snapshot(ns);
    const same = JSON.stringify(next) === JSON.stringify(last);
    last = next;
    expect(same).toBe(true);
  });
  return last;
}

/** Each Normal `Created` Event appears once: no object was created twice. */
async function createdEvents(ns: string): Promise<{ message: string; count: number }[]> {
  const events = await client.list(Resources.Event, { namespace: ns, fieldSelector: 'reason=Created' });
  return events.items.map((e) => ({ message: String(e.message), count: Number(e.count ?? 1) }));
}

describe('convergence under API server faults', () => {
  it('ends in the same state with and without faults, with no duplicate objects', { timeout: 240_000 }, async () => {
    const op = await startOperator(
      operatorConfig(cluster, { STEWARD_POD_NAME: 'op-converge', STEWARD_LEASE_NAME: 'converge' }),
      {
        log: silent,
        backoffBaseDelayMs: 20,
      },
    );
    try {
      await eventually(() => expect(op.manager.leading).toBe(true));

      // A: no faults.
      await install('conv-a');
      const expected = await settledSnapshot('conv-a');
      expect(expected.objects).toEqual(
        [
          'ConfigMap/prod-config',
          'Deployment/planner-agent',
          'Deployment/prod-gateway',
          'Deployment/prod-orchestrator',
          'Deployment/search-agent',
          'PodDisruptionBudget/prod-gateway',
          'PodDisruptionBudget/prod-orchestrator',
          'Role/prod-runtime',
          'RoleBinding/prod-runtime',
          'Secret/prod-internal',
          'Service/planner-agent',
          'Service/prod-gateway',
          'Service/prod-orchestrator',
          'Service/search-agent',
          'ServiceAccount/prod-runtime',
        ].sort(),
      );
      expect(expected.deployments).toMatchObject({
        'prod-gateway': { replicas: 2, readyReplicas: 2 },
        'prod-orchestrator': { replicas: 2, readyReplicas: 2 },
        'planner-agent': { replicas: 2, readyReplicas: 2 },
        'search-agent': { replicas: 1, readyReplicas: 1 },
      });

      // B: the same installation, with faults armed from before the resources exist to the end.
      const ns = 'conv-b';
      const armed: { spec: FaultSpec; times: number }[] = [];
      const arm = (spec: FaultSpec) => {
        cluster.faults.inject(spec);
        armed.push({ spec, times: spec.times ?? 1 });
      };
      let internalAfterStep1: unknown;
      await install(ns, {
        beforeResources: () => {
          // NB: only what the operator does: kubectl creates the Steward resources and patches them (step 2).
          arm({ verb: 'update', namespace: ns, status: 409, times: 8 });
          for (const resource of [
            'deployments',
            'services',
            'configmaps',
            'secrets',
            'serviceaccounts',
            'roles',
            'rolebindings',
            'poddisruptionbudgets',
          ]) {
            arm({ verb: 'create', resource, namespace: ns, status: 500, times: 2 });
          }
          arm({ verb: 'create', resource: 'services', namespace: ns, status: 429, retryAfterSeconds: 1, times: 1 });
          for (const resource of [
            'orchestrators/status',
            'agentconfigs/status',
            'licenses/status',
            'connectors/status',
          ]) {
            arm({ verb: 'patch', resource, namespace: ns, status: 500, times: 3 });
          }
          arm({
            verb: 'patch',
            resource: 'agentconfigs/status',
            namespace: ns,
            status: 429,
            retryAfterSeconds: 1,
            times: 1,
          });
          // Cluster-wide requests are the operator's informers (kubectl works in the namespace).
          arm({ verb: 'watch', namespace: '', dropWatch: true, times: 6 });
          cluster.closeWatches();
        },
        betweenSteps: async () => {
          internalAfterStep1 = (await client.get(Resources.Secret, ns, 'prod-internal')).data;
          // The history is compacted and every watch ends: the informers' resourceVersions are gone (410), so
          // they re-list — throttled, and their next watches dropped again.
          cluster.compact();
          cluster.closeWatches();
          arm({ verb: 'list', namespace: '', status: 429, retryAfterSeconds: 1, times: 2 });
          arm({ verb: 'watch', namespace: '', dropWatch: true, times: 6 });
          arm({ verb: 'update', namespace: ns, status: 409, times: 4 });
          arm({ verb: 'create', resource: 'poddisruptionbudgets', namespace: ns, status: 500, times: 1 });
        },
      });
      let got: Snapshot | undefined;
      await eventually(async () => {
        got = await snapshot(ns);
        expect(got).toEqual(expected);
      });

      // The installation's shared secrets were generated once, not rotated by a retry with a lagging cache.
      expect((await client.get(Resources.Secret, ns, 'prod-internal')).data).toEqual(internalAfterStep1);

      // Every kind of fault was met (a fault left armed would make this test prove nothing).
      const left = new Map(cluster.faults.pending().map((p) => [p.spec, p.left]));
      const unused = armed.filter((a) => (left.get(a.spec) ?? 0) === a.times).map((a) => JSON.stringify(a.spec));
      cluster.faults.clear();
      expect(unused).toEqual([]);
      const faulted = cluster.requests.all().filter((r) => r.fault && (r.namespace === ns || r.namespace === ''));
      expect(new Set(faulted.map((r) => r.fault))).toEqual(new Set(['409', '500', '429', 'dropWatch']));
      expect(op.manager.stats().orchestrator!.errors).toBeGreaterThan(0);

      // No duplicates: exactly one object per kind and component, and every Created Event once.
      expect(expected.perComponent).toEqual({
        'ConfigMap:orchestrator:-': 1,
        'Deployment:agent:planner': 1,
        'Deployment:agent:search': 1,
        'Deployment:gateway:-': 1,
        'Deployment:orchestrator:-': 1,
        'PodDisruptionBudget:gateway:-': 1,
        'PodDisruptionBudget:orchestrator:-': 1,
        'Role:orchestrator:-': 1,
        'RoleBinding:orchestrator:-': 1,
        'Secret:orchestrator:-': 1,
        'Service:agent:planner': 1,
        'Service:agent:search': 1,
        'Service:gateway:-': 1,
        'Service:orchestrator:-': 1,
        'ServiceAccount:orchestrator:-': 1,
      });
      for (const n of ['conv-a', ns]) {
        const created = await createdEvents(n);
        expect(created.length).toBeGreaterThan(0);
        expect(created.filter((e) => e.count !== 1)).toEqual([]);
        expect(new Set(created.map((e) => e.message)).size).toBe(created.length);
      }
    } finally {
      cluster.faults.clear();
      await op.stop();
    }
  });
});

describe('two operator replicas', () => {
  it('reconciles only on the Lease holder; after it crashes the standby takes over', { timeout: 180_000 }, async () => {
    const ns = 'ha';
    const config = (identity: string) =>
      operatorConfig(cluster, {
        STEWARD_POD_NAME: identity,
        STEWARD_LEASE_NAME: 'ha-operator',
        STEWARD_WATCH_NAMESPACE: ns,
      });
    const reconciles = (op: RunningOperator) => Object.values(op.manager.stats()).reduce((n, s) => n + s.reconciles, 0);
    const holder = async () =>
      ((await client.get(Resources.Lease, 'default', 'ha-operator')).spec as { holderIdentity?: string })
        .holderIdentity;
    const leader = await startOperator(config('op-ha-1'), { log: silent });
    let standby: RunningOperator | undefined;
    try {
      await eventually(() => expect(leader.manager.leading).toBe(true));
      standby = await startOperator(config('op-ha-2'), { log: silent });
      await eventually(() => expect(standby!.manager.ready).toBe(true));
      expect(await holder()).toBe('op-ha-1');

      await kubectl.ok(['apply', '-f', dir.write(`${ns}-base`, base(ns))]);
      await kubectl.ok(['apply', '-f', dir.write(`${ns}-step1`, resources(ns, 1))]);
      await waitConverged(ns, 1);
      expect(reconciles(leader)).toBeGreaterThan(0);
      expect(standby.manager.leading).toBe(false);
      expect(reconciles(standby)).toBe(0);

      // A crash: the Lease is left to expire. A change made right after must still be reconciled.
      await leader.stop({ releaseLease: false });
      const crashedAt = Date.now();
      await kubectl.ok([
        'patch',
        '-n',
        ns,
        'agentconfig',
        'planner',
        '--type',
        'merge',
        '-p',
        '{"spec":{"replicas":3}}',
      ]);
      await eventually(() => expect(standby!.manager.leading).toBe(true));
      const takeoverMs = Date.now() - crashedAt;
      expect(await holder()).toBe('op-ha-2');
      await kubectl.ok(
        ['wait', '-n', ns, '--timeout=120s', '--for=jsonpath={.spec.replicas}=3', 'deployment/planner-agent'],
        { timeoutMs: 130_000 },
      );
      await kubectl.ok(
        ['wait', '-n', ns, '--timeout=120s', '--for=jsonpath={.status.readyReplicas}=3', 'agentconfig/planner'],
        { timeoutMs: 130_000 },
      );
      expect(standby.manager.stats().agentconfig!.reconciles).toBeGreaterThan(0);
      // For the record, not asserted (machine speed): the Lease lasts 2 s.
      silent.info({ takeoverMs }, 'standby took over');
    } finally {
      await leader.stop();
      await standby?.stop();
    }
  });
});
