import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type LedgerCharge, type Store } from '../index.js';

const JULY = new Date('2026-06-30T23:00:00Z');
const AUGUST = new Date('2026-07-31T23:00:00Z');
const charge = (over: Partial<LedgerCharge> = {}): LedgerCharge => ({
  ledger: 'ns/team',
  bucket: JULY,
  from: JULY,
  limitTokens: 1000,
  block: true,
  ...over,
});
const LATER = new Date('2030-01-01T00:00:00Z');

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`budget ledgers on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let store: Store;

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

    it('reserves while the limit holds, refuses the call that would overrun it, and settles what was used', async () => {
      const first = await store.budgets.reserve('c1', [charge()], { micros: 0, tokens: 600 }, LATER);
      expect(first).toEqual([
        { ledger: 'ns/team', spentMicros: 0, spentTokens: 0, reservedMicros: 0, reservedTokens: 600, fits: true },
      ]);
      const second = await store.budgets.reserve('c2', [charge()], { micros: 0, tokens: 600 }, LATER);
      expect(second[0]).toMatchObject({ reservedTokens: 600, fits: false });
      // the refused call left nothing behind
      expect(await store.budgets.settle('c2', { micros: 0, tokens: 600 })).toEqual([]);
      const settled = await store.budgets.settle('c1', { micros: 0, tokens: 150 });
      expect(settled).toEqual([{ ledger: 'ns/team', bucket: JULY, spentMicros: 0, spentTokens: 150 }]);
      // settling twice charges once
      expect(await store.budgets.settle('c1', { micros: 0, tokens: 150 })).toEqual([]);
      const third = await store.budgets.reserve('c3', [charge()], { micros: 0, tokens: 600 }, LATER);
      expect(third[0]).toMatchObject({ spentTokens: 150, reservedTokens: 600, fits: true });
    });

    it('charges usage beyond the reservation', async () => {
      await store.budgets.reserve('c1', [charge()], { micros: 10, tokens: 100 }, LATER);
      const [s] = await store.budgets.settle('c1', { micros: 45, tokens: 900 });
      expect(s).toMatchObject({ spentMicros: 45, spentTokens: 900 });
    });

    it('reserves on every ledger or on none: one blocking ledger that cannot hold the call refuses it', async () => {
      const org = charge({ ledger: 'ns/org', limitTokens: 10_000 });
      const client = charge({ ledger: 'ns/client', limitTokens: 100 });
      const r = await store.budgets.reserve('c1', [client, org], { micros: 0, tokens: 500 }, LATER);
      expect(r.map((t) => [t.ledger, t.fits, t.reservedTokens])).toEqual([
        ['ns/client', false, 0],
        ['ns/org', true, 0],
      ]);
      // a warn ledger past its limit does not refuse: the call is reserved everywhere and reported unfit there
      const warn = await store.budgets.reserve(
        'c2',
        [{ ...client, block: false }, org],
        { micros: 0, tokens: 500 },
        LATER,
      );
      expect(warn.map((t) => [t.ledger, t.fits, t.reservedTokens])).toEqual([
        ['ns/client', false, 500],
        ['ns/org', true, 500],
      ]);
    });

    it('counts a new window from zero, and a rolling window over its buckets', async () => {
      await store.budgets.reserve('c1', [charge()], { micros: 0, tokens: 900 }, LATER);
      await store.budgets.settle('c1', { micros: 0, tokens: 900 });
      const august = await store.budgets.reserve(
        'c2',
        [charge({ bucket: AUGUST, from: AUGUST })],
        { micros: 0, tokens: 900 },
        LATER,
      );
      expect(august[0]).toMatchObject({ spentTokens: 0, fits: true });
      // a rolling window from July's bucket to August's counts both
      const rolling = await store.budgets.reserve(
        'c3',
        [charge({ bucket: AUGUST, from: JULY, limitTokens: 2000 })],
        { micros: 0, tokens: 100 },
        LATER,
      );
      expect(rolling[0]).toMatchObject({ spentTokens: 900, reservedTokens: 1000, fits: true });
    });

    it('charges an expired reservation in full, once', async () => {
      await store.budgets.reserve('crashed', [charge()], { micros: 7, tokens: 300 }, new Date('2026-07-01T00:00:00Z'));
      await store.budgets.reserve('alive', [charge()], { micros: 1, tokens: 100 }, LATER);
      expect(await store.budgets.expire(new Date('2026-07-02T00:00:00Z'))).toBe(1);
      expect(await store.budgets.expire(new Date('2026-07-02T00:00:00Z'))).toBe(0);
      const totals = await store.budgets.totals([{ ledger: 'ns/team', from: JULY, to: JULY }]);
      expect(totals.get('ns/team')).toEqual([
        { ledger: 'ns/team', spentMicros: 7, spentTokens: 300, reservedMicros: 1, reservedTokens: 100, fits: true },
      ]);
      // the crashed call settling late finds nothing: it was charged already
      expect(await store.budgets.settle('crashed', { micros: 1, tokens: 1 })).toEqual([]);
    });

    it('marks a threshold fired once per bucket', async () => {
      await store.budgets.reserve('c1', [charge()], { micros: 0, tokens: 1 }, LATER);
      expect(await store.budgets.markFired('ns/team', JULY, 80)).toBe(true);
      expect(await store.budgets.markFired('ns/team', JULY, 80)).toBe(false);
      expect(await store.budgets.markFired('ns/team', JULY, 100)).toBe(true);
    });

    it('totals every ledger of a prefix (spec.each)', async () => {
      for (const c of ['a', 'b']) {
        await store.budgets.reserve(c, [charge({ ledger: `ns/each#${c}` })], { micros: 0, tokens: 10 }, LATER);
        await store.budgets.settle(c, { micros: 0, tokens: c === 'a' ? 10 : 20 });
      }
      const totals = await store.budgets.totals([{ ledger: 'ns/each#', from: JULY, to: JULY, prefix: true }]);
      expect(
        totals
          .get('ns/each#')
          ?.map((t) => [t.ledger, t.spentTokens])
          .sort(),
      ).toEqual([
        ['ns/each#a', 10],
        ['ns/each#b', 20],
      ]);
    });

    it('holds under concurrency: 50 calls of 100 tokens against 1,000 reserve exactly 10', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.budgets.reserve(`c${i}`, [charge()], { micros: 0, tokens: 100 }, LATER),
        ),
      );
      expect(results.filter((r) => r[0]!.fits).length).toBe(10);
      const totals = await store.budgets.totals([{ ledger: 'ns/team', from: JULY, to: JULY }]);
      expect(totals.get('ns/team')?.[0]?.reservedTokens).toBe(1000);
    });
  });
}
