/**
 * The generated CRDs and the shipped manifests, applied with the real kubectl to the test API server: the
 * CRDs are accepted and Established, the samples and every file of config/examples pass the CRD schemas with
 * strict field validation, defaults from api/ show up, and kubectl's printer columns (Ready, Reason), short
 * names and `kubectl explain` descriptions work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startTestCluster, type TestCluster } from '../../testing/kube/cluster.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { KINDS } from '../kinds.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const exceptionYaml = (name: string, spec: Record<string, unknown>) =>
  stringify({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'PolicyException',
    metadata: { name },
    spec: { policies: ['builtin-pii'], match: { tenants: ['eu'] }, reason: 'SEC-42', ...spec },
  });
let cluster: TestCluster;
let kubectl: Kubectl;

beforeAll(async () => {
  cluster = await startTestCluster({});
  kubectl = new Kubectl(cluster.kubeconfig);
  await kubectl.ok(['apply', '-f', `${ROOT}crds`]);
  await kubectl.ok([
    'wait',
    '--for=condition=Established',
    '--timeout=10s',
    ...KINDS.map((k) => `crd/${k.plural}.steward.dev`),
  ]);
});
afterAll(async () => {
  kubectl?.dispose();
  await cluster?.close();
});

describe('generated CRDs with the real kubectl', () => {
  it('lists every kind with its short names in the steward category', async () => {
    const out = await kubectl.ok(['api-resources', '--api-group=steward.dev', '-o', 'wide']);
    for (const k of KINDS) {
      expect(out).toContain(k.plural);
      expect(out).toContain(k.shortNames[0]!);
    }
  });

  it('applies the shipped samples, the policy pack and every file of config/examples with strict validation', async () => {
    const out = await kubectl.ok([
      'apply',
      '--validate=strict',
      '-f',
      `${ROOT}config/samples`,
      '-f',
      `${ROOT}config/policies`,
    ]);
    expect(out).toContain('agentconfig.steward.dev/flight-search created');
    expect(out).toContain('policy.steward.dev/builtin-pii created');
    const examples = await kubectl.ok(['apply', '--validate=strict', '-f', `${ROOT}config/examples/`]);
    expect(examples).toContain('license.steward.dev/acme created');
    expect(examples).toContain('orchestrator.steward.dev/steward created');
    expect(examples).toContain('connector.steward.dev/bookings-db created');
  });

  it('refuses the AxonFlow agent sample, which is why it lives outside config/examples', async () => {
    const r = await kubectl.run(['apply', '--validate=false', '-f', `${ROOT}config/axonflow/agent-axonflow.yaml`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no matches for kind "AgentConfig" in version "axonflow.io\/v1"/);
  });

  it('fills the defaults of api/ (AgentConfig timeout 60s, replicas 1)', async () => {
    const out = JSON.parse(await kubectl.ok(['get', 'agentconfig', 'general-assistant', '-o', 'json']));
    expect(out.spec).toMatchObject({ timeout: '60s', replicas: 1 });
  });

  it('shows the printer columns in kubectl get, Ready and Reason from the Ready condition', async () => {
    const before = await kubectl.ok(['get', 'agentconfigs']);
    expect(before.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+DOMAIN\s+REPLICAS\s+HEALTHY\s+READY\s+REASON\s+AGE$/);
    expect(before).toMatch(/flight-search\s+specialist\s+travel\s+2/);
    const status = {
      status: {
        healthyAgents: 1,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ReplicasUnavailable',
            message: '1 of 2 pods available',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    };
    await kubectl.ok([
      'patch',
      'agentconfig',
      'flight-search',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    ]);
    const after = await kubectl.ok(['get', 'agentconfig', 'flight-search']);
    expect(after).toMatch(/flight-search\s+specialist\s+travel\s+2\s+1\s+False\s+ReplicasUnavailable\s+\S+/);
    const wide = await kubectl.ok(['get', 'agentconfig', 'flight-search', '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/MODEL\s+CARD\s+MESSAGE$/);
    expect(wide).toContain('1 of 2 pods available');
  });

  it.each([
    ['orchestrators', /^NAME\s+GATEWAYS\s+POOL-HEALTHY\s+POOL-DESIRED\s+READY\s+REASON\s+AGE$/],
    [
      'policies.steward.dev',
      /^NAME\s+TYPE\s+ACTION\s+MODE\s+VIOLATIONS\(24H\)\s+PRIORITY\s+ENABLED\s+COMPILED\s+READY\s+REASON\s+AGE$/,
    ],
    ['connectors', /^NAME\s+TYPE\s+STATUS\s+READY\s+REASON\s+AGE$/],
    ['licenses', /^NAME\s+ORGANIZATION\s+VALID\s+TIER\s+MAX-NODES\s+EXPIRES\s+READY\s+REASON\s+AGE$/],
  ])('kubectl get %s shows Ready and Reason', async (resource, header) => {
    const out = await kubectl.ok(['get', resource]);
    expect(out.split('\n')[0]).toMatch(header);
  });

  it('applies a PolicyException and shows its policies, expiry and conditions in kubectl get', async () => {
    const ok = exceptionYaml('eu-pii', { expiresAt: '2026-06-01T00:00:00Z' });
    expect(await kubectl.ok(['apply', '--validate=strict', '-f', '-'], { stdin: ok })).toContain(
      'policyexception.steward.dev/eu-pii created',
    );
    const out = await kubectl.ok(['get', 'stwpolex']);
    expect(out.split('\n')[0]).toMatch(/^NAME\s+POLICIES\s+EXPIRES\s+READY\s+EXPIRED\s+REASON\s+AGE$/);
    expect(out).toMatch(/eu-pii\s+\["builtin-pii"\]\s+2026-06-01T00:00:00Z/);
    const spec = JSON.parse(await kubectl.ok(['get', 'policyexception', 'eu-pii', '-o', 'json'])).spec;
    expect(spec.permanent).toBe(false);
  });

  it.each([
    { name: 'an empty match', spec: { match: {} }, error: /spec.match in body should have at least 1 properties/ },
    {
      name: 'an empty match list',
      spec: { match: { tenants: [] } },
      error: /spec.match.tenants in body should have at least 1 items/,
    },
    { name: 'no policies', spec: { policies: [] }, error: /spec.policies in body should have at least 1 items/ },
    { name: 'a blank reason', spec: { reason: '  ' }, error: /spec.reason in body should match/ },
    {
      name: 'a date without a time',
      spec: { expiresAt: '2026-06-01' },
      error: /spec.expiresAt in body must be of type date-time/,
    },
    { name: 'an unknown surface', spec: { match: { surfaces: ['email'] } }, error: /Unsupported value: "email"/ },
  ])('refuses a PolicyException with $name', async ({ spec, error }) => {
    const r = await kubectl.run(['apply', '--validate=strict', '-f', '-'], { stdin: exceptionYaml('bad', spec) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(error);
  });

  it('carries the expiresAt-or-permanent rule as CEL for a real API server (the test server runs no CEL)', async () => {
    const crd = JSON.parse(await kubectl.ok(['get', 'crd', 'policyexceptions.steward.dev', '-o', 'json']));
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec['x-kubernetes-validations']).toEqual([
      expect.objectContaining({ message: 'spec.expiresAt is required unless spec.permanent is true' }),
    ]);
  });

  it.each(KINDS.map((k) => [k.shortNames[0]!, k.plural, k.singular] as const))(
    'the short name %s resolves to %s.steward.dev',
    async (short, _plural, singular) => {
      const out = await kubectl.ok(['get', short, '-o', 'name']);
      expect(out.split('\n')[0]).toMatch(new RegExp(`^${singular}\\.steward\\.dev/`));
    },
  );

  it('lists every kind under the steward category', async () => {
    const all = await kubectl.ok(['get', 'steward']);
    expect(all).toContain('policy.steward.dev/builtin-pii');
    expect(all).toContain('license.steward.dev/acme');
  });

  it('explains AgentConfig spec fields with the descriptions of api/', async () => {
    const spec = await kubectl.ok(['explain', 'agentconfig.spec']);
    expect(spec).toContain('desired state: what the agent serves');
    expect(spec).toContain('what the agent can do, e.g. flight-search or currency-conversion');
    expect(spec).not.toMatch(/<no description>|<empty>/);
    const llm = await kubectl.ok(['explain', 'agentconfig.spec.llm.model']);
    expect(llm).toContain("the provider's model name");
    const ready = await kubectl.ok(['explain', 'stwagent.status.conditions.reason']);
    expect(ready).toContain('machine-readable CamelCase reason');
  });

  it.each(KINDS.map((k) => [k.singular, k.singular]))(
    'kubectl explain %s.spec and %s.status describe every field',
    async (singular) => {
      for (const part of ['spec', 'status']) {
        const out = await kubectl.ok(['explain', `${singular}.${part}`]);
        expect(out, `${singular}.${part}`).not.toMatch(/<no description>|<empty>/);
      }
    },
  );

  it('rejects an AgentConfig with an unknown field and a bad enum like a real API server', async () => {
    const bad =
      'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: bad}\nspec: {type: manager, domain: travel, colour: red}\n';
    const r = await kubectl.run(['apply', '--validate=strict', '-f', '-'], { stdin: bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unknown field "spec.colour"|Unsupported value: "manager"/);
  });
});
