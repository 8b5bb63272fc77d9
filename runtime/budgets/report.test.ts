import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Budget, type BudgetResource } from '../../api/index.js';
import { testBackends } from '../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../store/index.js';
import { budgetStates } from './report.js';
import { budgetWindowOf } from './window-of.js';
import { windowSpan } from './windows.js';

const NOW = new Date('2026-07-15T10:30:00Z');
const HOUR_MS = 3_600_000;
const LATER = new Date('2030-01-01T00:00:00Z');

const budget = (name: string, spec: Record<string, unknown>): BudgetResource =>
  Budget.resource.parse({ apiVersion: 'steward.dev/v1alpha1', kind: 'Budget', metadata: { name }, spec });

const DOCS = [
  budget('team', {
    scope: { organization: 'acme' },
    limit: { usd: 2, tokens: 1000 },
    window: { period: 'month', timeZone: 'UTC' },
  }),
  budget('per-client', {
    each: 'client',
    limit: { tokens: 500 },
    window: { period: 'day', timeZone: 'Europe/Lisbon' },
  }),
  budget('globex', { scope: { organization: 'globex' }, limit: { tokens: 10 }, window: { period: 'day' } }),
  budget('per-org', { each: 'organization', limit: { usd: 1 }, window: { period: 'week' }, action: 'warn' }),
  budget('eu', { scope: { tenant: 'eu' }, limit: { tokens: 100 }, window: { hours: 3 } }),
  budget('acme-clients', {
    scope: { organization: 'acme' },
    each: 'client',
    limit: { tokens: 50 },
    window: { period: 'day' },
  }),
];
const byName = (name: string) => DOCS.find((d) => d.metadata.name === name)!;

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`budget states on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let store: Store;
    let n = 0;

    /** Settles a call of `doc` (the ledger of `value` with spec.each), charged at `at`. */
    const spend = async (
      name: string,
      used: { micros?: number; tokens: number },
      o: { value?: string; at?: Date } = {},
    ) => {
      const doc = byName(name);
      const span = windowSpan(budgetWindowOf(doc.spec.window), o.at ?? NOW);
      const ledger = `default/${name}${o.value === undefined ? '' : `#${o.value}`}`;
      const id = `call-${n++}`;
      await store.budgets.reserve(
        id,
        [{ ledger, bucket: span.bucket, from: span.from, block: false }],
        { micros: 0, tokens: 0 },
        LATER,
      );
      await store.budgets.settle(id, { micros: used.micros ?? 0, tokens: used.tokens });
    };
    const hold = async (name: string, held: { micros?: number; tokens: number }) => {
      const span = windowSpan(budgetWindowOf(byName(name).spec.window), NOW);
      const ledger = `default/${name}`;
      await store.budgets.reserve(
        `held-${n++}`,
        [{ ledger, bucket: span.bucket, from: span.from, block: false }],
        { micros: held.micros ?? 0, tokens: held.tokens },
        LATER,
      );
    };
    const catalogue = { list: () => DOCS };
    const states = async (filter?: { organization?: string; tenant?: string }) =>
      Object.fromEntries((await budgetStates(catalogue, store.budgets, NOW, filter)).map((s) => [s.name, s]));

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
      store = storeOn(db);
    });
    afterAll(async () => {
      await db?.close();
    });
    beforeEach(async () => {
      await db.query('DELETE FROM budget_buckets');
      await db.query('DELETE FROM budget_reservations');
    });

    it('reports each budget with its window, what it spent and holds, and what is left', async () => {
      await spend('team', { micros: 500_000, tokens: 300 });
      await hold('team', { micros: 250_000, tokens: 100 });
      const s = await states();
      expect(Object.keys(s)).toEqual(['team', 'per-client', 'globex', 'per-org', 'eu', 'acme-clients']);
      expect(s.team).toEqual({
        name: 'team',
        namespace: 'default',
        scope: { organization: 'acme' },
        action: 'block',
        limit: { usd: 2, tokens: 1000 },
        window: { period: 'month', timeZone: 'UTC' },
        windowStart: new Date('2026-07-01T00:00:00Z'),
        windowEnds: new Date('2026-08-01T00:00:00Z'),
        spent: { usd: 0.5, tokens: 300 },
        reserved: { usd: 0.25, tokens: 100 },
        remaining: { usd: 1.25, tokens: 600 },
      });
      // a budget nothing was charged to has its whole limit left
      expect(s.globex).toMatchObject({ spent: { usd: 0, tokens: 0 }, remaining: { tokens: 10 } });
      expect(s.globex!.remaining).not.toHaveProperty('usd');
    });

    it('never reports less than nothing left', async () => {
      await spend('team', { micros: 3_000_000, tokens: 1200 });
      expect((await states()).team!.remaining).toEqual({ usd: 0, tokens: 0 });
    });

    it('counts only the current window: last month, and the hours a rolling window has left behind, do not count', async () => {
      await spend('team', { tokens: 700 }, { at: new Date('2026-06-30T23:00:00Z') });
      await spend('eu', { tokens: 40 }, { at: new Date(NOW.getTime() - 4 * HOUR_MS) });
      await spend('eu', { tokens: 30 }, { at: new Date(NOW.getTime() - 2 * HOUR_MS) });
      await spend('eu', { tokens: 5 });
      const s = await states();
      expect(s.team!.spent.tokens).toBe(0);
      expect(s.eu).toMatchObject({
        spent: { tokens: 35 },
        remaining: { tokens: 65 },
        windowStart: new Date('2026-07-15T08:00:00Z'),
        windowEnds: new Date('2026-07-15T11:00:00Z'),
      });
    });

    it('with spec.each reports the fullest ledger, how many values spent, and the ten that spent most', async () => {
      await spend('per-client', { tokens: 100 }, { value: 'app-a' });
      await spend('per-client', { tokens: 400 }, { value: 'app-b' });
      await spend('per-client', { tokens: 50 }, { value: 'app-c' });
      for (let i = 0; i < 10; i++) await spend('per-client', { tokens: 1 }, { value: `tiny-${i}` });
      const s = (await states())['per-client']!;
      expect(s).toMatchObject({
        each: 'client',
        spent: { tokens: 400 },
        remaining: { tokens: 100 },
        ledgers: 13,
        // Lisbon is on summer time (UTC+1): its day began at 23:00 UTC
        windowStart: new Date('2026-07-14T23:00:00Z'),
      });
      expect(s.top).toHaveLength(10);
      expect(s.top!.slice(0, 4)).toEqual([
        { value: 'app-b', spent: { usd: 0, tokens: 400 }, reserved: { usd: 0, tokens: 0 } },
        { value: 'app-a', spent: { usd: 0, tokens: 100 }, reserved: { usd: 0, tokens: 0 } },
        { value: 'app-c', spent: { usd: 0, tokens: 50 }, reserved: { usd: 0, tokens: 0 } },
        { value: 'tiny-0', spent: { usd: 0, tokens: 1 }, reserved: { usd: 0, tokens: 0 } },
      ]);
      // nothing charged yet: no ledger, the whole limit left
      expect((await states())['per-org']).toMatchObject({ ledgers: 0, top: [], remaining: { usd: 1 } });
    });

    it('shows an organization its own budgets, its own ledger of a budget kept per organization, and its clients', async () => {
      await spend('per-org', { micros: 900_000, tokens: 10 }, { value: 'globex' });
      await spend('per-org', { micros: 100_000, tokens: 10 }, { value: 'acme' });
      await spend('per-client', { tokens: 100 }, { value: 'globex-app' });
      await spend('acme-clients', { tokens: 20 }, { value: 'app-a' });
      const s = await states({ organization: 'acme' });
      expect(Object.keys(s)).toEqual(['team', 'per-client', 'per-org', 'eu', 'acme-clients']);
      expect(s['per-org']).toMatchObject({
        spent: { usd: 0.1 },
        remaining: { usd: 0.9 },
        ledgers: 1,
        top: [{ value: 'acme', spent: { usd: 0.1, tokens: 10 } }],
      });
      // a budget per client of every organization names none of them to one organization
      expect(s['per-client']).toMatchObject({ ledgers: 1 });
      expect(s['per-client']).not.toHaveProperty('top');
      expect(s['acme-clients']!.top).toEqual([
        { value: 'app-a', spent: { usd: 0, tokens: 20 }, reserved: { usd: 0, tokens: 0 } },
      ]);
    });

    it("shows a tenant the budgets of its tenant and the organization's, and no other tenant's client", async () => {
      await spend('acme-clients', { tokens: 20 }, { value: 'app-a' });
      const us = await states({ organization: 'acme', tenant: 'us' });
      expect(Object.keys(us)).toEqual(['team', 'per-client', 'per-org', 'acme-clients']);
      expect(us['acme-clients']).toMatchObject({ spent: { tokens: 20 }, remaining: { tokens: 30 }, ledgers: 1 });
      expect(us['acme-clients']).not.toHaveProperty('top');
      expect(Object.keys(await states({ organization: 'acme', tenant: 'eu' }))).toContain('eu');
    });

    it('asks the ledgers once for every budget', async () => {
      const totals = vi.spyOn(store.budgets, 'totals');
      await states();
      expect(totals).toHaveBeenCalledTimes(1);
      expect(totals.mock.calls[0]![0]).toHaveLength(DOCS.length);
      totals.mockRestore();
    });
  });
}
