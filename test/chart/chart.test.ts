/**
 * The Helm chart (charts/steward): `helm lint --strict`, values.schema.json kept equal to values.yaml, the
 * rendered manifests of the documented value combinations (CASES) as snapshots under __snapshots__/ and
 * accepted by the test API server (`kubectl apply --dry-run=server`; the ServiceMonitor is not, its CRD is not
 * installed there), the operator's RBAC covering what it grants the runtimes, and mistyped values refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { allControllers } from '../../operator/controllers/index.js';
import { RUNTIME_RULES } from '../../operator/controllers/orchestrator/desired.js';
import { METRICS_PATH } from '../../operator/probes.js';
import { Resources, type ResourceRef } from '../../platform/kube/resources.js';
import { startTestCluster, type TestCluster } from '../../testing/kube/index.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { CHART, helm, helmOk } from './helm-run.js';

const NS = 'steward-system';

/** The documented value combinations (charts/steward/README.md, "Tested combinations"). */
const CASES: Record<string, string[]> = {
  default: [],
  'watch-namespace': ['--set', 'operator.watchNamespace=team-a'],
  'orchestrator-license': [
    '--set',
    'orchestrator.create=true',
    '--set',
    'license.existingSecret=steward-license',
    '--set',
    'licenseSigningSecret.existingSecret=steward-signing',
    '--set',
    'orchestrator.database.secretRef.name=steward-db',
    '--set',
    'orchestrator.redis.secretRef.name=steward-redis',
  ],
  'community-single': [
    '--set',
    'orchestrator.create=true',
    '--set',
    'orchestrator.communityMode=true',
    '--set',
    'orchestrator.gateway.replicas=1',
    '--set',
    'orchestrator.orchestrator.replicas=1',
    '--set',
    'operator.replicas=1',
  ],
  'service-monitor': [
    '--set',
    'metrics.serviceMonitor.enabled=true',
    '--set',
    'metrics.serviceMonitor.labels.release=prometheus',
  ],
  'network-policy': [
    '--set',
    'networkPolicy.enabled=true',
    '--set-json',
    'networkPolicy.from=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]',
  ],
  'crd-upgrade-off': ['--set', 'crdUpgrade.enabled=false'],
};

/** Kinds the test API server does not serve; their objects are checked by snapshot only. */
const NOT_SERVED = new Set(['ServiceMonitor', 'NetworkPolicy']);

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  [k: string]: unknown;
};

function render(name: string): Promise<string> {
  return helmOk(['template', 'steward', CHART, '-n', NS, ...CASES[name]!]);
}

