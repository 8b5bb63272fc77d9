import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';
import { budgetWindowOf } from '../../budgets/window-of.js';
import { windowSpan } from '../../budgets/windows.js';

/**
 * `GET /api/v1/budgets` and `GET /api/v1/spend` through the real gateway: Budgets from its manifests, spend charged
 * to their ledgers through the store, calls recorded as audit rows; what each organization and tenant sees.
 */
const budget = (name: string, spec: string) =>
  `apiVersion: steward.dev/v1alpha1\nkind: Budget\nmetadata: {name: ${name}}\nspec: ${spec}\n---\n`;

// NB: a minute ahead of the wall clock, so that the default range (the last 24 hours) covers the rows written now.
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000 + 60_000);
const LATER = new Date(NOW.getTime() + 3_600_000);

let gw: TestGateway;
let euKey: string;
let n = 0;

/** Charges `used` to a budget's ledger (`#value` with spec.each), as a settled call. */
async function charge(
  ledger: string,
  window: Parameters<typeof budgetWindowOf>[0],
  used: { micros: number; tokens: number },
) {
  const span = windowSpan(budgetWindowOf(window), NOW);
  const id = `test-${n++}`;
  await gw.store.budgets.reserve(id, [{ ledger, bucket: span.bucket, from: span.from, block: true }], used, LATER);
  await gw.store.budgets.settle(id, used);
}

/** A model call's audit row. */
const call = (o: {
  org?: string;
  client?: string;
  model?: string;
  tokens?: number;
  cost?: number;
  tenant?: string;
  agent?: string;
}) =>
  gw.store.audit.record({
    organizationId: o.org ?? 'acme',
    clientId: o.client ?? 'app',
    contextId: null,
    provider: 'openai',
    model: o.model ?? 'gpt-4o-mini',
    promptTokens: 0,
    completionTokens: o.tokens ?? 10,
    totalTokens: o.tokens ?? 10,
    metadata: {
      ...(o.cost === undefined ? {} : { cost_usd: o.cost }),
      ...(o.tenant ? { tenant_id: o.tenant } : {}),
      ...(o.agent ? { agent: o.agent } : {}),
    },
  });

const acme = () => ({ 'x-license-key': gw.keys.acme });
const get = (url: string, headers: Record<string, string> = acme()) => gw.app.inject({ method: 'GET', url, headers });

beforeAll(async () => {
  gw = await startTestGateway({
    policyPack: false,
    now: () => NOW,
    env: { STEWARD_RATE_LIMIT_PER_MINUTE: '100000' },
    manifests:
      budget('acme-month', '{scope: {organization: acme}, limit: {usd: 10, tokens: 100000}, window: {period: month}}') +
      budget(
        'per-client',
        '{scope: {organization: acme}, each: client, limit: {tokens: 1000}, window: {period: day}}',
      ) +
      budget('eu', '{scope: {tenant: eu}, limit: {tokens: 500}, window: {hours: 24}, action: warn}') +
      budget('us', '{scope: {tenant: us}, limit: {tokens: 500}, window: {hours: 24}}') +
      budget(
        'globex',
        '{scope: {organization: globex}, limit: {usd: 1}, window: {period: week, timeZone: Asia/Tokyo}}',
      ),
  });
  const created = await gw.app.inject({
    method: 'POST',
    url: '/api/clients',
    headers: { ...acme(), 'x-tenant-id': 'eu' },
    payload: { name: 'eu-app' },
  });
  euKey = created.json().api_key;

  await charge('default/acme-month', { period: 'month', timeZone: 'UTC' }, { micros: 2_500_000, tokens: 4000 });
  await charge('default/per-client#app-a', { period: 'day', timeZone: 'UTC' }, { micros: 0, tokens: 300 });
  await charge('default/per-client#app-b', { period: 'day', timeZone: 'UTC' }, { micros: 0, tokens: 800 });
  await charge('default/eu', { hours: 24, timeZone: 'UTC' }, { micros: 0, tokens: 120 });

  await call({ client: 'app-a', model: 'gpt-4o', tokens: 100, cost: 0.5, tenant: 'eu', agent: 'travel' });
  await call({ client: 'app-a', model: 'gpt-4o', tokens: 300, cost: 1.25, tenant: 'eu' });
  await call({ client: 'app-b', model: 'llama3', tokens: 700, tenant: 'us', agent: 'travel' });
  await call({ client: 'app-b', model: 'gpt-4o-mini', tokens: 50, cost: 0.001 });
  await call({ org: 'globex', client: 'g', model: 'gpt-4o', tokens: 9999, cost: 99 });
  // a connector call's row has neither model nor tokens: no model call
  await gw.store.audit.record({
    organizationId: 'acme',
    clientId: 'app-a',
    contextId: null,
    metadata: { surface: 'mcp' },
  });
  // a call from before the range asked for
  const old = await call({ client: 'app-old', tokens: 5, cost: 5 });
  await gw.store.db.query(`UPDATE audit_entries SET created_at = $2 WHERE id = $1`, [
    old.id,
    new Date(NOW.getTime() - 3 * 86_400_000).toISOString(),
  ]);
});
afterAll(async () => {
  await gw?.close();
});

