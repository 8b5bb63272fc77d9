import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../testing/eventually.js';
import { EmbeddedDatabase, type EmbeddedDatabaseOptions } from './database.js';

const SEED = 'CREATE TABLE t (x int); INSERT INTO t VALUES (1), (2);';
const open: EmbeddedDatabase[] = [];
const database = (opts: Partial<EmbeddedDatabaseOptions> = {}) => {
  const db = new EmbeddedDatabase({ name: 'demo', seed: SEED, ...opts });
  open.push(db);
  return db;
};
afterAll(async () => {
  await Promise.all(open.map((db) => db.close()));
});

describe('EmbeddedDatabase', () => {
  it('starts on the first query, not before, and stops after idleStopMs without one', async () => {
    const db = database({ idleStopMs: 300 });
    await db.ping();
    expect(db.started).toBe(false);
    expect(await db.run('SELECT x FROM t ORDER BY x', []).result).toEqual({
      rows: [{ x: 1 }, { x: 2 }],
      columns: ['x'],
    });
    expect(db.started).toBe(true);
    await eventually(() => expect(db.started).toBe(false), 5000);
    expect((await db.run('SELECT count(*) AS n FROM t', []).result).rows).toEqual([{ n: '2' }]);
  }, 60_000);

  it('takes a query that timed out while it waited out of the queue, and the others still run', async () => {
    const db = database();
    const first = db.run('SELECT 1 AS one', []);
    const second = db.run('SELECT 2 AS two', []);
    second.cancel();
    await expect(second.result).rejects.toMatchObject({ code: 'CONNECTOR_TIMEOUT' });
    expect((await first.result).rows).toEqual([{ one: 1 }]);
    expect(db.started).toBe(true);
  }, 60_000);

  it('answers PostgreSQL errors with their SQLSTATE', async () => {
    const db = database();
    await expect(db.run('SELECT * FROM nowhere', []).result).rejects.toMatchObject({
      code: '42P01',
      message: 'relation "nowhere" does not exist',
    });
  }, 60_000);

  it('does not run a failing seed again on every query', async () => {
    const db = database({ seed: 'CREATE TABLE t (' });
    await expect(db.run('SELECT 1', []).result).rejects.toMatchObject({
      code: 'CONNECTOR_UNAVAILABLE',
      message: expect.stringContaining('spec.seed failed'),
    });
    const started = performance.now();
    await expect(db.run('SELECT 1', []).result).rejects.toMatchObject({
      code: 'CONNECTOR_UNAVAILABLE',
      message: expect.stringContaining('spec.seed failed'),
    });
    expect(performance.now() - started).toBeLessThan(200);
    expect(db.started).toBe(false);
    await expect(db.ping()).rejects.toMatchObject({ code: 'CONNECTOR_UNAVAILABLE' });
  }, 60_000);

  it("settles a call's `started` once the database is up, before its answer", async () => {
    const db = database();
    const order: string[] = [];
    const call = db.run('SELECT 1 AS one', []);
    await Promise.all([call.started.then(() => order.push('started')), call.result.then(() => order.push('answered'))]);
    expect(order).toEqual(['started', 'answered']);
    const next = db.run('SELECT 2 AS two', []);
    await next.started;
    expect((await next.result).rows).toEqual([{ two: 2 }]);
  }, 60_000);

  it('fails a start that takes longer than startTimeoutMs', async () => {
    const db = database({ startTimeoutMs: 50 });
    const call = db.run('SELECT 1', []);
    await call.started;
    await expect(call.result).rejects.toMatchObject({
      code: 'CONNECTOR_UNAVAILABLE',
      message: expect.stringContaining('no answer within 50 ms'),
    });
    expect(db.started).toBe(false);
  });

  it('rejects queued queries when closed', async () => {
    const db = database();
    const queued = expect(db.run('SELECT 1', []).result).rejects.toMatchObject({
      code: 'CONNECTOR_UNAVAILABLE',
      message: 'the connector is closed',
    });
    await db.close();
    await queued;
    await expect(db.run('SELECT 1', []).result).rejects.toMatchObject({ code: 'CONNECTOR_UNAVAILABLE' });
  });
});
