import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../testing/db.js';
import type { Db, Queryable } from './db.js';
import { GroupInsert } from './group-insert.js';

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
      const gi = new GroupInsert(counting, { table: 'gi', columns: ['id', 'v'] });
      await Promise.all(Array.from({ length: 100 }, (_, i) => gi.insert([i, `row ${i}`])));
      expect(statements.length).toBeLessThan(10);
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM gi');
      expect(Number(rows[0]!.n)).toBe(100);
    });

    it('fails only the bad row of a batch', async () => {
      const gi = new GroupInsert(db, { table: 'gi', columns: ['id', 'v'] });
      const results = await Promise.allSettled([gi.insert([1000, 'ok']), gi.insert([1001, null]), gi.insert([1002, 'ok'])]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const { rows } = await db.query<{ id: number }>('SELECT id FROM gi WHERE id >= 1000 ORDER BY id');
      expect(rows.map((r) => Number(r.id))).toEqual([1000, 1002]);
    });

    it('refuses a row with the wrong number of values', async () => {
      const gi = new GroupInsert(db, { table: 'gi', columns: ['id', 'v'] });
      await expect(gi.insert([1])).rejects.toThrow('expected 2 values');
    });
  });
}
