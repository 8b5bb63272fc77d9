import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.js';
import type { Identity } from './identity.js';
import { mayAccess, tenantFilter, tenantSql, tenantsForWrite } from './scope.js';

const org = (extra: Partial<Identity> = {}): Identity => ({
  credential: 'license-key',
  organizationId: 'acme',
  tier: 'ENT',
  ...extra,
});
const CALLERS: Record<string, Identity> = {
  'organization-wide': org(),
  'narrowed to t1': org({ tenantId: 't1' }),
  'bound to t1': org({ credential: 'api-key', tenantId: 't1', boundTenantId: 't1' }),
  'bound to t2': org({ credential: 'api-key', tenantId: 't2', boundTenantId: 't2' }),
  'another organization': org({ organizationId: 'globex' }),
};
const OBJECTS = { 'organization-wide': [], t1: ['t1'], t2: ['t2'], 't1 and t2': ['t1', 't2'] } as const;

describe('mayAccess', () => {
  it.each([
    ['organization-wide', 'organization-wide', true],
    ['organization-wide', 't1', true],
    ['narrowed to t1', 'organization-wide', true],
    ['narrowed to t1', 't1', true],
    ['narrowed to t1', 't2', false],
    ['narrowed to t1', 't1 and t2', true],
    ['bound to t1', 'organization-wide', false],
    ['bound to t1', 't1', true],
    ['bound to t1', 't1 and t2', false],
    ['bound to t2', 't1', false],
    ['another organization', 'organization-wide', false],
  ] as const)('%s caller, %s object → %s', (caller, object, expected) => {
    expect(mayAccess(CALLERS[caller]!, { organizationId: 'acme', tenants: OBJECTS[object] })).toBe(expected);
  });
});

describe('tenantsForWrite', () => {
  it("scopes a bound key's objects to its tenant and refuses any other scope", () => {
    const bound = CALLERS['bound to t1']!;
    expect(tenantsForWrite(bound, undefined, 'plan')).toEqual(['t1']);
    expect(tenantsForWrite(bound, ['t1'], 'plan')).toEqual(['t1']);
    for (const other of [['t2'], ['t1', 't2'], []])
      expect(() => tenantsForWrite(bound, other, 'plan')).toThrow(/cannot scope/);
  });

  it("scopes a narrowed caller's objects to the narrowed tenant, and lets an organization-wide one choose", () => {
    expect(tenantsForWrite(CALLERS['narrowed to t1']!, ['t2'], 'plan')).toEqual(['t1']);
    expect(tenantsForWrite(CALLERS['organization-wide']!, ['t2'], 'plan')).toEqual(['t2']);
    expect(tenantsForWrite(CALLERS['organization-wide']!, undefined, 'plan')).toBeUndefined();
  });
});

describe('tenantSql', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({});
  });
  afterAll(async () => {
    await store?.close();
  });

  it('selects, for every caller, exactly the single-tenant and organization-wide objects mayAccess admits', async () => {
    const rows = [null, 't1', 't2'];
    for (const [name, identity] of Object.entries(CALLERS)) {
      if (identity.organizationId !== 'acme') continue;
      const f = tenantFilter(identity);
      const { rows: got } = await store.db.query<{ t: string | null }>(
        `SELECT t FROM unnest($3::text[]) AS x(t) WHERE ${tenantSql('t', '$1', '$2')} ORDER BY t NULLS FIRST`,
        [f.bound, f.narrowed, rows],
      );
      const expected = rows.filter((t) =>
        mayAccess(identity, { organizationId: 'acme', tenants: t === null ? [] : [t] }),
      );
      expect(
        got.map((r) => r.t),
        name,
      ).toEqual(expected);
    }
  });
});
