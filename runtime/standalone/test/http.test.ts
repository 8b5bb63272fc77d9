import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneSettings } from '../../../cmd/config/settings.js';
import { createLogger } from '../../../platform/log.js';
import { startStandalone, type Standalone } from '../main.js';

let app: Standalone;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'steward-standalone-'));
  const config = standaloneSettings({
    STEWARD_GATEWAY_PORT: '0',
    STEWARD_ORCHESTRATOR_PORT: '0',
    STEWARD_DATA_DIR: dataDir,
    STEWARD_MANIFESTS: 'config/samples',
    STEWARD_WATCH_MANIFESTS: 'false',
    STEWARD_BODY_LIMIT_BYTES: '2048',
  });
  app = await startStandalone(config, createLogger({ level: 'silent' }));
});
afterAll(async () => {
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const url = (which: 'gateway' | 'orchestrator', path: string) => {
  const { port } = app[which].server.address() as { port: number };
  return `http://127.0.0.1:${port}${path}`;
};

describe('standalone HTTP surfaces', () => {
  it('answers GET /health on the gateway over a real socket with the reference fields', async () => {
    const res = await fetch(url('gateway', '/health'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { timestamp: string };
    expect(body).toMatchObject({ service: 'steward-gateway', status: 'healthy', version: expect.any(String) });
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  });

  it('answers GET /health on the orchestrator', async () => {
    const res = await fetch(url('orchestrator', '/health'));
    expect(await res.json()).toMatchObject({ service: 'steward-orchestrator', status: 'healthy' });
  });

  it('loaded the sample AgentConfigs', () => {
    expect(app.source.list('AgentConfig').length).toBeGreaterThanOrEqual(8);
  });

  it('echoes the caller X-Request-ID', async () => {
    const res = await app.gateway.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'trace-42' } });
    expect(res.headers['x-request-id']).toBe('trace-42');
  });

  it.each([
    {
      name: 'an unknown gateway path is a JSON 404 with a code',
      which: 'gateway',
      method: 'GET',
      path: '/nope',
      status: 404,
      check: { success: false, code: 'NOT_FOUND' },
    },
    {
      name: 'invalid JSON to the gateway is a 400 INVALID_JSON',
      which: 'gateway',
      method: 'POST',
      path: '/health',
      body: '{bad',
      type: 'application/json',
      status: 400,
      check: { code: 'INVALID_JSON' },
    },
    {
      name: 'a body over the limit is a 413',
      which: 'gateway',
      method: 'POST',
      path: '/health',
      body: JSON.stringify({ x: 'a'.repeat(4096) }),
      type: 'application/json',
      status: 413,
      check: { code: 'PAYLOAD_TOO_LARGE' },
    },
    {
      name: 'an unknown orchestrator path is an envelope 404',
      which: 'orchestrator',
      method: 'GET',
      path: '/api/v1/nope',
      status: 404,
      check: { success: false, error: { code: 'NOT_FOUND' } },
    },
    {
      name: 'an unsupported media type on the orchestrator is a 415',
      which: 'orchestrator',
      method: 'POST',
      path: '/api/v1/agents/validate',
      body: 'x',
      type: 'application/xml',
      status: 415,
      check: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
    },
    {
      name: 'unparseable YAML to validate is a 400',
      which: 'orchestrator',
      method: 'POST',
      path: '/api/v1/agents/validate',
      body: 'kind: [x',
      type: 'application/yaml',
      status: 400,
      check: { error: { code: 'INVALID_REQUEST' } },
    },
  ] as const)('$name', async (c) => {
    const res = await app[c.which].inject({
      method: c.method,
      url: c.path,
      ...('body' in c ? { payload: c.body, headers: { 'content-type': c.type } } : {}),
    });
    expect(res.statusCode).toBe(c.status);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toMatchObject(c.check);
    // The request id is set first thing, so error answers carry it too, equal to the body's.
    const body = res.json() as { request_id?: string; error?: { request_id?: string } };
    expect(res.headers['x-request-id']).toBe(body.request_id ?? body.error?.request_id);
  });

  it('validates an AgentConfig sent as YAML, naming spec.llm when a specialist lacks it', async () => {
    const yaml =
      'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: a}\nspec: {type: specialist, domain: travel}\n';
    const res = await app.orchestrator.inject({
      method: 'POST',
      url: '/api/v1/agents/validate',
      payload: yaml,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: false, errors: [{ field: 'spec.llm' }] });
  });

  it('validates an AgentConfig sent as JSON and creates nothing', async () => {
    const doc = {
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'AgentConfig',
      metadata: { name: 'zz-new' },
      spec: { type: 'coordinator', domain: 'travel' },
    };
    const res = await app.orchestrator.inject({ method: 'POST', url: '/api/v1/agents/validate', payload: doc });
    expect(res.json()).toEqual({ valid: true, errors: [], warnings: [] });
    expect(app.source.get('AgentConfig', 'zz-new')).toBeUndefined();
  });
});
