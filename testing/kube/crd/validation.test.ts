import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import { ApiError } from '../status-errors.js';
import { CRD_DIR, widget } from '../test/fixtures.js';

const kube = useTestCluster({ crds: CRD_DIR, client: false, resetBeforeEach: false });

function createError(spec: Record<string, unknown>): ApiError {
  try {
    kube.cluster.store.create('widgets.example.com', widget(`w-${Math.random().toString(36).slice(2, 8)}`, spec));
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the create to fail');
}

describe('structural schema validation of custom resources', () => {
  it.each([
    {
      name: 'a wrong type',
      spec: { size: 'small', replicas: 'three' },
      message: 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    },
    {
      name: 'a value outside the enum',
      spec: { size: 'huge' },
      message: 'spec.size: Unsupported value: "huge": supported values: "small", "medium", "large"',
    },
    { name: 'a missing required field', spec: { color: 'red' }, message: 'spec.size: Required value' },
    {
      name: 'a number above maximum',
      spec: { size: 'small', replicas: 11 },
      message: 'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    },
    {
      name: 'a number below minimum',
      spec: { size: 'small', replicas: -1 },
      message: 'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    },
    {
      name: 'a pattern mismatch',
      spec: { size: 'small', color: 'Red' },
      message: 'spec.color: Invalid value: "Red": spec.color in body should match \'^[a-z]+$\'',
    },
    {
      name: 'a string over maxLength',
      spec: { size: 'small', color: 'abcdefghijk' },
      message: 'spec.color: Too long: may not be longer than 10',
    },
    {
      name: 'a bad format',
      spec: { size: 'small', endpoint: 'not a uri' },
      message: 'spec.endpoint: Invalid value: "not a uri": spec.endpoint in body must be of type uri: "not a uri"',
    },
    {
      name: 'a boolean for int-or-string',
      spec: { size: 'small', port: true },
      message: 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    },
    {
      name: 'too many items',
      spec: { size: 'small', tags: ['a', 'b', 'c', 'd'] },
      message: 'spec.tags: Too many: 4: must have at most 3 items',
    },
    {
      name: 'a duplicate in a set list',
      spec: { size: 'small', tags: ['a', 'a'] },
      message: 'spec.tags[1]: Duplicate value: "a"',
    },
    {
      name: 'an embedded resource without kind',
      spec: { size: 'small', template: { apiVersion: 'v1', metadata: {} } },
      message: 'spec.template.kind: Required value: must not be empty',
    },
  ])('rejects $name with the real message', ({ spec, message }) => {
    const e = createError(spec);
    expect(e.status.code).toBe(422);
    expect(e.status.reason).toBe('Invalid');
    expect(e.status.message).toMatch(/^Widget\.example\.com "w-[a-z0-9]+" is invalid: /);
    expect(e.status.message).toContain(message);
  });

  it('accepts int-or-string values of both kinds and preserves unknown fields where the schema says so', () => {
    const a = kube.cluster.store.create(
      'widgets.example.com',
      widget('ios-a', { size: 'small', port: 8080, extra: { anything: { goes: [1] } } }),
    );
    const b = kube.cluster.store.create('widgets.example.com', widget('ios-b', { size: 'small', port: 'http' }));
    expect((a.spec as { extra: unknown }).extra).toEqual({ anything: { goes: [1] } });
    expect((b.spec as { port: unknown }).port).toBe('http');
  });

  it('applies defaults top-down, including inside defaulted-by-user objects', () => {
    const w = kube.cluster.store.create('widgets.example.com', widget('defaults', { size: 'medium', settings: {} }));
    expect(w.spec).toMatchObject({ replicas: 1, settings: { enabled: true, mode: 'auto' } });
  });

  it('prunes unknown fields: Strict rejects, Warn warns, Ignore drops silently', () => {
    const body = widget('pruned', { size: 'small', bogus: 1 }, { bogusMeta: 2 });
    expect(() => kube.cluster.store.create('widgets.example.com', body)).toThrow(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "metadata.bogusMeta", unknown field "spec.bogus"',
    );
    const created = kube.cluster.store.create('widgets.example.com', body, { fieldValidation: 'Ignore' });
    expect(created.spec).toEqual({ size: 'small', replicas: 1 });
    expect(created.metadata).not.toHaveProperty('bogusMeta');
  });

  it('validates the whole object on a status write', () => {
    const w = kube.cluster.store.create('widgets.example.com', widget('status-check'));
    expect(() => kube.cluster.store.updateStatus('widgets.example.com', { ...w, status: { replicas: 'x' } })).toThrow(
      'status.replicas: Invalid value: "string": status.replicas in body must be of type integer: "string"',
    );
  });
});

describe('CRD validation', () => {
  it('rejects a CRD whose name is not plural.group and one without a schema', () => {
    try {
      kube.cluster.store.create('customresourcedefinitions.apiextensions.k8s.io', {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'wrong.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'things', kind: 'Thing' },
          versions: [{ name: 'v1', served: true, storage: true }],
        },
      });
      expect.unreachable();
    } catch (e) {
      const s = (e as ApiError).status;
      expect(s.code).toBe(422);
      expect(s.message).toContain(
        'metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group',
      );
      expect(s.message).toContain('spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required');
    }
  });
});
