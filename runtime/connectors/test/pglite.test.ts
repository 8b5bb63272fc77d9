import { afterAll, describe, expect, it } from 'vitest';
import type { ConnectorResource } from '../../../api/resources.js';
import { ConnectorError } from '../errors.js';
import { createConnector } from '../factory.js';
import type { Connector } from '../types.js';

const SEED = `
CREATE TABLE flights (flight_no text PRIMARY KEY, origin char(3), departure_date date, price_usd integer);
INSERT INTO flights SELECT 'XY ' || g, CASE WHEN g % 2 = 0 THEN 'SFO' ELSE 'JFK' END, date '2026-03-01' + g, 100 * g FROM generate_series(1, 30) g;
CREATE SCHEMA ops;
CREATE TABLE ops.crew (name text);
INSERT INTO ops.crew VALUES ('Ada');
`;

const doc = (spec: Partial<ConnectorResource['spec']> = {}): ConnectorResource => ({
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'Connector',
  metadata: { name: 'demo', namespace: 'default' },
  spec: { type: 'pglite', connection: {}, seed: SEED, allowedOperations: ['query'], ...spec },
});

const open: Connector[] = [];
const make = async (spec: Partial<ConnectorResource['spec']> = {}) => {
  const c = await createConnector(doc(spec), '');
  open.push(c);
  return c;
};
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

const limits = { timeoutMs: 20_000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };
/** What a call gets: its rows, or the failure's code, reason and message. */
const attempt = async (c: Connector, text: string, params: unknown[] = [], guarded = true) => {
  try {
    const prepared = guarded ? c.prepare(text, params) : { text, params };
    return { rows: (await c.query(prepared, limits)).rows };
  } catch (e) {
    const err = e as ConnectorError;
    return { code: err.code, reason: err.reason, message: err.message };
  }
};

// One database for the contract: every start is PGlite's initdb in memory, seconds of CPU.
const demo = await make();

