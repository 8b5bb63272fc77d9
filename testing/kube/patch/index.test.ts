import { describe, expect, it } from 'vitest';
import { PatchError, applyPatch, patchExtensions, type ApplyPatchOptions } from './index.js';

type Doc = Record<string, unknown>;

const NOW = () => new Date('2024-05-01T10:00:00Z');
const DEPLOY = { group: 'apps', version: 'v1', kind: 'Deployment', builtin: true };
const POLICY = { group: 'steward.dev', version: 'v1alpha1', kind: 'Policy', builtin: false };

const deployment: Doc = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', resourceVersion: '7', generation: 1 },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
  status: { replicas: 1 },
};

const policy: Doc = {
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Policy',
  metadata: { name: 'p', namespace: 'default', resourceVersion: '3', generation: 1 },
  spec: { priority: 1, enabled: true },
  status: { observedGeneration: 1 },
};

function run(o: Partial<ApplyPatchOptions> & Pick<ApplyPatchOptions, 'patchType' | 'patch'>) {
  return applyPatch({ current: deployment, kind: DEPLOY, fieldManager: 'kubectl-patch', now: NOW, ...o });
}

function thrown(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('expected a PatchError');
}

describe('applyPatch dispatch', () => {
  it.each([
    {
      name: 'applies a merge patch given as text',
      patchType: 'application/merge-patch+json',
      patch: '{"spec":{"replicas":3}}',
    },
    {
      name: 'applies a JSON patch given as bytes',
      patchType: 'application/json-patch+json',
      patch: Buffer.from('[{"op":"replace","path":"/spec/replicas","value":3}]'),
    },
    {
      name: 'applies a strategic merge patch',
      patchType: 'application/strategic-merge-patch+json',
      patch: { spec: { replicas: 3 } },
    },
    {
      name: 'ignores content type parameters',
      patchType: 'application/merge-patch+json; charset=utf-8',
      patch: { spec: { replicas: 3 } },
    },
  ])('$name', ({ patchType, patch }) => {
    const r = run({ patchType, patch });
    expect((r.object.spec as Doc).replicas).toBe(3);
    expect(r.created).toBe(false);
    expect(r.managedFields).toEqual([
      {
        manager: 'kubectl-patch',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ]);
    expect((deployment.spec as Doc).replicas).toBe(1);
  });

  it('names the manager of a patch without fieldManager after the user agent', () => {
    const r = run({
      patchType: 'application/merge-patch+json',
      patch: { spec: { replicas: 2 } },
      fieldManager: undefined,
      userAgent: 'kubectl/v1.32.0 (linux/amd64)',
    });
    expect(r.managedFields[0]!.manager).toBe('kubectl');
  });

  it('keeps the status of the main resource and the spec of the status subresource', () => {
    const main = run({
      patchType: 'application/merge-patch+json',
      patch: { spec: { replicas: 2 }, status: { replicas: 9 } },
    });
    expect(main.object.status).toEqual({ replicas: 1 });
    const sub = run({
      patchType: 'application/merge-patch+json',
      subresource: 'status',
      patch: { spec: { replicas: 2 }, status: { replicas: 9 } },
    });
    expect(sub.object.spec).toEqual(deployment.spec);
    expect(sub.object.status).toEqual({ replicas: 9 });
    expect(sub.managedFields[0]).toMatchObject({
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:replicas': {} } },
    });
  });

  it('lets custom resources without a status subresource patch status like any field', () => {
    const r = applyPatch({
      patchType: 'application/merge-patch+json',
      current: policy,
      patch: { status: { x: 1 } },
      kind: POLICY,
      fieldManager: 'm',
      now: NOW,
    });
    expect(r.object.status).toEqual({ observedGeneration: 1, x: 1 });
  });

  it('keeps a resourceVersion the patch sets, for the storage layer to check', () => {
    const r = run({
      patchType: 'application/merge-patch+json',
      patch: { metadata: { resourceVersion: '6' }, spec: { replicas: 2 } },
    });
    expect((r.object.metadata as Doc).resourceVersion).toBe('6');
  });

  it('creates a custom resource on apply and reports it created', () => {
    const body =
      'apiVersion: steward.dev/v1alpha1\nkind: Policy\nmetadata:\n  name: p\nspec:\n  priority: 2\n  enabled: yes\n';
    const r = applyPatch({
      patchType: 'application/apply-patch+yaml',
      current: null,
      isCreate: true,
      patch: body,
      kind: POLICY,
      fieldManager: 'kubectl',
      now: NOW,
    });
    expect(r.created).toBe(true);
    expect(r.object.spec).toEqual({ priority: 2, enabled: true });
  });
});

describe('applyPatch refusals', () => {
  it.each<{
    name: string;
    o: Partial<ApplyPatchOptions> & Pick<ApplyPatchOptions, 'patchType' | 'patch'>;
    status: number;
    reason: string;
    message: string;
  }>([
    {
      name: 'refuses strategic merge patch for custom resources with the apiserver 415',
      o: { patchType: 'application/strategic-merge-patch+json', patch: {}, kind: POLICY, current: policy },
      status: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    },
    {
      name: 'refuses an unknown patch type listing what built-in kinds accept',
      o: { patchType: 'application/json', patch: {} },
      status: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    },
    {
      name: 'refuses force on a non-apply patch',
      o: { patchType: 'application/merge-patch+json', patch: {}, force: false },
      status: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    },
    {
      name: 'refuses an apply without fieldManager',
      o: { patchType: 'application/apply-patch+yaml', patch: {}, fieldManager: undefined },
      status: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    },
    {
      name: 'refuses a fieldManager longer than 128 bytes',
      o: { patchType: 'application/merge-patch+json', patch: {}, fieldManager: 'x'.repeat(129) },
      status: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    },
    {
      name: 'refuses a merge patch that is not JSON',
      o: { patchType: 'application/merge-patch+json', patch: '{oops' },
      status: 400,
      reason: 'BadRequest',
      message: 'Invalid JSON Patch',
    },
    {
      name: 'refuses a JSON patch that is not JSON with the decoder error',
      o: { patchType: 'application/json-patch+json', patch: 'nope' },
      status: 400,
      reason: 'BadRequest',
      message: "invalid character 'n' looking for beginning of value",
    },
    {
      name: 'refuses an apply body that is not YAML',
      o: { patchType: 'application/apply-patch+yaml', patch: 'a: [1', fieldManager: 'kubectl' },
      status: 400,
      reason: 'BadRequest',
      message: expect.stringMatching(/^error decoding YAML: /) as unknown as string,
    },
    {
      name: 'refuses an apply body that is a YAML list',
      o: { patchType: 'application/apply-patch+yaml', patch: '- a\n', fieldManager: 'kubectl' },
      status: 400,
      reason: 'BadRequest',
      message:
        'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      name: 'refuses a patch nested deeper than 1000 levels',
      o: { patchType: 'application/merge-patch+json', patch: `${'{"a":'.repeat(1001)}1${'}'.repeat(1001)}` },
      status: 400,
      reason: 'BadRequest',
      message: 'the patch nests deeper than 1000 levels',
    },
    {
      name: 'refuses a non-apply patch of an object that does not exist',
      o: { patchType: 'application/merge-patch+json', patch: {}, current: null },
      status: 404,
      reason: 'NotFound',
      message: 'the Deployment to patch does not exist',
    },
    {
      name: 'refuses a JSON patch that turns the object into a list',
      o: { patchType: 'application/json-patch+json', patch: [{ op: 'replace', path: '', value: [1] }] },
      status: 422,
      reason: 'Invalid',
      message:
        ' "" is invalid: patch: Invalid value: "[1]": json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
  ])('$name', ({ o, status, reason, message }) => {
    const err = thrown(() => run(o));
    expect(err.status).toBe(status);
    expect(err.reason).toBe(reason);
    expect(err.message).toEqual(message);
  });
});

describe('patchExtensions', () => {
  it('publishes the merge keys and list types kubectl needs for a Deployment', () => {
    const ext = patchExtensions('apps', 'Deployment');
    expect(ext.get('spec.template.spec.containers')).toEqual({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(ext.get('spec.template.spec.containers[].ports')).toMatchObject({
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
    });
    expect(ext.get('spec.template.spec.volumes')).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge,retainKeys' });
    expect(ext.get('spec.strategy')).toEqual({ 'x-kubernetes-patch-strategy': 'retainKeys' });
    expect(ext.get('spec.selector')).toEqual({ 'x-kubernetes-map-type': 'atomic' });
    expect(ext.get('metadata.finalizers')).toEqual({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-list-type': 'set',
    });
  });

  it('publishes nothing for kinds it does not describe', () => {
    expect(patchExtensions('example.com', 'Widget').size).toBe(0);
  });
});
