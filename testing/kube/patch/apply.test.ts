import { describe, expect, it } from 'vitest';
import { PatchError, applyPatch, trackUpdate, type ManagedFieldsEntry, type SchemaLike } from './index.js';

type Doc = Record<string, unknown>;

const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T11:00:00Z');
const clock = (d: Date) => () => d;

const DEPLOY = { group: 'apps', version: 'v1', kind: 'Deployment', builtin: true };
const AGENT = { group: 'steward.dev', version: 'v1alpha1', kind: 'AgentConfig', builtin: false };
const AGENT_SCHEMA: SchemaLike = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        domain: { type: 'string' },
        capabilities: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        tools: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, url: { type: 'string' } } },
        },
        settings: { type: 'object', additionalProperties: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { readyReplicas: { type: 'integer' } } },
  },
};

function deployment(spec: Doc, meta: Doc = {}): Doc {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', ...meta }, spec };
}

function agent(spec: Doc, meta: Doc = {}): Doc {
  return {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'AgentConfig',
    metadata: { name: 'a1', namespace: 'default', ...meta },
    spec,
  };
}

/** Applies `config` to `current` (creating when null) as `manager`. */
function apply(
  current: Doc | null,
  config: Doc,
  manager: string,
  opts: { force?: boolean; now?: Date; kind?: typeof DEPLOY } = {},
) {
  const kind = opts.kind ?? (config.kind === 'Deployment' ? DEPLOY : AGENT);
  return applyPatch({
    patchType: 'application/apply-patch+yaml',
    current,
    isCreate: current === null,
    patch: JSON.stringify(config),
    kind,
    schema: kind.builtin ? undefined : AGENT_SCHEMA,
    fieldManager: manager,
    force: opts.force,
    now: clock(opts.now ?? T0),
    statusSubresource: kind.builtin ? undefined : true,
  });
}

