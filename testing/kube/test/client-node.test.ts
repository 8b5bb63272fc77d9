/**
 * @kubernetes/client-node against the test API server: CRUD, optimistic concurrency, the patch types and
 * server-side apply, as an operator written with client-node would use them. (Informers are covered by
 * the server's own suite.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import { loadClientNode } from './client-node.js';

type ClientNode = Awaited<ReturnType<typeof loadClientNode>>;
type Doc = Record<string, unknown>;

interface Obj {
  metadata: {
    name: string;
    uid?: string;
    generation?: number;
    managedFields?: { manager: string; operation: string; subresource?: string }[];
  };
  spec?: Doc;
  status?: Doc;
}

interface StatusBody {
  reason?: string;
  message?: string;
  details?: { causes?: unknown[] };
}

const GROUP = 'patch.steward.dev';
const VERSION = 'v1';
const PLURAL = 'gadgets';
const NS = 'default';

const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: PLURAL, singular: 'gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: VERSION,
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
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  tags: { type: 'array', items: { type: 'string' } },
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

const gadget = (name: string, spec: Doc) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'Gadget',
  metadata: { name, namespace: NS },
  spec,
});

const kube = useTestCluster({ crds: [GADGET_CRD], client: false });
let k8s: ClientNode;
let custom: InstanceType<ClientNode['CustomObjectsApi']>;
let core: InstanceType<ClientNode['CoreV1Api']>;
let objects: InstanceType<ClientNode['KubernetesObjectApi']>;

beforeAll(async () => {
  k8s = await loadClientNode();
  const kc = new k8s.KubeConfig();
  kc.loadFromString(kube.cluster.kubeconfigYaml);
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
  core = kc.makeApiClient(k8s.CoreV1Api);
  objects = k8s.KubernetesObjectApi.makeApiClient(kc);
});

/** The options that make client-node send a given patch Content-Type. */
const as = (type: string) => k8s.setHeaderOptions('Content-Type', type);

/** The ApiException a call fails with, with its Status body decoded. */
async function failure(p: Promise<unknown>): Promise<{ code: number; status: StatusBody }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof k8s.ApiException) {
      const body = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as StatusBody;
      return { code: err.code, status: body };
    }
    throw err;
  }
  throw new Error('expected the call to fail');
}

function createGadget(name: string, spec: Doc): Promise<Obj> {
  return custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace: NS,
    plural: PLURAL,
    body: gadget(name, spec),
  });
}

function getGadget(name: string): Promise<Obj> {
  return custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name });
}

function patchGadget(name: string, body: unknown, type: string, extra: Doc = {}): Promise<Obj> {
  return custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name, body, ...extra },
    as(type),
  );
}

