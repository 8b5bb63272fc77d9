import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../testing/gateway.js';

/**
 * `POST /api/v1/agents/validate` cannot be turned against the process: YAML over the limits (30,000 keys took
 * 30–45 s before) is refused, repeated keys, alias bombs and deep nesting are 400s, and every error has the
 * envelope shape with a code and a request id.
 */
let gw: TestGateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway({ licensed: false, policyPack: false });
  app = (await startTestOrchestrator(gw)).app;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const yaml = (payload: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/agents/validate',
    headers: { 'content-type': 'application/yaml' },
    payload,
  });
const HEAD = 'apiVersion: steward.dev/v1alpha1\nkind: AgentConfig\nmetadata: {name: travel}\n';
const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: v`).join('\n');

describe('YAML bodies', () => {
  it.each([
    {
      name: 'refuses 2,000 short keys (24 KB) by the node limit',
      body: () => HEAD + Array.from({ length: 2_000 }, (_, i) => `${i}: v`).join('\n'),
      message: /more than 2000 nodes/,
    },
    { name: 'refuses a repeated key', body: () => `${HEAD}spec: {}\nspec: {}\n`, message: /key "spec" appears twice/ },
    {
      name: 'refuses nesting deeper than 64 levels',
      body: () => `${HEAD}spec: ${'['.repeat(100)}${']'.repeat(100)}`,
      message: /deeper than 64/,
    },
    {
      name: 'refuses block nesting deeper than 64 levels',
      body: () => `${HEAD}spec:\n  ${'- '.repeat(500)}x\n`,
      message: /deeper than 64/,
    },
    {
      name: 'refuses an alias bomb',
      body: () => `a: &a [x, x]\n${Array.from({ length: 150 }, (_, i) => `b${i}: *a`).join('\n')}\n`,
      message: /more than 100 aliases/,
    },
    { name: 'refuses two documents', body: () => `${HEAD}---\n${HEAD}`, message: /one YAML document/ },
    { name: 'refuses a syntax error', body: () => 'a: [1, 2\n', message: /invalid YAML/ },
  ])('$name', async ({ body, message }) => {
    const res = await yaml(body());
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'INVALID_REQUEST', request_id: res.headers['x-request-id'], timestamp: expect.any(String) },
    });
    expect(res.json().error.message).toMatch(message);
  });

  it('refuses 30,000 keys (289 KB) by the body limit, before any parsing', async () => {
    const res = await yaml(HEAD + keys(30_000));
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', request_id: res.headers['x-request-id'] });
  });

  it('validates 900 keys (within the limits) as a document, not as an error', async () => {
    const res = await yaml(HEAD + keys(900));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ valid: false });
  });

  it('keeps a small aliased document working', async () => {
    const res = await yaml(`${HEAD}spec: &s {domain: travel}\nx: *s\n`);
    expect(res.statusCode).toBe(200);
  });
});

describe('other bodies', () => {
  it('answers text/plain with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/agents/validate',
      headers: { 'content-type': 'text/plain' },
      payload: 'kind: AgentConfig',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', request_id: expect.any(String) });
  });

  it('refuses JSON nested 10,000 levels with 400', async () => {
    const payload = '['.repeat(10_000) + ']'.repeat(10_000);
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/agents/validate',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