function entry(obj: Doc, manager: string): ManagedFieldsEntry | undefined {
  const mf = (obj.metadata as Doc).managedFields as ManagedFieldsEntry[] | undefined;
  return mf?.find((e) => e.manager === manager);
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

describe('server-side apply', () => {
  it('creates the object and records the applier as owner of what it sent', () => {
    const r = apply(
      null,
      deployment({
        replicas: 2,
        template: { spec: { containers: [{ name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] }] } },
      }),
      'kubectl',
    );
    expect(r.created).toBe(true);
    expect(r.object.spec).toEqual({
      replicas: 2,
      template: { spec: { containers: [{ name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] }] } },
    });
    expect(r.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:replicas': {},
            'f:template': {
              'f:spec': {
                'f:containers': {
                  'k:{"name":"app"}': {
                    'f:image': {},
                    'f:name': {},
                    'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { 'f:containerPort': {}, '.': {} } },
                    '.': {},
                  },
                },
              },
            },
          },
        },
      },
    ]);
    expect((r.object.metadata as Doc).managedFields).toEqual(r.managedFields);
  });

  it('refuses to change a field another applier owns, naming the manager and the field', () => {
    const first = apply(null, agent({ replicas: 1, domain: 'travel' }), 'team-a').object;
    const err = thrown(() => apply(first, agent({ replicas: 3 }), 'team-b'));
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "team-a": .spec.replicas',
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "team-a"', field: '.spec.replicas' }],
      },
      code: 409,
    });
  });

  it('lists every conflicting field per manager when there are several', () => {
    const first = apply(null, agent({ replicas: 1, domain: 'travel' }), 'team-a').object;
    const err = thrown(() => apply(first, agent({ replicas: 3, domain: 'retail' }), 'team-b'));
    expect(err.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "team-a":\n- .spec.domain\n- .spec.replicas',
    );
    expect(err.causes?.map((c) => c.field)).toEqual(['.spec.domain', '.spec.replicas']);
  });

  it('shares ownership when a second applier sets the same value', () => {
    const first = apply(null, agent({ replicas: 1 }), 'team-a').object;
    const second = apply(first, agent({ replicas: 1 }), 'team-b').object;
    expect(entry(second, 'team-a')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(entry(second, 'team-b')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('takes the field over when forced', () => {
    const first = apply(null, agent({ replicas: 1, domain: 'travel' }), 'team-a').object;
    const forced = apply(first, agent({ replicas: 3 }), 'team-b', { force: true, now: T1 }).object;
    expect((forced.spec as Doc).replicas).toBe(3);
    expect(entry(forced, 'team-a')?.fieldsV1).toEqual({ 'f:spec': { 'f:domain': {} } });
    expect(entry(forced, 'team-b')).toMatchObject({
      time: '2024-05-01T11:00:00Z',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
  });

  it('removes a field its sole applier stops sending', () => {
    const first = apply(null, agent({ replicas: 1, domain: 'travel', settings: { a: '1', b: '2' } }), 'team-a').object;
    const next = apply(first, agent({ replicas: 1, settings: { a: '1' } }), 'team-a').object;
    expect(next.spec).toEqual({ replicas: 1, settings: { a: '1' } });
  });

  it('keeps a field another applier still owns when one applier stops sending it', () => {
    const a = apply(null, agent({ domain: 'travel' }), 'team-a').object;
    const ab = apply(a, agent({ domain: 'travel' }), 'team-b').object;
    const next = apply(ab, agent({ replicas: 2 }), 'team-a').object;
    expect(next.spec).toEqual({ domain: 'travel', replicas: 2 });
    expect(entry(next, 'team-b')?.fieldsV1).toEqual({ 'f:spec': { 'f:domain': {} } });
  });

  it('keeps a field an update changed after it was applied, now owned by the updater', () => {
    const a = apply(null, agent({ replicas: 1, domain: 'travel' }), 'team-a').object;
    const edited: Doc = { ...a, spec: { replicas: 5, domain: 'travel' } };
    const mf = trackUpdate(a, edited, 'kubectl-edit', { kind: AGENT, schema: AGENT_SCHEMA, now: clock(T1) });
    const live = { ...edited, metadata: { ...(edited.metadata as Doc), managedFields: mf } };
    const next = apply(live, agent({ domain: 'travel' }), 'team-a').object;
    expect((next.spec as Doc).replicas).toBe(5);
  });

  it('drops nulls from typed fields but keeps them in preserve-unknown-fields data', () => {
    const r = apply(null, agent({ domain: null, extra: { a: null, b: { c: 1 } } }), 'team-a');
    expect(r.object.spec).toEqual({ extra: { a: null, b: { c: 1 } } });
    expect(entry(r.object, 'team-a')?.fieldsV1).toEqual({
      'f:spec': { 'f:domain': {}, 'f:extra': { 'f:a': {}, 'f:b': { 'f:c': {}, '.': {} } } },
    });
  });

  it('removes list items and set values the applier dropped', () => {
    const spec = {
      capabilities: ['search', 'book'],
      tools: [
        { name: 'maps', url: 'm' },
        { name: 'mail', url: 'x' },
      ],
    };
    const first = apply(null, agent(spec), 'team-a').object;
    const next = apply(first, agent({ capabilities: ['book'], tools: [{ name: 'mail', url: 'y' }] }), 'team-a').object;
    expect(next.spec).toEqual({ capabilities: ['book'], tools: [{ name: 'mail', url: 'y' }] });
  });

  it('merges keyed list items from two appliers in the live order', () => {
    const first = apply(null, agent({ tools: [{ name: 'maps', url: 'm' }] }), 'team-a').object;
    const next = apply(first, agent({ tools: [{ name: 'mail', url: 'x' }] }), 'team-b').object;
    expect((next.spec as Doc).tools).toEqual([
      { name: 'maps', url: 'm' },
      { name: 'mail', url: 'x' },
    ]);
  });

  it('reports a conflict with an updater by manager and API version', () => {
    const a = apply(null, agent({ replicas: 1 }), 'team-a').object;
    const edited: Doc = { ...a, spec: { replicas: 4 } };
    const mf = trackUpdate(a, edited, 'kubectl-edit', { kind: AGENT, schema: AGENT_SCHEMA, now: clock(T1) });
    const live = { ...edited, metadata: { ...(edited.metadata as Doc), managedFields: mf } };
    expect(thrown(() => apply(live, agent({ replicas: 1 }), 'team-a')).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using steward.dev/v1alpha1: .spec.replicas',
    );
  });

  it('changes nothing, not even the timestamp, when the configuration is already live', () => {
    const first = apply(null, agent({ replicas: 1 }), 'team-a').object;
    const again = apply(first, agent({ replicas: 1 }), 'team-a', { now: T1 }).object;
    expect(again).toEqual(first);
  });

  it('keeps .status out of applies to the main resource and records no ownership of it', () => {
    const first = apply(null, agent({ replicas: 1 }), 'team-a').object;
    const withStatus = { ...first, status: { readyReplicas: 1 } };
    const next = apply(withStatus, { ...agent({ replicas: 1 }), status: { readyReplicas: 9 } }, 'team-a').object;
    expect(next.status).toEqual({ readyReplicas: 1 });
    expect(entry(next, 'team-a')?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('lets kubectl take over fields listed in the client-side apply annotation and records the apply there', () => {
    const lastApplied = JSON.stringify(agent({ replicas: 1 }));
    const created = agent(
      { replicas: 1 },
      { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
    );
    const mf = trackUpdate(null, created, 'kubectl-client-side-apply', {
      kind: AGENT,
      schema: AGENT_SCHEMA,
      now: clock(T0),
    });
    const live = { ...created, metadata: { ...(created.metadata as Doc), managedFields: mf } };
    const next = apply(live, agent({ replicas: 2 }), 'kubectl', { now: T1 }).object;
    expect((next.spec as Doc).replicas).toBe(2);
    const annotation = ((next.metadata as Doc).annotations as Doc)['kubectl.kubernetes.io/last-applied-configuration'];
    expect(annotation).toBe(
      '{"apiVersion":"steward.dev/v1alpha1","kind":"AgentConfig","metadata":{"name":"a1","namespace":"default"},"spec":{"replicas":2}}\n',
    );
    // Another manager gets no such leniency.
    expect(thrown(() => apply(live, agent({ replicas: 2 }), 'helm')).status).toBe(409);
  });

  it.each([
    {
      name: 'refuses managedFields in the applied object',
      config: agent({}, { managedFields: [] }),
      status: 400,
      message: 'metadata.managedFields must be nil',
    },
    {
      name: 'refuses an applied object of another version',
      config: { ...agent({}), apiVersion: 'steward.dev/v1' },
      status: 400,
      message:
        'Incorrect version specified in apply patch. Specified patch version: steward.dev/v1, expected: steward.dev/v1alpha1',
    },
    {
      name: 'refuses duplicate keys in an associative list',
      config: agent({ tools: [{ name: 'm' }, { name: 'm' }] }),
      status: 500,
      message:
        'failed to create typed patch object (default/a1; steward.dev/v1alpha1, Kind=AgentConfig): .spec.tools: duplicate entries for key [name="m"]',
    },
    {
      name: 'refuses an associative list item without its key',
      config: agent({ tools: [{ url: 'x' }] }),
      status: 500,
      message:
        'failed to create typed patch object (default/a1; steward.dev/v1alpha1, Kind=AgentConfig): .spec.tools: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    },
    {
      name: 'refuses a field the schema does not declare',
      config: agent({ bogus: true }),
      status: 500,
      message:
        'failed to create typed patch object (default/a1; steward.dev/v1alpha1, Kind=AgentConfig): .spec.bogus: field not declared in schema',
    },
  ])('$name', ({ config, status, message }) => {
    const err = thrown(() => apply(null, config, 'team-a'));
    expect([err.status, err.message]).toEqual([status, message]);
  });
});

describe('trackUpdate', () => {
  const opts = { kind: AGENT, schema: AGENT_SCHEMA, now: clock(T0) };

  it('gives the creator every field it set, with "." on maps it added', () => {
    const mf = trackUpdate(
      null,
      agent({ replicas: 1, settings: { a: '1' } }, { labels: { app: 'x' } }),
      'kubectl-create',
      opts,
    );
    expect(mf).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'steward.dev/v1alpha1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {}, '.': {} } },
          'f:spec': { 'f:replicas': {}, 'f:settings': { 'f:a': {}, '.': {} }, '.': {} },
        },
      },
    ]);
  });

  it('moves a changed field to the updater and leaves the rest with its owner', () => {
    const v1 = agent({ replicas: 1, domain: 'd' });
    const mf1 = trackUpdate(null, v1, 'creator', opts);
    const v2 = { ...agent({ replicas: 2, domain: 'd' }), metadata: { ...(v1.metadata as Doc), managedFields: mf1 } };
    const mf2 = trackUpdate({ ...v1, metadata: { ...(v1.metadata as Doc), managedFields: mf1 } }, v2, 'scaler', {
      ...opts,
      now: clock(T1),
    });
    expect(mf2.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['creator', { 'f:spec': { 'f:domain': {}, '.': {} } }],
      ['scaler', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('records no entry for a write that changes nothing', () => {
    const v1 = agent({ replicas: 1 });
    expect(trackUpdate(v1, agent({ replicas: 1 }), 'noop', opts)).toEqual([]);
  });

  it('starts from managedFields the write sets itself, and [{}] clears them', () => {
    const v1 = agent({ replicas: 1 });
    const mf1 = trackUpdate(null, v1, 'creator', opts);
    const live = { ...v1, metadata: { ...(v1.metadata as Doc), managedFields: mf1 } };
    const cleared = { ...v1, metadata: { ...(v1.metadata as Doc), managedFields: [{}] } };
    expect(trackUpdate(live, cleared, 'kubectl-patch', opts)).toEqual([]);
  });

  it('records writes to the status subresource with their subresource', () => {
    const v1 = { ...agent({ replicas: 1 }), status: { readyReplicas: 0 } };
    const v2 = { ...v1, status: { readyReplicas: 1 } };
    const mf = trackUpdate(v1, v2, 'operator', { ...opts, subresource: 'status', statusSubresource: true });
    expect(mf).toEqual([
      {
        manager: 'operator',
        operation: 'Update',
        apiVersion: 'steward.dev/v1alpha1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { 'f:readyReplicas': {} } },
        subresource: 'status',
      },
    ]);
  });

  it('folds the oldest of more than ten updaters into ancient-changes', () => {
    let obj: Doc = agent({ settings: {} });
    for (let i = 0; i < 12; i++) {
      const next = agent({ settings: { ...((obj.spec as Doc).settings as Doc), [`k${i}`]: 'v' } });
      (next.metadata as Doc).managedFields = (obj.metadata as Doc).managedFields;
      const mf = trackUpdate(obj, next, `m${i}`, { ...opts, now: clock(new Date(T0.getTime() + i * 1000)) });
      obj = { ...next, metadata: { ...(next.metadata as Doc), managedFields: mf } };
    }
    const managers = ((obj.metadata as Doc).managedFields as ManagedFieldsEntry[]).map((e) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers).toContain('ancient-changes');
    expect(managers).not.toContain('m0');
    expect(managers).toContain('m11');
  });

  it('types built-in objects from their apiVersion and kind when no kind is given', () => {
    const d = deployment({ template: { spec: { containers: [{ name: 'app', image: 'x' }] } } });
    const mf = trackUpdate(null, d, 'kubectl-create', { now: clock(T0) });
    expect(JSON.stringify(mf[0]!.fieldsV1)).toContain('k:{\\"name\\":\\"app\\"}');
  });
});