describe('GET /api/v1/budgets', () => {
  it("lists the organization's budgets with what their window spent, holds and has left", async () => {
    const res = await get('/api/v1/budgets');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.budgets.map((b: { name: string }) => b.name)).toEqual(['acme-month', 'eu', 'per-client', 'us']);
    expect(body.count).toBe(4);
    expect(body.generated_at).toBe(NOW.toISOString());
    const month = body.budgets[0];
    expect(month).toEqual({
      name: 'acme-month',
      namespace: 'default',
      scope: { organization: 'acme' },
      action: 'block',
      limit: { usd: 10, tokens: 100000 },
      window: { period: 'month', time_zone: 'UTC' },
      window_start: windowSpan({ period: 'month', timeZone: 'UTC' }, NOW).from.toISOString(),
      window_ends: windowSpan({ period: 'month', timeZone: 'UTC' }, NOW).resetsAt.toISOString(),
      spent: { usd: 2.5, tokens: 4000 },
      reserved: { usd: 0, tokens: 0 },
      remaining: { usd: 7.5, tokens: 96000 },
    });
    expect(body.budgets[2]).toMatchObject({
      each: 'client',
      spent: { tokens: 800 },
      remaining: { tokens: 200 },
      ledgers: 2,
      top: [
        { value: 'app-b', spent: { tokens: 800 } },
        { value: 'app-a', spent: { tokens: 300 } },
      ],
    });
  });

  it("shows another organization only its own and the installation's budgets", async () => {
    const res = await get('/api/v1/budgets', { 'x-license-key': gw.keys.globex });
    expect(res.json().budgets.map((b: { name: string }) => b.name)).toEqual(['eu', 'globex', 'us']);
    expect(res.json().budgets[1]).toMatchObject({
      window: { period: 'week', time_zone: 'Asia/Tokyo' },
      spent: { usd: 0 },
      remaining: { usd: 1 },
    });
  });

  it("shows a tenant-bound key its tenant's budgets and the organization's, naming no other tenant's client", async () => {
    const res = await get('/api/v1/budgets', { authorization: `Bearer ${euKey}` });
    expect(res.statusCode).toBe(200);
    const budgets = res.json().budgets;
    expect(budgets.map((b: { name: string }) => b.name)).toEqual(['acme-month', 'eu', 'per-client']);
    expect(budgets[1]).toMatchObject({ action: 'warn', window: { hours: 24 }, spent: { tokens: 120 } });
    expect(budgets[2]).toMatchObject({ ledgers: 2, spent: { tokens: 800 } });
    expect(budgets[2]).not.toHaveProperty('top');
  });

  it('refuses a caller without credentials', async () => {
    expect((await get('/api/v1/budgets', {})).statusCode).toBe(401);
  });
});