function objects(manifest: string): Obj[] {
  return parseAllDocuments(manifest)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

describe('charts/steward', () => {
  let cluster: TestCluster;
  let kubectl: Kubectl;

  beforeAll(async () => {
    cluster = await startTestCluster({ crds: join(CHART, 'crds') });
    kubectl = new Kubectl(cluster.kubeconfig);
    for (const ns of [NS, 'team-a']) await kubectl.ok(['create', 'namespace', ns]);
  });
  afterAll(async () => {
    kubectl?.dispose();
    await cluster?.close();
  });

  it('passes helm lint --strict', async () => {
    const r = await helm(['lint', '--strict', CHART]);
    expect(r.stdout + r.stderr).toContain('0 chart(s) failed');
    expect(r.code).toBe(0);
  });

  it('has a values.schema.json with the same keys as values.yaml, level by level', () => {
    const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as Schema;
    const mismatches: string[] = [];
    compareKeys(values, schema, '', mismatches);
    expect(mismatches).toEqual([]);
  });

  for (const name of Object.keys(CASES)) {
    it(`renders "${name}" as in the snapshot, and the API server accepts it`, async () => {
      const manifest = await render(name);
      await expect(manifest).toMatchFileSnapshot(`__snapshots__/${name}.yaml`);
      // NB: not sent: the ServiceMonitor (its CRD, the Prometheus Operator's, is not installed on the test server)
      // and the NetworkPolicy (a kind the test server does not serve).
      const sendable = objects(manifest).filter((o) => !NOT_SERVED.has(o.kind));
      const r = await kubectl.run(['apply', '--dry-run=server', '-f', '-'], {
        stdin: sendable.map((o) => JSON.stringify(o)).join('\n'),
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(sendable.length);
    });
  }

  it('makes the objects each option is about', async () => {
    const kinds = async (name: string) => objects(await render(name)).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(await kinds('default')).toEqual(
      expect.arrayContaining([
        'ClusterRole/steward-operator',
        'ClusterRoleBinding/steward-operator',
        'PodDisruptionBudget/steward-operator',
        'Job/steward-crd-upgrade',
      ]),
    );
    const watched = objects(await render('watch-namespace'));
    expect(watched.map((o) => `${o.kind}/${o.metadata.name}`)).not.toContain('ClusterRoleBinding/steward-operator');
    expect(watched.map((o) => `${o.kind}/${o.metadata.name}`)).not.toContain('ClusterRole/steward-operator');
    expect(watched.find((o) => o.kind === 'Role' && o.metadata.name === 'steward-operator')?.metadata.namespace).toBe(
      'team-a',
    );
    expect(await kinds('orchestrator-license')).toEqual(
      expect.arrayContaining(['Orchestrator/steward', 'License/steward']),
    );
    expect(await kinds('community-single')).not.toContain('PodDisruptionBudget/steward-operator');
    expect(await kinds('service-monitor')).toContain('ServiceMonitor/steward-operator');
    expect(await kinds('network-policy')).toContain('NetworkPolicy/steward-operator');
    expect((await kinds('crd-upgrade-off')).filter((k) => k.includes('crd-upgrade'))).toEqual([]);
  });

  it('points the ServiceMonitor at the port and path the operator serves its metrics on', async () => {
    const all = objects(await render('service-monitor'));
    const find = <T>(kind: string) =>
      all.find((o) => o.kind === kind && o.metadata.name === 'steward-operator') as Obj & T;
    const [endpoint] = find<{ spec: { endpoints: { port: string; path: string }[] } }>('ServiceMonitor').spec.endpoints;
    expect(endpoint!.path).toBe(METRICS_PATH);
    const servicePort = find<{ spec: { ports: { name: string; targetPort: string }[] } }>('Service').spec.ports.find(
      (p) => p.name === endpoint!.port,
    );
    type Container = { ports: { name: string; containerPort: number }[]; env: { name: string; value?: string }[] };
    const [container] = find<{ spec: { template: { spec: { containers: Container[] } } } }>('Deployment').spec.template
      .spec.containers;
    const containerPort = container!.ports.find((p) => p.name === servicePort?.targetPort)?.containerPort;
    expect(containerPort).toBe(8082);
    expect(container!.env.find((e) => e.name === 'STEWARD_PROBE_PORT')?.value).toBe(String(containerPort));
  });

  it('puts every CRD of crds/ into the upgrade hook', async () => {
    const cm = objects(await render('default')).find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name === 'steward-crd-upgrade',
    ) as Obj & { data: Record<string, string> };
    expect(Object.keys(cm.data).sort()).toEqual([
      'agentconfigs.steward.dev.yaml',
      'budgets.steward.dev.yaml',
      'connectors.steward.dev.yaml',
      'licenses.steward.dev.yaml',
      'orchestrators.steward.dev.yaml',
      'policies.steward.dev.yaml',
      'policyexceptions.steward.dev.yaml',
    ]);
    for (const [file, text] of Object.entries(cm.data))
      expect(text).toBe(readFileSync(join(CHART, 'crds', file), 'utf8'));
  });

  it('gives the operator every permission it grants the runtimes (Kubernetes refuses escalation)', async () => {
    for (const name of ['default', 'watch-namespace']) {
      const role = objects(await render(name)).find(
        (o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && o.metadata.name === 'steward-operator',
      ) as Obj & { rules: Rule[] };
      const missing: string[] = [];
      for (const rule of RUNTIME_RULES) {
        for (const group of rule.apiGroups ?? []) {
          for (const resource of rule.resources ?? []) {
            for (const verb of rule.verbs) {
              if (
                !role.rules.some(
                  (r) =>
                    r.apiGroups.includes(group) &&
                    r.resources.includes(resource) &&
                    r.verbs.includes(verb) &&
                    !r.resourceNames,
                )
              )
                missing.push(`${group}/${resource} ${verb}`);
            }
          }
        }
      }
      expect(missing, name).toEqual([]);
    }
  });

  it('gives the operator what its controllers read and write (allControllers: for, owns, watches; status, Events, its Lease)', async () => {
    // NB: the controller specs only keep the context for later; a stub is enough to list their resources.
    const specs = allControllers({ cache: {}, settings: {}, log: { child: () => ({}) } } as never);
    const need: [ResourceRef, string[]][] = [
      ...specs.flatMap((s): [ResourceRef, string[]][] => [
        [s.for, ['get', 'list', 'watch', 'update', 'patch']],
        ...(s.owns ?? []).map((r): [ResourceRef, string[]] => [
          r,
          ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        ]),
        ...(s.watches ?? []).map((w): [ResourceRef, string[]] => [w.resource, ['get', 'list', 'watch']]),
        [{ ...s.for, plural: `${s.for.plural}/status` }, ['update', 'patch']],
      ]),
      [Resources.Event, ['create', 'patch']],
    ];
    for (const name of ['default', 'watch-namespace']) {
      const all = objects(await render(name));
      const role = all.find(
        (o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && o.metadata.name === 'steward-operator',
      ) as Obj & { rules: Rule[] };
      const missing = need.flatMap(([r, verbs]) =>
        verbs
          .filter(
            (v) =>
              !role.rules.some(
                (x) => x.apiGroups.includes(r.group) && x.resources.includes(r.plural) && x.verbs.includes(v),
              ),
          )
          .map((v) => `${r.group}/${r.plural} ${v}`),
      );
      expect(missing, name).toEqual([]);
      // The Lease lives in the release namespace, whatever the operator watches.
      const lease = all.find(
        (o) => o.kind === 'Role' && o.metadata.name === 'steward-operator-leader-election',
      ) as Obj & { rules: Rule[] };
      expect(lease.metadata.namespace).toBe(NS);
      expect(lease.rules).toContainEqual(
        expect.objectContaining({
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: expect.arrayContaining(['get', 'create', 'update']),
        }),
      );
    }
  });

  it.each([
    [['--set', 'operator.replica=2'], "at '/operator': additional properties 'replica' not allowed"],
    [['--set', 'image.tag=1.0 extra'], "at '/image/tag': '1.0 extra' does not match pattern"],
    [
      ['--set', 'operator.resources.limits.memory=lots'],
      "at '/operator/resources/limits/memory': 'lots' does not match pattern",
    ],
    [['--set', 'operator.replicas=0'], "at '/operator/replicas': minimum: got 0, want 1"],
    [['--set', 'image.pullPolicy=Sometimes'], "at '/image/pullPolicy': value must be one of"],
    // Without leader election two operators would both reconcile.
    [['--set', 'operator.leaderElection.enabled=false'], "at '/operator/replicas': maximum: got 2, want 1"],
    // Embedded PGlite is one process's database.
    [['--set', 'orchestrator.create=true'], "at '/orchestrator/gateway/replicas': maximum: got 2, want 1"],
  ])('refuses helm install %j with the schema message', async (args, message) => {
    const r = await helm(['install', 'steward', CHART, '-n', NS, ...args], { kubeconfig: cluster.kubeconfig });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("values don't meet the specifications of the schema");
    expect(r.stderr).toContain(message);
    expect(cluster.store.list('secrets', { namespace: NS, labelSelector: 'owner=helm' }).items).toEqual([]);
  });
});

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
};

/**
 * Every key of values.yaml is a property of the schema and every property of the schema is in values.yaml,
 * recursively, for the objects the schema closes (`additionalProperties: false`); free-form maps (nodeSelector,
 * annotations, orchestrator.llm...) are only checked to be objects.
 */
function compareKeys(value: unknown, schema: Schema, path: string, out: string[]): void {
  if (schema.additionalProperties !== false) {
    if (schema.type === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value)))
      out.push(`${path || '/'}: not an object in values.yaml`);
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.push(`${path || '/'}: the schema has an object, values.yaml has ${JSON.stringify(value)}`);
    return;
  }
  const props = schema.properties ?? {};
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (!(k in props)) out.push(`${path}/${k}: in values.yaml, not in the schema`);
  for (const k of Object.keys(props)) {
    if (k === 'global') continue; // Helm's own, never in values.yaml
    if (!(k in v)) out.push(`${path}/${k}: in the schema, not in values.yaml`);
    else compareKeys(v[k], props[k]!, `${path}/${k}`, out);
  }
}