describe('pglite connector', () => {
  it('answers rows of the seeded tables with $1 params, columns and the parsed statement', async () => {
    const res = await demo.query(
      demo.prepare(
        'SELECT flight_no, departure_date, price_usd FROM flights WHERE origin = $1 AND price_usd < $2 ORDER BY price_usd',
        ['SFO', 700],
      ),
      limits,
    );
    expect(res.rows).toEqual([
      { flight_no: 'XY 2', departure_date: '2026-03-03', price_usd: 200 },
      { flight_no: 'XY 4', departure_date: '2026-03-05', price_usd: 400 },
      { flight_no: 'XY 6', departure_date: '2026-03-07', price_usd: 600 },
    ]);
    expect(res.columns).toEqual(['flight_no', 'departure_date', 'price_usd']);
    expect(res.sql).toEqual({ operation: 'select', tables: ['public.flights'], limit: null });
  });

  it('answers bigint as text, as the postgres kind does, so that no precision is lost', async () => {
    expect(await attempt(demo, 'SELECT count(*) AS n, CAST(9007199254740993 AS bigint) AS big FROM flights')).toEqual({
      rows: [{ n: '30', big: '9007199254740993' }],
    });
  });

  it('reads every schema the seed made', async () => {
    expect(await attempt(demo, 'SELECT name FROM ops.crew')).toEqual({ rows: [{ name: 'Ada' }] });
  });

  it('cuts rows at maxRows with the truncated flag (the forced LIMIT fetches one more)', async () => {
    const c = await make({ options: { maxRows: 5 } });
    const prepared = c.prepare('SELECT flight_no FROM flights', []);
    expect(prepared.text).toMatch(/LIMIT 6$/);
    const res = await demo.query(prepared, { ...limits, maxRows: 5 });
    expect(res.row_count).toBe(5);
    expect(res.truncated).toBe(true);
  });

  it('runs the query tool on the same path as a query', async () => {
    const res = await demo.execute(
      'query',
      { statement: 'SELECT flight_no FROM flights WHERE flight_no = $1', params: ['XY 7'] },
      limits,
    );
    expect(res.result).toEqual({ rows: [{ flight_no: 'XY 7' }], row_count: 1, columns: ['flight_no'] });
    expect(demo.tools()).toEqual([expect.objectContaining({ name: 'query', writes: false })]);
  });

  it.each([
    { name: 'INSERT', sql: "INSERT INTO flights VALUES ('ZZ 1', 'SFO', '2026-04-01', 1)", reason: 'NOT_READ_ONLY' },
    { name: 'DROP', sql: 'DROP TABLE flights', reason: 'NOT_READ_ONLY' },
    { name: 'a stacked statement', sql: 'SELECT 1; DROP TABLE flights', reason: 'STACKED_QUERIES' },
    { name: 'set_config', sql: "SELECT set_config('transaction_read_only', 'off', false)", reason: 'DENIED_FUNCTION' },
  ])('refuses $name in the SQL guard with SQL_REFUSED $reason', async ({ sql, reason }) => {
    expect(await attempt(demo, sql)).toMatchObject({ code: 'SQL_REFUSED', reason });
  });

  it.each([
    { name: 'an INSERT', sql: "INSERT INTO flights VALUES ('ZZ 1', 'SFO', '2026-04-01', 1)" },
    { name: 'an UPDATE', sql: 'UPDATE flights SET price_usd = 1' },
    { name: 'a DELETE', sql: 'DELETE FROM flights' },
    { name: 'a DROP', sql: 'DROP TABLE flights' },
    { name: 'a CREATE TABLE', sql: 'CREATE TABLE t (x int)' },
    { name: 'a temporary table', sql: 'CREATE TEMP TABLE t (x int)' },
    { name: 'set_config on the session', sql: "SELECT set_config('transaction_read_only', 'off', false)" },
  ])('refuses $name in the database itself when the guard is bypassed', async ({ sql }) => {
    expect(await attempt(demo, sql, [], false)).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
    expect(await attempt(demo, 'SELECT count(*) AS n FROM flights')).toEqual({ rows: [{ n: '30' }] });
  });

  it.each(['clients', 'audit_entries', 'precheck_contexts'])(
    "finds no %s: Steward's own tables are in another database",
    async (table) => {
      expect(await attempt(demo, `SELECT * FROM ${table}`)).toMatchObject({
        code: 'CONNECTOR_QUERY_FAILED',
        message: expect.stringContaining(`relation "${table}" does not exist`),
      });
    },
  );

  it('answers out of memory for a statement that would grow the database past its memory cap, and goes on', async () => {
    const res = await attempt(
      demo,
      "SELECT length(string_agg(repeat('x', 1000000), '')) AS n FROM generate_series(1, 600)",
    );
    expect(res).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED', message: expect.stringContaining('out of memory') });
    expect(await attempt(demo, "SELECT flight_no FROM flights WHERE flight_no = 'XY 1'")).toEqual({
      rows: [{ flight_no: 'XY 1' }],
    });
  });

  it('bounds what a query may spill to temporary files', async () => {
    const res = await attempt(
      demo,
      'SELECT count(*) AS n FROM (SELECT g FROM generate_series(1, 3000000) g ORDER BY g DESC) s',
    );
    expect(res).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED', message: expect.stringContaining('temp_file_limit') });
  });

  it('stops a query at its timeout without stalling the event loop, then serves the next one from a fresh start', async () => {
    const c = await make();
    expect(await attempt(c, 'SELECT count(*) AS n FROM flights')).toEqual({ rows: [{ n: '30' }] });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    const slow = c.prepare(
      "SELECT count(*) AS n FROM generate_series(1, 300000) g WHERE md5(repeat(CAST(g AS text), 2000)) = 'x'",
      [],
    );
    const err = await c.query(slow, { ...limits, timeoutMs: 500 }).catch((e: unknown) => e as ConnectorError);
    clearInterval(ticker);
    expect(err).toMatchObject({ code: 'CONNECTOR_TIMEOUT' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(ticks).toBeGreaterThan(20);
    expect(await attempt(c, 'SELECT count(*) AS n FROM flights')).toEqual({ rows: [{ n: '30' }] });
  }, 60_000);

  it("counts a call's timeoutMs from the end of the start, which takes longer than it", async () => {
    const c = await make();
    // NB: a start (initdb in memory, then the seed) takes about two seconds of CPU here
    expect(await c.query(c.prepare('SELECT 1 AS one', []), { ...limits, timeoutMs: 500 })).toMatchObject({
      rows: [{ one: 1 }],
    });
  }, 60_000);

  it('reports healthy before its first query without starting, and after', async () => {
    const c = await make();
    const before = await c.health(2000);
    expect(before).toMatchObject({ ok: true });
    expect(before.latencyMs).toBeLessThan(50);
    await attempt(c, 'SELECT 1 AS one');
    expect(await c.health(2000)).toMatchObject({ ok: true });
  }, 60_000);

  it('fails calls with CONNECTOR_UNAVAILABLE and reports unhealthy when the seed fails', async () => {
    const c = await make({ seed: 'CREATE TABLE flights (x int); INSERT INTO flights VALUES (1, 2, 3);' });
    const res = await attempt(c, 'SELECT x FROM flights');
    expect(res).toMatchObject({
      code: 'CONNECTOR_UNAVAILABLE',
      message: expect.stringContaining('spec.seed failed: INSERT has more expressions than target columns'),
    });
    expect(await c.health(2000)).toMatchObject({ ok: false, error: expect.stringContaining('spec.seed failed') });
  }, 60_000);

  it("does not let the seed's session settings or open transaction reach the queries", async () => {
    const c = await make({
      seed: 'BEGIN; CREATE SCHEMA ops; CREATE TABLE ops.flights (x int); CREATE TABLE flights (x int); INSERT INTO flights VALUES (1); SET standard_conforming_strings = off; SET search_path = ops; SET ROLE pg_read_all_data;',
    });
    const settings =
      "SELECT current_user AS role, current_setting('standard_conforming_strings') AS scs, current_setting('search_path') AS path";
    expect(await attempt(c, settings, [], false)).toEqual({
      rows: [{ role: 'steward_reader', scs: 'on', path: 'public' }],
    });
    // unqualified names are the default schema's, as the guard reads them; the seed was committed
    expect(await attempt(c, 'SELECT x FROM flights')).toEqual({ rows: [{ x: 1 }] });
    expect(await attempt(c, 'SELECT * FROM nowhere')).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
    expect(await attempt(c, 'SELECT x FROM flights')).toEqual({ rows: [{ x: 1 }] });
  }, 60_000);

  it.each([
    { name: 'without a seed', spec: { seed: undefined }, message: 'spec.seed is required' },
    { name: 'read-write', spec: { options: { readOnly: false } }, message: 'spec.options.readOnly' },
  ])('is misconfigured $name', async ({ spec, message }) => {
    await expect(createConnector(doc(spec), '')).rejects.toThrow(
      expect.objectContaining({ code: 'CONNECTOR_MISCONFIGURED', message: expect.stringContaining(message) }),
    );
  });
});
