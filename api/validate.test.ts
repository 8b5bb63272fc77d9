import { describe, expect, it } from 'vitest';
import { validateManifest } from './validate.js';

const agent = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'AgentConfig',
  metadata: { name: 'flight-search' },
  spec: { type: 'specialist', domain: 'travel', llm: { provider: 'openai', model: 'gpt-4o' }, ...spec },
  ...extra,
});

describe('validateManifest', () => {
  it('accepts a specialist with an llm and applies the 60s default timeout', () => {
    const r = validateManifest(agent({}));
    expect(r).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(r.resource?.spec).toMatchObject({ timeout: '60s', replicas: 1, capabilities: [], description: '' });
  });

  it('rejects a specialist without spec.llm, naming spec.llm', () => {
    const r = validateManifest(agent({ llm: undefined }));
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([{ field: 'spec.llm', message: expect.stringContaining('required for specialist') }]);
  });

  it('accepts a coordinator without an llm', () => {
    expect(validateManifest(agent({ type: 'coordinator', llm: undefined })).valid).toBe(true);
  });

  it('maps metadata.domain to spec.domain with a warning', () => {
    const doc = agent({ domain: undefined }, { metadata: { name: 'x', domain: 'finance' } });
    const r = validateManifest(doc);
    expect(r.valid).toBe(true);
    expect(r.resource?.spec).toMatchObject({ domain: 'finance' });
    expect(r.resource?.metadata).not.toHaveProperty('domain');
    expect(r.warnings.map((w) => w.field)).toEqual(['metadata.domain']);
  });

  it('rejects metadata.domain that contradicts spec.domain', () => {
    const r = validateManifest(agent({ domain: 'travel' }, { metadata: { name: 'x', domain: 'finance' } }));
    expect(r.errors[0]?.field).toBe('metadata.domain');
  });

  it('accepts the reference product apiVersion for AgentConfig with a warning naming the Steward apiVersion', () => {
    const r = validateManifest(agent({}, { apiVersion: 'axonflow.io/v1' }));
    expect(r.valid).toBe(true);
    expect(r.resource?.apiVersion).toBe('steward.dev/v1alpha1');
    expect(r.warnings[0]?.message).toContain('steward.dev/v1alpha1');
  });

  it.each([
    { name: 'a non-object document', doc: 'text', field: '(root)' },
    { name: 'a missing kind', doc: { apiVersion: 'steward.dev/v1alpha1' }, field: 'kind' },
    { name: 'an unknown kind', doc: { apiVersion: 'steward.dev/v1alpha1', kind: 'Gadget' }, field: 'kind' },
    { name: 'a wrong apiVersion', doc: agent({}, { apiVersion: 'steward.dev/v2' }), field: 'apiVersion' },
    { name: 'an unknown spec field', doc: agent({ colour: 'red' }), field: 'spec.colour' },
    { name: 'a bad type enum', doc: agent({ type: 'manager' }), field: 'spec.type' },
    { name: 'a bad timeout', doc: agent({ timeout: 'forever' }), field: 'spec.timeout' },
    { name: 'an upper-case name', doc: agent({}, { metadata: { name: 'Flight' } }), field: 'metadata.name' },
    { name: 'a negative replica count', doc: agent({ replicas: -1 }), field: 'spec.replicas' },
    {
      name: 'an unknown llm provider',
      doc: agent({ llm: { provider: 'acme', model: 'm' } }),
      field: 'spec.llm.provider',
    },
  ])('rejects $name at $field', ({ doc, field }) => {
    const r = validateManifest(doc);
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.field)).toContain(field);
  });

  it.each([
    {
      name: 'Policy with both rego and wasm',
      spec: { type: 'pii', rego: 'package x', wasm: { bundleBase64: 'AA==', entrypoint: 'x/deny' } },
      kind: 'Policy',
      field: 'spec.rego',
    },
    { name: 'Policy with neither rego nor wasm', spec: { type: 'pii' }, kind: 'Policy', field: 'spec.rego' },
    {
      name: 'Connector with two connection sources',
      spec: { type: 'postgres', connection: { fromEnv: 'DB', secretRef: { name: 'a', key: 'b' } } },
      kind: 'Connector',
      field: 'spec.connection',
    },
    { name: 'Connector without a connection', spec: { type: 'postgres' }, kind: 'Connector', field: 'spec.connection' },
    { name: 'pglite Connector without a seed', spec: { type: 'pglite' }, kind: 'Connector', field: 'spec.seed' },
    {
      name: 'pglite Connector with a connection',
      spec: { type: 'pglite', seed: 'SELECT 1', connection: { fromEnv: 'DB' } },
      kind: 'Connector',
      field: 'spec.connection',
    },
    {
      name: 'postgres Connector with a seed',
      spec: { type: 'postgres', connection: { fromEnv: 'DB' }, seed: 'CREATE TABLE t (x int)' },
      kind: 'Connector',
      field: 'spec.seed',
    },
    {
      name: 'License without a key source',
      spec: { organizationId: 'acme' },
      kind: 'License',
      field: 'spec.keySecretRef',
    },
  ])('applies the cross-field rule: $name', ({ spec, kind, field }) => {
    const r = validateManifest({ apiVersion: 'steward.dev/v1alpha1', kind, metadata: { name: 'n' }, spec });
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.field)).toContain(field);
  });

  it('accepts a pglite Connector with a seed and no connection', () => {
    const r = validateManifest({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Connector',
      metadata: { name: 'demo' },
      spec: { type: 'pglite', seed: 'CREATE TABLE t (x int)' },
    });
    expect(r.errors).toEqual([]);
    expect(r.resource?.spec).toMatchObject({ connection: {}, allowedOperations: ['query'] });
  });

  it('defaults a Policy to enabled, block, priority 100 and Rego v1', () => {
    const r = validateManifest({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'p' },
      spec: { type: 'custom', rego: 'package p' },
    });
    expect(r.resource?.spec).toMatchObject({ enabled: true, action: 'block', priority: 100, regoVersion: 'v1' });
  });
});
