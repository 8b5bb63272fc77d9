import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestCluster } from '../fixture.js';
import type { JsonObject } from '../schema/types.js';
import { CRD_DIR, configMap, widget } from './fixtures.js';

const kube = useTestCluster({ crds: CRD_DIR, client: false });

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: JsonObject; text: string }> {
  const res = await fetch(kube.cluster.url + path, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: JsonObject = {};
  try {
    json = JSON.parse(text) as JsonObject;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, json, text };
}

const CM = '/api/v1/namespaces/default/configmaps';
const W = '/apis/example.com/v1/namespaces/default/widgets';

describe('Status errors over HTTP', () => {
  it('404 for a missing object and for an unknown resource', async () => {
    const r = await call('GET', `${W}/nope`);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'widgets.example.com "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', group: 'example.com', kind: 'widgets' },
      code: 404,
    });
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/sprockets')).json).toMatchObject({
      reason: 'NotFound',
      code: 404,
    });
  });

  it('422 with causes, 400 for a name mismatch, 405 for a bad method, 415 for strategic merge on a custom resource', async () => {
    const inv = await call('POST', W, widget('bad', { size: 'huge' }));
    expect(inv.status).toBe(422);
    expect(inv.json.details).toMatchObject({
      name: 'bad',
      group: 'example.com',
      kind: 'Widget',
      causes: [{ reason: 'FieldValueNotSupported', field: 'spec.size' }],
    });
    await call('POST', W, widget('ok'));
    const mismatch = await call('PUT', `${W}/ok`, widget('other'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toBe('the name of the object (other) does not match the name on the URL (ok)');
    expect((await call('POST', `${W}/ok`, widget('ok'))).status).toBe(405);
    const smp = await call(
      'PATCH',
      `${W}/ok`,
      { spec: { size: 'large' } },
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    expect(smp.status).toBe(415);
    expect(smp.json).toMatchObject({
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });

  it('warns about unknown fields by default (fieldValidation=Warn) and prunes them', async () => {
    const r = await call('POST', CM, { ...configMap('warned'), extra: true });
    expect(r.status).toBe(201);
    expect(r.headers.get('warning')).toBe('299 - "unknown field \\"extra\\""');
    expect(r.json).not.toHaveProperty('extra');
  });
});

describe('collections', () => {
  it('deletes a selected collection and answers with the deleted items', async () => {
    for (const [n, team] of [
      ['x', 'a'],
      ['y', 'a'],
      ['z', 'b'],
    ] as const)
      await call('POST', CM, configMap(n, { k: 'v' }, { team }));
    const r = await call('DELETE', `${CM}?labelSelector=team%3Da`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('ConfigMapList');
    expect((r.json.items as JsonObject[]).map((i) => (i.metadata as JsonObject).name)).toEqual(['x', 'y']);
    expect(((await call('GET', CM)).json.items as JsonObject[]).map((i) => (i.metadata as JsonObject).name)).toEqual([
      'z',
    ]);
  });
});

describe('server-side printing', () => {
  it('answers Table requests with printer columns and PartialObjectMetadata rows', async () => {
    await call('POST', W, widget('t1', { size: 'large', replicas: 2, endpoint: 'https://a.example.com' }));
    const r = await call('GET', W, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    expect(r.headers.get('content-type')).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(r.json.kind).toBe('Table');
    const cols = (r.json.columnDefinitions as JsonObject[]).map(
      (c) => `${String(c.name)}:${String(c.type)}:${String(c.priority)}`,
    );
    expect(cols).toEqual([
      'Name:string:0',
      'Size:string:0',
      'Replicas:integer:0',
      'Ready:string:0',
      'Endpoint:string:1',
      'Age:date:0',
    ]);
    const row = (r.json.rows as JsonObject[])[0]!;
    expect(row.cells).toEqual(['t1', 'large', 2, null, 'https://a.example.com', expect.stringMatching(/^\d+s$/)]);
    expect(row.object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 't1' },
    });
  });
});

describe('discovery and OpenAPI', () => {
  it('serves aggregated discovery when asked through Accept', async () => {
    const r = await call('GET', '/apis', undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    expect(r.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    const group = (r.json.items as JsonObject[]).find((i) => (i.metadata as JsonObject).name === 'example.com')!;
    const widgets = ((group.versions as JsonObject[])[0]!.resources as JsonObject[]).find(
      (x) => x.resource === 'widgets',
    )!;
    expect(widgets).toMatchObject({
      responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      scope: 'Namespaced',
      singularResource: 'widget',
      shortNames: ['wg'],
      categories: ['all', 'examples'],
      subresources: [
        { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } },
        { subresource: 'status' },
      ],
    });
  });

  it('publishes PATCH operations with the GVK extension and fieldValidation, and follows CRD deletion', async () => {
    const index = await call('GET', '/openapi/v3');
    const url = String(((index.json.paths as JsonObject)['apis/example.com/v1'] as JsonObject).serverRelativeURL);
    const doc = (await call('GET', url)).json;
    const patch = (
      (doc.paths as JsonObject)['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'] as JsonObject
    ).patch as JsonObject;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect((patch.parameters as JsonObject[]).map((p) => p.name)).toContain('fieldValidation');
    expect((doc.components as { schemas: JsonObject }).schemas['com.example.v1.Widget']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ kind: 'Widget' }],
    });
    await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com');
    await kube.cluster.idle();
    expect(((await call('GET', '/openapi/v3')).json.paths as JsonObject)['apis/example.com/v1']).toBeUndefined();
    expect((await call('GET', '/apis/example.com/v1')).status).toBe(404);
  });
});

/** Reads a watch stream with node:http so header timing and framing are visible. */
function rawWatch(
  path: string,
): Promise<{ statusAt: number; lines: () => string[]; ended: Promise<void>; abort: () => void }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const req = httpRequest(kube.cluster.url + path, (res) => {
      let buf = '';
      res.on('data', (d: Buffer) => (buf += d.toString()));
      const ended = new Promise<void>((r) => res.on('close', () => r()));
      resolve({
        statusAt: Date.now() - started,
        lines: () => buf.split('\n').filter(Boolean),
        ended,
        abort: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('watch over HTTP', () => {
  it('flushes headers at once, frames events as lines, and ends at timeoutSeconds', async () => {
    const w = await rawWatch(`${CM}?watch=true&timeoutSeconds=1`);
    expect(w.statusAt).toBeLessThan(500);
    await call('POST', CM, configMap('streamed'));
    await w.ended;
    const events = w.lines().map((l) => JSON.parse(l) as { type: string; object: JsonObject });
    expect(events.map((e) => `${e.type} ${String((e.object.metadata as JsonObject).name)}`)).toEqual([
      'ADDED streamed',
    ]);
  });

  it('notices a client that goes away', async () => {
    const before = kube.cluster.openWatches();
    const w = await rawWatch(`${CM}?watch=1`);
    expect(kube.cluster.openWatches()).toBe(before + 1);
    w.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(kube.cluster.openWatches()).toBe(before);
  });
});

describe('harness controls', () => {
  it('fails the next N matching requests, then recovers, and logs them', async () => {
    kube.cluster.faults.inject({ verb: 'create', resource: 'configmaps', status: 409, times: 2 });
    kube.cluster.faults.inject({ verb: 'list', resource: 'configmaps', status: 429, retryAfterSeconds: 7 });
    kube.cluster.faults.inject({ verb: 'get', resource: 'widgets', status: 500 });
    expect((await call('POST', CM, configMap('f'))).status).toBe(409);
    expect((await call('POST', CM, configMap('f'))).status).toBe(409);
    expect((await call('POST', CM, configMap('f'))).status).toBe(201);
    const limited = await call('GET', CM);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await call('GET', `${W}/any`)).json).toMatchObject({ code: 500, reason: 'InternalError' });
    expect(kube.cluster.requests.filter({ verb: 'create', resource: 'configmaps' }).map((r) => r.status)).toEqual([
      409, 409, 201,
    ]);
    expect(kube.cluster.requests.count({ verb: 'create' })).toBe(3);
  });

  it('adds latency to matching requests only', async () => {
    kube.cluster.faults.latency(150, { verb: 'get' });
    const t0 = Date.now();
    await call('GET', `${CM}/missing`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    const t1 = Date.now();
    await call('GET', CM);
    expect(Date.now() - t1).toBeLessThan(140);
  });

  it('cuts a watch after N events with a dropWatch fault', async () => {
    await call('POST', CM, configMap('one'));
    await call('POST', CM, configMap('two'));
    kube.cluster.faults.inject({ verb: 'watch', resource: 'configmaps', dropWatch: true, afterEvents: 1 });
    const w = await rawWatch(`${CM}?watch=true`);
    await w.ended.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(w.lines()).toHaveLength(1);
  });
});
