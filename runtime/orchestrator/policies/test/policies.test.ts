import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../../../testing/gateway.js';
import { createLogger } from '../../../../platform/log.js';
import { RegoPolicyEngine } from '../../../policy/engine.js';
import { FolderSource } from '../../../source/index.js';

const REGO =
  'package custom.nobanana\n\ndeny contains msg if {\n  contains(lower(input.query), "banana")\n  msg := "bananas are not discussed here"\n}\n';
const BAD_REGO = 'package custom.broken\n\ndeny contains msg if {\n  msg := \n}\n';
const QUERY = 'Tell me about banana prices';

let gw: TestGateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await startTestGateway({ policyPack: false });
  app = (await startTestOrchestrator(gw)).app;
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

const as = (key: string, extra: Record<string, string> = {}) => ({ 'x-license-key': key, ...extra });
const create = (key: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/api/v1/policies', headers: as(key), payload });
const list = (key: string, extra: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/api/v1/policies', headers: as(key, extra) });
const preCheck = async (key: string, query = QUERY) =>
  (
    await gw.app.inject({
      method: 'POST',
      url: '/api/policy/pre-check',
      headers: as(key),
      payload: { client_id: 'app', user_token: 'u', query },
    })
  ).json();

describe('dynamic policies', () => {
  it('refuses Rego that does not compile with 400 naming the line and column, and stores nothing', async () => {
    const res = await create(gw.keys.acme, {
      name: 'broken',
      type: 'custom',
      priority: 10,
      enabled: true,
      rego: BAD_REGO,
    });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/broken\.rego:\d+:\d+/);
    expect(error.details).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    expect(gw.source.list('Policy')).toEqual([]);
  });

  it("creates a policy that the gateway's pre-check enforces for the creator's organization only", async () => {
    expect((await preCheck(gw.keys.acme)).approved).toBe(true);
    const res = await create(gw.keys.acme, {
      name: 'no-banana',
      type: 'custom',
      priority: 500,
      enabled: true,
      rego: REGO,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      name: 'no-banana',
      type: 'custom',
      priority: 500,
      enabled: true,
      action: 'block',
      policy: { name: 'no-banana' },
    });
    // NB: the write resolves after the source re-read the folder and the engine recompiled: no waiting.
    const blocked = await preCheck(gw.keys.acme);
    expect(blocked).toMatchObject({
      approved: false,
      block_reason: expect.stringContaining('bananas are not discussed here'),
    });
    expect((await preCheck(gw.keys.globex)).approved).toBe(true);
  });

  it("lists the policies of the caller's organization as {policies, pagination}", async () => {
    const acme = (await list(gw.keys.acme)).json();
    expect(acme.policies.map((p: { name: string }) => p.name)).toEqual(['no-banana']);
    expect(acme.pagination).toEqual({ page: 1, page_size: 50, total: 1 });
    expect((await list(gw.keys.globex)).json()).toMatchObject({ policies: [], pagination: { total: 0 } });
  });

  it('answers a bare array to old clients that send X-Tenant-ID', async () => {
    const res = await list(gw.keys.acme, { 'x-tenant-id': 'team-a' });
    expect(res.statusCode).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
    expect(res.json().map((p: { name: string }) => p.name)).toEqual(['no-banana']);
  });

  it("keeps one organization's policy out of another's reach (GET, PUT, DELETE answer 404)", async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({
        method,
        url: '/api/v1/policies/no-banana',
        headers: as(gw.keys.globex),
        ...(method === 'PUT' ? { payload: { enabled: false } } : {}),
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('POLICY_NOT_FOUND');
    }
    expect((await preCheck(gw.keys.acme)).approved).toBe(false);
  });

  it('lets another organization use the same name for its own policy', async () => {
    const res = await create(gw.keys.globex, {
      name: 'no-banana',
      type: 'custom',
      priority: 1,
      enabled: true,
      rego: REGO,
      action: 'warn',
    });
    expect(res.statusCode).toBe(201);
    const verdict = await preCheck(gw.keys.globex);
    expect(verdict.approved).toBe(true);
    expect(verdict.warnings).toEqual([expect.stringContaining('bananas')]);
    await app.inject({ method: 'DELETE', url: '/api/v1/policies/no-banana', headers: as(gw.keys.globex) });
  });

  it('answers 409 POLICY_EXISTS for a second policy of the same name', async () => {
    const res = await create(gw.keys.acme, {
      name: 'no-banana',
      type: 'custom',
      priority: 1,
      enabled: true,
      rego: REGO,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('POLICY_EXISTS');
  });

  it('never takes the organization from the body: org_id, client.tenant_id and user claim another in vain', async () => {
    const claim = {
      org_id: 'globex',
      organization_id: 'globex',
      client: { tenant_id: 'globex' },
      user: { id: 'x', org_id: 'globex' },
    };
    // NB: a package of its own: two policies of one organization may not share one (runtime/policy/packages.ts)
    const rego = REGO.replace('custom.nobanana', 'custom.claims');
    const res = await create(gw.keys.acme, {
      name: 'claims-globex',
      type: 'custom',
      priority: 1,
      enabled: true,
      rego,
      ...claim,
    });
    expect(res.statusCode).toBe(201);
    expect((await list(gw.keys.globex)).json().policies).toEqual([]);
    expect((await list(gw.keys.acme)).json().policies.map((p: { name: string }) => p.name)).toContain('claims-globex');
    await app.inject({ method: 'DELETE', url: '/api/v1/policies/claims-globex', headers: as(gw.keys.acme) });
  });

  it('changes a policy with PUT (a disabled policy no longer blocks), refusing bad Rego', async () => {
    const bad = await app.inject({
      method: 'PUT',
      url: '/api/v1/policies/no-banana',
      headers: as(gw.keys.acme),
      payload: { rego: BAD_REGO },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/no-banana\.rego:\d+:\d+/);
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/policies/no-banana',
      headers: as(gw.keys.acme),
      payload: { enabled: false },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'no-banana', enabled: false, priority: 500, rego: REGO });
    expect((await preCheck(gw.keys.acme)).approved).toBe(true);
    const got = await app.inject({ method: 'GET', url: '/api/v1/policies/no-banana', headers: as(gw.keys.acme) });
    expect(got.json()).toMatchObject({ enabled: false });
  });

  it('deletes a policy, and its document with it', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/v1/policies/no-banana', headers: as(gw.keys.acme) });
    expect(res.statusCode).toBe(200);
    expect(gw.source.list('Policy')).toEqual([]);
    expect((await list(gw.keys.acme)).json().policies).toEqual([]);
  });
});

describe('a gateway in another process', () => {
  it('enforces a policy created through the orchestrator within a second, through its own watch of the folder', async () => {
    const log = createLogger({ level: 'silent' });
    const other = new FolderSource({ dirs: [gw.dir], watch: true, log });
    await other.ready();
    const engine = new RegoPolicyEngine({
      source: other,
      log,
      limits: { deadlineMs: 200, maxSteps: 1_000_000 },
      isolation: false,
    });
    try {
      const ask = () =>
        engine.evaluate(
          { query: 'kiwi smoothie', surface: 'pre-check' },
          { surface: 'pre-check', organizationId: 'acme' },
        );
      expect(await ask()).toMatchObject({ approved: true });
      const seen = new Promise<void>((resolve) =>
        other.subscribe((events) => events.some((e) => e.resource.kind === 'Policy') && resolve()),
      );
      const res = await create(gw.keys.acme, {
        name: 'no-kiwi',
        type: 'custom',
        priority: 1,
        enabled: true,
        rego: REGO.replaceAll('banana', 'kiwi'),
      });
      expect(res.statusCode).toBe(201);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error('the watching source did not see the policy within 1 s')), 1000)),
      );
      await Promise.race([seen, deadline]).finally(() => clearTimeout(timer));
      expect(await ask()).toMatchObject({ approved: false, triggered: ['org-acme.no-kiwi'] });
      expect(
        (
          await engine.evaluate(
            { query: 'kiwi smoothie', surface: 'pre-check' },
            { surface: 'pre-check', organizationId: 'globex' },
          )
        ).approved,
      ).toBe(true);
    } finally {
      engine.close();
      await other.close();
      await app.inject({ method: 'DELETE', url: '/api/v1/policies/no-kiwi', headers: as(gw.keys.acme) });
    }
  });
});