describe('GET /api/v1/spend', () => {
  const spend = (query: string, headers?: Record<string, string>) => get(`/api/v1/spend${query}`, headers);

  it("groups the organization's model calls of the last 24 hours by model, by cost then tokens", async () => {
    const res = await spend('?group_by=model');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      group_by: 'model',
      from: new Date(NOW.getTime() - 86_400_000).toISOString(),
      to: NOW.toISOString(),
      groups: [
        { key: 'gpt-4o', requests: 2, tokens: 400, cost_usd: 1.75, unpriced_requests: 0 },
        { key: 'gpt-4o-mini', requests: 1, tokens: 50, cost_usd: 0.001, unpriced_requests: 0 },
        { key: 'llama3', requests: 1, tokens: 700, cost_usd: 0, unpriced_requests: 1 },
      ],
      total: { requests: 4, tokens: 1150, cost_usd: 1.751, unpriced_requests: 1 },
      truncated: false,
    });
  });

  it.each([
    { by: 'organization', keys: ['acme'] },
    { by: 'tenant', keys: ['eu', null, 'us'] },
    { by: 'client', keys: ['app-a', 'app-b'] },
    { by: 'agent', keys: [null, 'travel'] },
  ])('groups by $by', async ({ by, keys }) => {
    const res = await spend(`?group_by=${by}`);
    expect(res.json().groups.map((g: { key: string | null }) => g.key)).toEqual(keys);
    expect(res.json().total.requests).toBe(4);
  });

  it('counts the range asked for', async () => {
    const from = new Date(NOW.getTime() - 4 * 86_400_000).toISOString();
    const res = await spend(`?group_by=client&from=${from}&to=${encodeURIComponent(NOW.toISOString())}`);
    expect(res.json().groups.map((g: { key: string }) => g.key)).toEqual(['app-old', 'app-a', 'app-b']);
    const before = await spend(`?from=${from}&to=${new Date(NOW.getTime() - 2 * 86_400_000).toISOString()}`);
    expect(before.json()).toMatchObject({
      group_by: 'organization',
      groups: [{ key: 'acme', requests: 1, cost_usd: 5 }],
      total: { requests: 1, tokens: 5 },
    });
  });

  it("shows a tenant-bound key its tenant's calls only", async () => {
    const res = await spend('?group_by=client', { authorization: `Bearer ${euKey}` });
    expect(res.json().groups).toEqual([
      { key: 'app-a', requests: 2, tokens: 400, cost_usd: 1.75, unpriced_requests: 0 },
    ]);
  });

  it.each([
    { name: 'an unknown group_by', query: '?group_by=user', field: 'group_by' },
    { name: 'a repeated group_by', query: '?group_by=model&group_by=client', field: 'group_by' },
    { name: 'a from that is no RFC 3339 timestamp', query: '?from=yesterday', field: 'from' },
    { name: 'a to without a time zone', query: '?to=2026-07-01T00:00:00', field: 'to' },
    { name: 'from after to', query: '?from=2026-07-02T00:00:00Z&to=2026-07-01T00:00:00Z', field: 'from' },
    { name: 'a range over 93 days', query: '?from=2026-01-01T00:00:00Z&to=2026-04-05T00:00:00Z', field: 'to' },
  ])('answers 400 INVALID_REQUEST to $name', async ({ query, field }) => {
    const res = await spend(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
    expect(res.json().error).toMatch(new RegExp(`^${field} `));
  });

  it('takes a range of exactly 93 days, with time zone offsets', async () => {
    const res = await spend(`?from=2026-01-01T00:00:00${encodeURIComponent('+01:00')}&to=2026-04-04T00:00:00%2B01:00`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ from: '2025-12-31T23:00:00.000Z', to: '2026-04-03T23:00:00.000Z' });
  });
});
