import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../testing/db.js';
import type { Db, Queryable } from './db.js';
import { column, GroupInsert } from './group-insert.js';

const GI = { id: column.numberOrNull, v: column.textOrNull };

for (const backend of testBackends()) {
  (backend.skip ? describe.skip : describe)(`GroupInsert on ${backend.name}`, () => {
    let db: Db;
    const statements: string[] = [];
    let counting: Queryable;

    beforeAll(async () => {
      db = await backend.open();
      await db.exec('CREATE TABLE gi (id integer PRIMARY KEY, v text NOT NULL)');
      counting = {
        query: (sql, params) => {
          statements.push(sql);
          return db.query(sql, params);
        },
        exec: (sql) => db.exec(sql),
      };
    });
    afterAll(async () => {
      await db?.close();
    });

    it('writes rows that arrive together in fewer statements, each committed when its promise resolves', async () => {
      statements.length = 0;
      const gi = new GroupInsert(counting, { table: 'gi', columns: GI });
      await Promise.all(Array.from({ length: 100 }, (_, i) => gi.insert({ id: i, v: `row ${i}` })));
      expect(statements.length).toBeLessThan(10);
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM gi');
      expect(Number(rows[0]!.n)).toBe(100);
    });

    // PGlite runs in process: nothing to prepare there.
    if (backend.name === 'postgres') {
      it('runs its statement prepared: parsed and planned once per connection', async () => {
        await db.exec('CREATE TABLE gi_prepared (id integer PRIMARY KEY, v text NOT NULL)');
        const prepared = await db.session(async (s) => {
          const gi = new GroupInsert(s, { table: 'gi_prepared', columns: GI });
          await gi.insert({ id: 1, v: 'first' });
          await gi.insert({ id: 2, v: 'second' });
          return (await s.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows;
        });
        expect(prepared.filter((r) => r.statement.includes('json_populate_recordset(NULL::gi_prepared,'))).toHaveLength(
          1,
        );
      });
    }

    it('fails only the bad row of a batch', async () => {
      const gi = new GroupInsert(db, { table: 'gi', columns: GI });
      const results = await Promise.allSettled([
        gi.insert({ id: 1000, v: 'ok' }),
        gi.insert({ id: 1001, v: null }),
        gi.insert({ id: 1002, v: 'ok' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const { rows } = await db.query<{ id: number }>('SELECT id FROM gi WHERE id >= 1000 ORDER BY id');
      expect(rows.map((r) => Number(r.id))).toEqual([1000, 1002]);
    });

    it('stores JSON values by column type: jsonb documents, timestamps from Dates, booleans, numbers, null', async () => {
      await db.exec(
        'CREATE TABLE gi_types (id text PRIMARY KEY, doc jsonb NOT NULL, at timestamptz NOT NULL, ok boolean, n double precision, t text)',
      );
      const gi = new GroupInsert(db, {
        table: 'gi_types',
        columns: {
          id: column.text,
          doc: column.json,
          at: column.timestamp,
          ok: column.boolean,
          n: column.numberOrNull,
          t: column.textOrNull,
        },
      });
      const at = new Date('2026-11-21T07:00:00.123Z');
      await gi.insert({ id: 'a', doc: { tags: ['x', 'y'], nested: { k: 1 } }, at, ok: true, n: 1.5, t: null });
      await gi.insert({
        id: 'b',
        doc: ['p1', 'p2'],
        at,
        ok: false,
        n: -3,
        t: 'quote " backslash \\ newline \n tab \t',
      });
      const { rows } = await db.query<{
        id: string;
        doc: unknown;
        at: Date | string;
        ok: boolean;
        n: number;
        t: string | null;
      }>('SELECT * FROM gi_types ORDER BY id');
      expect(rows.map((r) => ({ ...r, at: new Date(r.at).toISOString(), n: Number(r.n) }))).toEqual([
        { id: 'a', doc: { tags: ['x', 'y'], nested: { k: 1 } }, at: at.toISOString(), ok: true, n: 1.5, t: null },
        {
          id: 'b',
          doc: ['p1', 'p2'],
          at: at.toISOString(),
          ok: false,
          n: -3,
          t: 'quote " backslash \\ newline \n tab \t',
        },
      ]);
    });

    it('stores a lone surrogate and NUL as U+FFFD instead of failing the row', async () => {
      const gi = new GroupInsert(db, { table: 'gi', columns: GI });
      await Promise.all([
        gi.insert({ id: 2000, v: 'broken \ud800 pair' }),
        gi.insert({ id: 2001, v: 'nul \u0000 byte' }),
        gi.insert({ id: 2002, v: 'C:\\users é 😀' }),
      ]);
      const { rows } = await db.query<{ v: string }>('SELECT v FROM gi WHERE id >= 2000 ORDER BY id');
      expect(rows.map((r) => r.v)).toEqual(['broken \ufffd pair', 'nul \ufffd byte', 'C:\\users é 😀']);
    });

    it('leaves out keys that are not columns and stores a missing key as NULL', async () => {
      const gi = new GroupInsert(db, { table: 'gi', columns: GI });
      await gi.insert({ id: 3000, v: 'kept', extra: 'dropped' });
      await expect(gi.insert({ id: 3001 })).rejects.toThrow(/null value in column "v"/);
      const { rows } = await db.query<{ v: string }>('SELECT v FROM gi WHERE id >= 3000 ORDER BY id');
      expect(rows.map((r) => r.v)).toEqual(['kept']);
    });
  });
}
