/**
 * kubectl apply/patch/replace conformance: the real kubectl against the test API server. Each test gets
 * a fresh kubectl HOME; every kubectl run's -v=8 trace is printed when a test fails.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { useTestCluster } from '../fixture.js';
import { Kubectl, type KubectlResult } from './kubectl.js';

const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.patch.steward.dev' },
  spec: {
    group: 'patch.steward.dev',
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  color: { type: 'string', default: 'blue' },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: { type: 'string' }, port: { type: 'integer' } },
                    },
                  },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

function gadget(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'patch.steward.dev/v1', kind: 'Gadget', metadata: { name }, spec });
}

function deployment(containers: { name: string; image: string }[]): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
    },
  });
}

const kube = useTestCluster({ crds: [GADGET_CRD], client: false });

/** A kubectl with its own HOME whose every run is kept and printed if the test fails. */
function session(ctx: TestContext) {
  const k = new Kubectl(kube.cluster.kubeconfig);
  const runs: { args: string[]; r: KubectlResult }[] = [];
  ctx.onTestFailed(() => {
    for (const { args, r } of runs) {
      console.log(`$ kubectl ${args.join(' ')}  (exit ${r.code})\n${r.stdout}\n${r.stderr}\n--- -v=8 ---\n${r.trace}`);
    }
  });
  ctx.onTestFinished(() => k.dispose());
  const run = async (...args: string[]): Promise<KubectlResult> => {
    const r = await k.run(args);
    runs.push({ args, r });
    return r;
  };
  const file = (name: string, text: string): string => {
    const p = join(k.home, name);
    writeFileSync(p, text);
    return p;
  };
  const json = async (...args: string[]): Promise<Record<string, unknown>> => {
    const r = await run(...args, '-o', 'json');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  return { run, file, json };
}

const patches = () => kube.cluster.requests.count({ verb: 'patch' });

describe('kubectl apply', () => {
  it('creates a custom resource, leaves it unchanged without a PATCH, and configures a spec edit', async (ctx) => {
    const k = session(ctx);
    const f = k.file('g.json', gadget('g1', { size: 1 }));

    const created = await k.run('apply', '-f', f);
    expect([created.code, created.stdout.trim()]).toEqual([0, 'gadget.patch.steward.dev/g1 created']);

    const before = patches();
    const again = await k.run('apply', '-f', f);
    expect([again.code, again.stdout.trim()]).toEqual([0, 'gadget.patch.steward.dev/g1 unchanged']);
    expect(patches()).toBe(before);

    k.file('g.json', gadget('g1', { size: 2 }));
    const edited = await k.run('apply', '-f', f);
    expect([edited.code, edited.stdout.trim()]).toEqual([0, 'gadget.patch.steward.dev/g1 configured']);
    expect(patches()).toBe(before + 1);

    const live = await k.json('get', 'gadget', 'g1');
    expect((live.metadata as Record<string, unknown>).generation).toBe(2);
    expect(live.spec).toEqual({ size: 2, color: 'blue' });
  });

  it('applies server-side, and a second field manager conflicts until it forces', async (ctx) => {
    const k = session(ctx);
    const f = k.file('g.json', gadget('g2', { size: 1, ports: [{ name: 'http', port: 80 }] }));
    const first = await k.run('apply', '--server-side', '-f', f);
    expect([first.code, first.stdout.trim()]).toEqual([0, 'gadget.patch.steward.dev/g2 serverside-applied']);

    const live = await k.json('get', 'gadget', 'g2', '--show-managed-fields');
    const managed = (live.metadata as { managedFields: { manager: string; operation: string; fieldsV1: unknown }[] })
      .managedFields;
    expect(managed.map((m) => [m.manager, m.operation])).toEqual([['kubectl', 'Apply']]);
    expect(managed[0]!.fieldsV1).toEqual({
      'f:spec': { 'f:size': {}, 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    });

    const g = k.file('other.json', gadget('g2', { size: 5 }));
    const refused = await k.run('apply', '--server-side', '--field-manager=other', '-f', g);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.size');
    expect(refused.trace).toContain('Response Status: 409 Conflict');

    const forced = await k.run('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', g);
    expect([forced.code, forced.stdout.trim()]).toEqual([0, 'gadget.patch.steward.dev/g2 serverside-applied']);
    const after = await k.json('get', 'gadget', 'g2', '--show-managed-fields');
    expect(after.spec).toEqual({ size: 5, color: 'blue', ports: [{ name: 'http', port: 80 }] });
    const owners = (after.metadata as { managedFields: { manager: string; fieldsV1: unknown }[] }).managedFields;
    expect(owners.find((m) => m.manager === 'other')?.fieldsV1).toEqual({ 'f:spec': { 'f:size': {} } });

    // The first applier drops its port: it was the only owner, so the port goes.
    k.file('g.json', gadget('g2', { size: 5 }));
    expect((await k.run('apply', '--server-side', '-f', f)).code).toBe(0);
    expect((await k.json('get', 'gadget', 'g2')).spec).toEqual({ size: 5, color: 'blue' });
  });

  it('re-applies a Deployment with an added container and a changed image, then drops the container', async (ctx) => {
    const k = session(ctx);
    const f = k.file('d.json', deployment([{ name: 'app', image: 'nginx:1.25' }]));
    expect((await k.run('apply', '-f', f)).stdout.trim()).toBe('deployment.apps/web created');

    k.file(
      'd.json',
      deployment([
        { name: 'app', image: 'nginx:1.27' },
        { name: 'sidecar', image: 'busybox:1.36' },
      ]),
    );
    const changed = await k.run('apply', '-f', f);
    expect([changed.code, changed.stdout.trim()]).toEqual([0, 'deployment.apps/web configured']);
    expect(changed.trace).toContain('application/strategic-merge-patch+json');
    const containers = async (): Promise<string[][]> => {
      const d = (await k.json('get', 'deployment', 'web')) as {
        spec: { template: { spec: { containers: { name: string; image: string }[] } } };
      };
      return d.spec.template.spec.containers.map((c) => [c.name, c.image]);
    };
    expect(await containers()).toEqual([
      ['app', 'nginx:1.27'],
      ['sidecar', 'busybox:1.36'],
    ]);

    k.file('d.json', deployment([{ name: 'app', image: 'nginx:1.27' }]));
    expect((await k.run('apply', '-f', f)).code).toBe(0);
    expect(await containers()).toEqual([['app', 'nginx:1.27']]);
  });
});

describe('kubectl patch and replace', () => {
  it('patches status with a merge patch and leaves generation and spec alone', async (ctx) => {
    const k = session(ctx);
    expect((await k.run('apply', '-f', k.file('g.json', gadget('g3', { size: 1 })))).code).toBe(0);
    const patched = await k.run(
      'patch',
      'gadget',
      'g3',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Ready"}}',
    );
    expect([patched.code, patched.stdout.trim()]).toEqual([0, 'gadget.patch.steward.dev/g3 patched']);
    expect(patched.trace).toMatch(
      /PATCH http:\/\/127\.0\.0\.1:\d+\/apis\/patch\.steward\.dev\/v1\/namespaces\/default\/gadgets\/g3\/status/,
    );
    const live = await k.json('get', 'gadget', 'g3');
    expect((live.metadata as Record<string, unknown>).generation).toBe(1);
    expect(live.status).toEqual({ phase: 'Ready' });
    expect(live.spec).toEqual({ size: 1, color: 'blue' });
  });

  it('refuses a strategic merge patch of a custom resource with 415', async (ctx) => {
    const k = session(ctx);
    expect((await k.run('apply', '-f', k.file('g.json', gadget('g5', { size: 1 })))).code).toBe(0);
    const r = await k.run('patch', 'gadget', 'g5', '-p', '{"spec":{"size":2}}');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('applies a JSON patch guarded by a test of the resourceVersion', async (ctx) => {
    const k = session(ctx);
    expect((await k.run('apply', '-f', k.file('g.json', gadget('g6', { size: 1 })))).code).toBe(0);
    const rv = ((await k.json('get', 'gadget', 'g6')).metadata as Record<string, unknown>).resourceVersion as string;
    const ops = (v: string) =>
      JSON.stringify([
        { op: 'test', path: '/metadata/resourceVersion', value: v },
        { op: 'replace', path: '/spec/size', value: 7 },
      ]);
    expect((await k.run('patch', 'gadget', 'g6', '--type=json', '-p', ops(rv))).code).toBe(0);
    const stale = await k.run('patch', 'gadget', 'g6', '--type=json', '-p', ops(rv));
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain('the server rejected our request due to an error in our request');
    expect(((await k.json('get', 'gadget', 'g6')).spec as Record<string, unknown>).size).toBe(7);
  });

  it('rejects a stale kubectl replace with 409', async (ctx) => {
    const k = session(ctx);
    expect((await k.run('apply', '-f', k.file('g.json', gadget('g4', { size: 1 })))).code).toBe(0);
    const snapshot = await k.run('get', 'gadget', 'g4', '-o', 'yaml');
    const old = k.file('old.yaml', snapshot.stdout.replace('size: 1', 'size: 9'));
    expect((await k.run('patch', 'gadget', 'g4', '--type=merge', '-p', '{"spec":{"size":2}}')).code).toBe(0);

    const r = await k.run('replace', '-f', old);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'Operation cannot be fulfilled on gadgets.patch.steward.dev "g4": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(r.trace).toContain('Response Status: 409 Conflict');
    expect(((await k.json('get', 'gadget', 'g4')).spec as Record<string, unknown>).size).toBe(2);
  });
});