describe('client-node CRUD', () => {
  it('creates, reads, lists, replaces and deletes a custom resource', async () => {
    const created = await createGadget('c1', { size: 1 });
    expect(created.metadata.uid).toBeTruthy();
    expect((await getGadget('c1')).spec).toEqual({ size: 1 });

    const list = await custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NS,
      plural: PLURAL,
    });
    expect((list.items as Obj[]).map((i) => i.metadata.name)).toEqual(['c1']);

    const replaced: Obj = await custom.replaceNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NS,
      plural: PLURAL,
      name: 'c1',
      body: { ...created, spec: { size: 2 } },
    });
    expect(replaced.spec).toEqual({ size: 2 });
    expect(replaced.metadata.generation).toBe(2);

    await custom.deleteNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NS,
      plural: PLURAL,
      name: 'c1',
    });
    const gone = await failure(getGadget('c1'));
    expect([gone.code, gone.status.reason]).toEqual([404, 'NotFound']);
  });

  it('creates, updates and deletes a ConfigMap through the typed API', async () => {
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'cm1' }, data: { a: '1' } } });
    const cm = await core.readNamespacedConfigMap({ name: 'cm1', namespace: NS });
    cm.data = { a: '2' };
    const updated = await core.replaceNamespacedConfigMap({ name: 'cm1', namespace: NS, body: cm });
    expect(updated.data).toEqual({ a: '2' });
    await core.deleteNamespacedConfigMap({ name: 'cm1', namespace: NS });
    expect((await failure(core.readNamespacedConfigMap({ name: 'cm1', namespace: NS }))).code).toBe(404);
  });

  it('refuses a replace carrying a stale resourceVersion with 409', async () => {
    const created = await createGadget('c2', { size: 1 });
    await patchGadget('c2', { spec: { size: 2 } }, k8s.PatchStrategy.MergePatch);
    const stale = await failure(
      custom.replaceNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: NS,
        plural: PLURAL,
        name: 'c2',
        body: { ...created, spec: { size: 3 } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ${PLURAL}.${GROUP} "c2": the object has been modified; please apply your changes to the latest version and try again`,
    });
    expect((await getGadget('c2')).spec).toEqual({ size: 2 });
  });
});

describe('client-node patches', () => {
  it('merge-patches a custom resource, deleting a key with null', async () => {
    await createGadget('p1', { size: 1, labels: { a: 'x', b: 'y' } });
    const out = await patchGadget('p1', { spec: { labels: { a: null, c: 'z' } } }, k8s.PatchStrategy.MergePatch, {
      fieldManager: 'tester',
    });
    expect(out.spec).toEqual({ size: 1, labels: { b: 'y', c: 'z' } });
    expect(out.metadata.managedFields?.map((m) => m.manager)).toContain('tester');
  });

  it('JSON-patches a custom resource and answers 422 when a test operation fails', async () => {
    await createGadget('p2', { size: 1, tags: ['a'] });
    const out = await patchGadget(
      'p2',
      [
        { op: 'add', path: '/spec/tags/-', value: 'b' },
        { op: 'replace', path: '/spec/size', value: 4 },
      ],
      k8s.PatchStrategy.JsonPatch,
    );
    expect(out.spec).toEqual({ size: 4, tags: ['a', 'b'] });
    const failed = await failure(
      patchGadget('p2', [{ op: 'test', path: '/spec/size', value: 1 }], k8s.PatchStrategy.JsonPatch),
    );
    expect([failed.code, failed.status.reason, failed.status.message]).toEqual([
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    ]);
  });

  it('refuses a strategic merge patch of a custom resource with 415 and accepts it for a ConfigMap', async () => {
    await createGadget('p3', { size: 1 });
    const refused = await failure(patchGadget('p3', { spec: { size: 2 } }, k8s.PatchStrategy.StrategicMergePatch));
    expect([refused.code, refused.status.reason]).toEqual([415, 'UnsupportedMediaType']);

    await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'cm2', finalizers: ['a/x'] }, data: { a: '1' } },
    });
    const cm = await core.patchNamespacedConfigMap(
      { name: 'cm2', namespace: NS, body: { metadata: { finalizers: ['b/y'] }, data: { b: '2' } } },
      as(k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(cm.data).toEqual({ a: '1', b: '2' });
    expect(cm.metadata?.finalizers).toEqual(['b/y', 'a/x']);
  });

  it('applies server-side, creating the object, and reports conflicts until forced', async () => {
    const first = await objects.patch(
      gadget('p4', { size: 1 }),
      undefined,
      undefined,
      'team-a',
      false,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect((first as Obj).spec).toEqual({ size: 1 });
    const conflict = await failure(
      objects.patch(
        gadget('p4', { size: 2 }),
        undefined,
        undefined,
        'team-b',
        false,
        k8s.PatchStrategy.ServerSideApply,
      ),
    );
    expect(conflict.code).toBe(409);
    expect(conflict.status.message).toBe('Apply failed with 1 conflict: conflict with "team-a": .spec.size');
    expect(conflict.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "team-a"', field: '.spec.size' },
    ]);
    const forced = (await objects.patch(
      gadget('p4', { size: 2 }),
      undefined,
      undefined,
      'team-b',
      true,
      k8s.PatchStrategy.ServerSideApply,
    )) as Obj;
    expect(forced.spec).toEqual({ size: 2 });
    expect(forced.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['team-b', 'Apply']]);
  });

  it('patches the status subresource without touching spec or generation', async () => {
    await createGadget('p5', { size: 1 });
    const out: Obj = await custom.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        namespace: NS,
        plural: PLURAL,
        name: 'p5',
        body: { spec: { size: 9 }, status: { phase: 'Ready' } },
        fieldManager: 'operator',
      },
      as(k8s.PatchStrategy.MergePatch),
    );
    expect(out.status).toEqual({ phase: 'Ready' });
    expect(out.spec).toEqual({ size: 1 });
    expect(out.metadata.generation).toBe(1);
    expect(out.metadata.managedFields?.find((m) => m.manager === 'operator')).toMatchObject({
      operation: 'Update',
      subresource: 'status',
    });
  });
});
