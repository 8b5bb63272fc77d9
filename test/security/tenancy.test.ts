import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, startTestOrchestrator, type TestGateway } from '../../testing/gateway.js';

/**
 * Tenancy of every object a caller writes (issue 30, findings 3, 4 and 6): a key BOUND to a tenant (an API key
 * created with X-Tenant-ID) reaches only objects scoped exactly to its tenant; an unbound credential (the license
 * key, an API key made without a tenant) keeps its organization's rights. One matrix: every write route × the
 * object's scope × the caller.
 */
let gw: TestGateway;
let orchestrator: FastifyInstance;
const keys: Record<'unbound' | 't1' | 't2', string> = { unbound: '', t1: '', t2: '' };

const CHERRY =
  'package custom.cherry\n\ndeny contains "cherries are off the menu" if contains(lower(input.query), "cherry")\n';

beforeAll(async () => {
  gw = await startTestGateway({
    policyPack: false,
    env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000', STEWARD_RATE_LIMIT_PER_HOUR: '1000000' },
  });
  orchestrator = (await startTestOrchestrator(gw)).app;
  const mint = async (tenant?: string) => {
    const res = await gw.app.inject({
      method: 'POST',
      url: '/api/clients',
      headers: { 'x-license-key': gw.keys.acme, ...(tenant ? { 'x-tenant-id': tenant } : {}) },
      payload: { name: `app-${tenant ?? 'org'}` },
    });
    expect(res.statusCode).toBe(201);
    return res.json().api_key as string;
  };
  keys.unbound = await mint();
  keys.t1 = await mint('t1');
  keys.t2 = await mint('t2');
});
afterAll(async () => {
  await orchestrator?.close();
  await gw?.close();
});

type Caller = 'license' | 'unbound' | 't1' | 't2';
const headers = (caller: Caller, extra: Record<string, string> = {}) =>
  caller === 'license'
    ? { 'x-license-key': gw.keys.acme, ...extra }
    : { authorization: `Bearer ${keys[caller]}`, ...extra };
const admin = (tenant?: string) => headers('license', tenant ? { 'x-tenant-id': tenant } : {});

let serial = 0;
/** A dynamic policy made by the license key: organization-wide, or for tenant t1 (narrowed by the header). */
async function newPolicy(scope: 'org' | 't1'): Promise<string> {
  const name = `p-${scope}-${++serial}`;
  const res = await orchestrator.inject({
    method: 'POST',
    url: '/api/v1/policies',
    headers: admin(scope === 't1' ? 't1' : undefined),
    payload: {
      name,
      type: 'custom',
      priority: 100,
      enabled: true,
      rego: `package custom.p${serial}\n\ndeny contains "x" if input.query == "never-${serial}"\n`,
    },
  });
  expect(res.statusCode).toBe(201);
  return name;
}

async function newWebhook(scope: 'org' | 't1'): Promise<string> {
  const res = await orchestrator.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: admin(scope === 't1' ? 't1' : undefined),
    payload: { url: `https://hooks.example.com/${++serial}`, events: ['plan.completed'] },
  });
  expect(res.statusCode).toBe(201);
  return res.json().id as string;
}

const ROUTES = [
  {
    name: 'PUT a policy (disable it)',
    make: newPolicy,
    send: (n: string, c: Caller) =>
      orchestrator.inject({
        method: 'PUT',
        url: `/api/v1/policies/${n}`,
        headers: headers(c),
        payload: { enabled: false },
      }),
    missing: 'POLICY_NOT_FOUND',
  },
  {
    name: 'DELETE a policy',
    make: newPolicy,
    send: (n: string, c: Caller) =>
      orchestrator.inject({ method: 'DELETE', url: `/api/v1/policies/${n}`, headers: headers(c) }),
    missing: 'POLICY_NOT_FOUND',
  },
  {
    name: 'PUT a webhook (repoint it)',
    make: newWebhook,
    send: (id: string, c: Caller) =>
      orchestrator.inject({
        method: 'PUT',
        url: `/api/v1/webhooks/${id}`,
        headers: headers(c),
        payload: { url: 'https://evil.example.com/x' },
      }),
    missing: 'WEBHOOK_NOT_FOUND',
  },
  {
    name: 'DELETE a webhook',
    make: newWebhook,
    send: (id: string, c: Caller) =>
      orchestrator.inject({ method: 'DELETE', url: `/api/v1/webhooks/${id}`, headers: headers(c) }),
    missing: 'WEBHOOK_NOT_FOUND',
  },
];

