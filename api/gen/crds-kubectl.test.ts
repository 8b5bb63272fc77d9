/**
 * The generated CRDs and the shipped manifests, applied with the real kubectl to the test API server: the
 * CRDs are accepted and Established, the samples pass the CRD schemas with strict field validation, defaults
 * from api/ show up, and kubectl's printer columns and short names work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../testing/kube/cluster.js';
import { Kubectl } from '../../testing/kube/test/kubectl.js';
import { KINDS } from '../kinds.js';

const ROOT = new URL('../../', import.meta.url).pathname;
let cluster: TestCluster;
let kubectl: Kubectl;

beforeAll(async () => {
  cluster = await startTestCluster({});
  kubectl = new Kubectl(cluster.kubeconfig);
  await kubectl.ok(['apply', '-f', `${ROOT}crds`]);
  await kubectl.ok(['wait', '--for=condition=Established', '--timeout=10s', ...KINDS.map((k) => `crd/${k.plural}.steward.dev`)]);
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

  it('applies the shipped samples and examples with strict validation', async () => {
    const out = await kubectl.ok(['apply', '--validate=strict', '-f', `${ROOT}config/samples`, '-f', `${ROOT}config/policies`]);
    expect(out).toContain('agentconfig.steward.dev/flight-search created');
    expect(out).toContain('policy.steward.dev/builtin-pii created');
    await kubectl.ok(['apply', '--validate=strict', '-f', `${ROOT}config/examples/license.yaml`, '-f', `${ROOT}config/examples/orchestrator.yaml`, '-f', `${ROOT}config/examples/connector.yaml`]);
  });

  it('fills the defaults of api/ (AgentConfig timeout 60s, replicas 1)', async () => {
    const out = JSON.parse(await kubectl.ok(['get', 'agentconfig', 'general-assistant', '-o', 'json']));
    expect(out.spec).toMatchObject({ timeout: '60s', replicas: 1 });
  });

  it('shows the printer columns in kubectl get', async () => {
    const out = await kubectl.ok(['get', 'ac']);
    expect(out.split('\n')[0]).toMatch(/NAME\s+TYPE\s+DOMAIN\s+REPLICAS\s+HEALTHY\s+READY\s+AGE/);
    expect(out).toMatch(/flight-search\s+specialist\s+travel\s+2/);
    const all = await kubectl.ok(['get', 'steward']);
    expect(all).toContain('policy.steward.dev/builtin-pii');
  });

  it('rejects an AgentConfig with an unknown field and a bad enum like a real API server', async () => {
    const bad = 'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: bad}\nspec: {type: manager, domain: travel, colour: red}\n';
    const r = await kubectl.run(['apply', '--validate=strict', '-f', '-'], { stdin: bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unknown field "spec.colour"|Unsupported value: "manager"/);
  });
});