// The object's scope × the caller → allowed. `unbound` is an API key made without a tenant.
const MATRIX: { scope: 'org' | 't1'; caller: Caller; allowed: boolean }[] = [
  { scope: 'org', caller: 'license', allowed: true },
  { scope: 'org', caller: 'unbound', allowed: true },
  { scope: 'org', caller: 't1', allowed: false },
  { scope: 'org', caller: 't2', allowed: false },
  { scope: 't1', caller: 'license', allowed: true },
  { scope: 't1', caller: 'unbound', allowed: true },
  { scope: 't1', caller: 't1', allowed: true },
  { scope: 't1', caller: 't2', allowed: false },
];

describe('every write route × the object scope × the caller', () => {
  const cases = ROUTES.flatMap((route) =>
    MATRIX.map((m) => ({
      ...m,
      route,
      title: `${route.name}: ${m.scope} object, ${m.caller} → ${m.allowed ? 'allowed' : 'not found'}`,
    })),
  );

  it.each(cases)('$title', async ({ route, scope, caller, allowed }) => {
    const id = await route.make(scope);
    const res = await route.send(id, caller);
    if (allowed) expect(res.statusCode).toBe(200);
    else expect(res.json()).toMatchObject({ error: { code: route.missing } });
  });
});

describe('finding 3: a tenant-bound key against organization-wide policies', () => {
  it('cannot delete or disable an organization-wide block policy; every tenant stays blocked', async () => {
    const created = await orchestrator.inject({
      method: 'POST',
      url: '/api/v1/policies',
      headers: admin(),
      payload: { name: 'no-cherry', type: 'custom', priority: 900, enabled: true, rego: CHERRY },
    });
    expect(created.statusCode).toBe(201);
    const del = await orchestrator.inject({
      method: 'DELETE',
      url: '/api/v1/policies/no-cherry',
      headers: headers('t1', { 'x-tenant-id': 't1' }),
    });
    expect(del.statusCode).toBe(404);
    const put = await orchestrator.inject({
      method: 'PUT',
      url: '/api/v1/policies/no-cherry',
      headers: headers('t1'),
      payload: { enabled: false, scope: { tenants: ['t1'] } },
    });
    expect(put.statusCode).toBe(404);
    for (const tenant of ['t1', 't2', 't9']) {
      const res = await gw.app.inject({
        method: 'POST',
        url: '/api/policy/pre-check',
        headers: admin(tenant),
        payload: { client_id: 'app', user_token: 'u', query: 'a cherry pie' },
      });
      expect(res.json()).toMatchObject({ approved: false });
    }
  });

  it('creates its policies for its own tenant only, and may not name another scope', async () => {
    const own = await orchestrator.inject({
      method: 'POST',
      url: '/api/v1/policies',
      headers: headers('t1'),
      payload: { name: 'mine', type: 'custom', priority: 10, enabled: true, rego: CHERRY.replace('cherry', 'plum') },
    });
    expect(own.statusCode).toBe(201);
    expect(own.json().scope).toEqual({ tenants: ['t1'] });
    for (const scope of [{ tenants: ['t2'] }, { tenants: ['t1', 't2'] }, { tenants: [] }]) {
      const res = await orchestrator.inject({
        method: 'POST',
        url: '/api/v1/policies',
        headers: headers('t1'),
        payload: { name: `wide-${++serial}`, type: 'custom', priority: 10, enabled: true, rego: CHERRY, scope },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    const rescope = await orchestrator.inject({
      method: 'PUT',
      url: '/api/v1/policies/mine',
      headers: headers('t1'),
      payload: { scope: { tenants: ['t2'] } },
    });
    expect(rescope.statusCode).toBe(403);
  });

  it("lists only its tenant's policies; an unbound caller narrowed by X-Tenant-ID also sees the organization-wide ones", async () => {
    const names = (res: { json(): unknown }) => {
      const body = res.json() as { policies?: { name: string }[] } | { name: string }[];
      return (Array.isArray(body) ? body : body.policies!).map((p) => p.name);
    };
    const bound = names(
      await orchestrator.inject({ method: 'GET', url: '/api/v1/policies?page_size=100', headers: headers('t1') }),
    );
    expect(bound).toContain('mine');
    expect(bound).not.toContain('no-cherry');
    const narrowed = names(
      await orchestrator.inject({ method: 'GET', url: '/api/v1/policies?page_size=100', headers: admin('t2') }),
    );
    expect(narrowed).toContain('no-cherry');
    expect(narrowed).not.toContain('mine');
  });

  it('a PUT by an unbound caller narrowed to a tenant keeps an organization-wide policy organization-wide', async () => {
    const name = await newPolicy('org');
    const res = await orchestrator.inject({
      method: 'PUT',
      url: `/api/v1/policies/${name}`,
      headers: admin('t1'),
      payload: { priority: 5 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().scope).toEqual({});
  });
});

describe('finding 4: webhooks and their deliveries are tenant-scoped', () => {
  it('a bound key neither lists nor reads the deliveries of organization-wide registrations', async () => {
    const orgHook = await newWebhook('org');
    const t1Hook = await newWebhook('t1');
    const listed = (await orchestrator.inject({ method: 'GET', url: '/api/v1/webhooks', headers: headers('t1') }))
      .json()
      .webhooks.map((w: { id: string }) => w.id);
    expect(listed).toContain(t1Hook);
    expect(listed).not.toContain(orgHook);
    const deliveries = await orchestrator.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${orgHook}/deliveries`,
      headers: headers('t1'),
    });
    expect(deliveries.json()).toMatchObject({ error: { code: 'WEBHOOK_NOT_FOUND' } });
    expect(
      (await orchestrator.inject({ method: 'GET', url: `/api/v1/webhooks/${t1Hook}`, headers: headers('t1') })).json(),
    ).toMatchObject({ id: t1Hook, tenant_id: 't1' });
  });

  it("queues a tenant's plan events for its own and the organization-wide registrations only", async () => {
    const repo = (await import('../../runtime/orchestrator/webhooks/repository.js')).WebhookRepository;
    const r = new repo(gw.store.db);
    const at = new Date();
    const t2Only = await r.create(
      'acme-q',
      't2',
      { url: 'https://h.example.com/t2', events: ['plan.completed'], secret: 's', active: true },
      at,
    );
    const wide = await r.create(
      'acme-q',
      null,
      { url: 'https://h.example.com/all', events: ['plan.completed'], secret: 's', active: true },
      at,
    );
    expect(await r.enqueue({ organizationId: 'acme-q', tenantId: 't1' }, 'plan.completed', {}, 'plan-t1', at)).toBe(1);
    expect(await r.enqueue({ organizationId: 'acme-q', tenantId: 't2' }, 'plan.completed', {}, 'plan-t2', at)).toBe(2);
    const all = { organizationId: 'acme-q', bound: null, narrowed: null };
    expect((await r.deliveries(all, wide.id, 10)).map((d) => d.orderKey).sort()).toEqual(['plan-t1', 'plan-t2']);
    expect((await r.deliveries(all, t2Only.id, 10)).map((d) => d.orderKey)).toEqual(['plan-t2']);
  });
});

describe('finding 6: API keys are revoked at once, as revoked', () => {
  it('revokes a key with DELETE /api/clients/{id}: the next call fails with API_KEY_REVOKED, and the revocation is audited', async () => {
    const made = (
      await gw.app.inject({ method: 'POST', url: '/api/clients', headers: admin('t1'), payload: { name: 'leaky' } })
    ).json();
    const use = () =>
      gw.app.inject({
        method: 'POST',
        url: '/api/policy/pre-check',
        headers: { authorization: `Bearer ${made.api_key}` },
        payload: { client_id: 'app', user_token: 'u', query: 'hello' },
      });
    expect((await use()).statusCode).toBe(200);
    const revoked = await gw.app.inject({ method: 'DELETE', url: `/api/clients/${made.id}`, headers: admin('t1') });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ success: true, id: made.id, revoked_at: expect.any(String) });
    const after = await use();
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'API_KEY_REVOKED' });
    const onOrchestrator = await orchestrator.inject({
      method: 'GET',
      url: '/api/v1/policies',
      headers: { authorization: `Bearer ${made.api_key}` },
    });
    expect(onOrchestrator.statusCode).toBe(401);
    const { rows } = await gw.store.db.query<{ metadata: Record<string, unknown> }>(
      "SELECT metadata FROM audit_entries WHERE client_id = $1 AND metadata->>'event' = 'client.revoked'",
      [made.id],
    );
    expect(rows).toHaveLength(1);
    expect(
      (await gw.app.inject({ method: 'DELETE', url: `/api/clients/${made.id}`, headers: admin() })).json(),
    ).toMatchObject({ code: 'CLIENT_NOT_FOUND' });
  });

  it("is tenant-checked: a caller narrowed to t2 cannot revoke t1's key, an API key cannot revoke at all", async () => {
    const made = (
      await gw.app.inject({ method: 'POST', url: '/api/clients', headers: admin('t1'), payload: { name: 'kept' } })
    ).json();
    expect(
      (await gw.app.inject({ method: 'DELETE', url: `/api/clients/${made.id}`, headers: admin('t2') })).json(),
    ).toMatchObject({ code: 'CLIENT_NOT_FOUND' });
    expect(
      (await gw.app.inject({ method: 'DELETE', url: `/api/clients/${made.id}`, headers: headers('t1') })).statusCode,
    ).toBe(403);
    expect(
      (await gw.app.inject({ method: 'DELETE', url: `/api/clients/${made.id}`, headers: headers('unbound') }))
        .statusCode,
    ).toBe(403);
    const listed = (await gw.app.inject({ method: 'GET', url: '/api/clients', headers: admin('t2') }))
      .json()
      .clients.map((c: { id: string }) => c.id);
    expect(listed).not.toContain(made.id);
  });
});
