import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.js';
import { createConnector } from '../factory.js';
import { lexSql } from '../sql/lexer.js';
import type { Connector } from '../types.js';
import { PG_URL, connectorDoc, eventually, runId } from './fixtures.js';

const schema = runId();
const admin = new pg.Client({ connectionString: PG_URL });
const open: Connector[] = [];
const make = async (options: Record<string, unknown> = {}, url = PG_URL) => {
  const c = await createConnector(connectorDoc('pg', 'postgres', 'PG', { options }), url);
  open.push(c);
  return c;
};
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };
const run = (c: Connector, sql: string, params: unknown[] = []) => c.query(c.prepare(sql, params), limits);
/** What a call gets from the real server: its rows, or the refusal's code and reason. */
const attempt = async (
  connector: Connector | Promise<Connector>,
  sql: string,
): Promise<{ rows: unknown[] } | { code: string; reason?: string }> => {
  const c = await connector;
  try {
    return { rows: (await run(c, sql)).rows };
  } catch (e) {
    return { code: (e as ConnectorError).code, reason: (e as ConnectorError).reason };
  }
};
const SECRET = 'hunter2-pg';
/** The server resolves bare names in the test schema, as the guard does (defaultSchema). */
const withSession = (...settings: string[]) =>
  `${PG_URL}?options=${encodeURIComponent([`search_path=${schema}`, ...settings].map((o) => `-c ${o}`).join(' '))}`;
/** A connector that may read `orders` only. */
const ordersOnly = (options: Record<string, unknown> = {}, url = withSession()) =>
  make({ allowedTables: [`${schema}.orders`], defaultSchema: schema, ...options }, url);

beforeAll(async () => {
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.people (id int primary key, name text, note text)`);
  await admin.query(
    `INSERT INTO ${schema}.people SELECT g, 'person ' || g, CASE WHEN g = 1 THEN 'ssn 123-45-6789' ELSE 'n/a' END FROM generate_series(1, 50) g`,
  );
  await admin.query(`CREATE TABLE ${schema}.orders (id int, note text)`);
  await admin.query(`INSERT INTO ${schema}.orders VALUES (1, 'first'), (2, 'second')`);
  await admin.query(`CREATE TABLE ${schema}.secrets (id int, secret text)`);
  await admin.query(`INSERT INTO ${schema}.secrets VALUES (1, '${SECRET}')`);
  // NB: another table than orders: PostgreSQL keeps the case of a quoted name
  await admin.query(`CREATE TABLE ${schema}."Orders" (id int, note text)`);
  await admin.query(`INSERT INTO ${schema}."Orders" VALUES (1, '${SECRET}')`);
  await admin.query(
    `CREATE FUNCTION ${schema}.leak() RETURNS SETOF text LANGUAGE sql AS 'SELECT secret FROM ${schema}.secrets'`,
  );
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe('postgres connector', () => {
  it('runs a statement with $1 params and answers rows, row_count, columns and execution_time_ms', async () => {
    const c = await make();
    const res = await run(c, `SELECT id, name FROM ${schema}.people WHERE id = $1 OR name = $2 ORDER BY id`, [
      3,
      'person 7',
    ]);
    expect(res.rows).toEqual([
      { id: 3, name: 'person 3' },
      { id: 7, name: 'person 7' },
    ]);
    expect(res.row_count).toBe(2);
    expect(res.columns).toEqual(['id', 'name']);
    expect(res.execution_time_ms).toBeGreaterThanOrEqual(0);
    expect(res.sql).toEqual({ operation: 'select', tables: [`${schema}.people`], limit: null });
  });

  it('cuts rows at maxRows with the truncated flag (the forced LIMIT fetches one more)', async () => {
    const c = await make({ maxRows: 10 });
    const prepared = c.prepare(`SELECT id FROM ${schema}.people ORDER BY id`, []);
    expect(prepared.text).toMatch(/LIMIT 11$/);
    const res = await c.query(prepared, { timeoutMs: 5000, maxRows: 10, maxResultBytes: 1 << 20, redact: false });
    expect(res.row_count).toBe(10);
    expect(res.truncated).toBe(true);
  });

  it('cuts rows at the byte cap', async () => {
    const c = await make();
    const res = await c.query(c.prepare(`SELECT id, name FROM ${schema}.people ORDER BY id`, []), {
      timeoutMs: 5000,
      maxRows: 1000,
      maxResultBytes: 100,
      redact: false,
    });
    expect(res.truncated).toBe(true);
    expect(res.row_count).toBeLessThan(50);
  });

  it('redacts PII in string cells and counts per kind', async () => {
    const c = await make();
    const res = await c.query(c.prepare(`SELECT note FROM ${schema}.people WHERE id = $1`, [1]), {
      timeoutMs: 5000,
      maxRows: 10,
      maxResultBytes: 1 << 20,
      redact: true,
    });
    expect(res.rows).toEqual([{ note: 'ssn [REDACTED:us_ssn]' }]);
    expect(res.redactions).toEqual({ us_ssn: 1 });
  });

  it('refuses pg_sleep on a read-only connector before anything reaches the server', async () => {
    const c = await make();
    expect(() => c.prepare('SELECT pg_sleep(5)', [])).toThrow(
      expect.objectContaining({ code: 'SQL_REFUSED', reason: 'DENIED_FUNCTION' }),
    );
  });

  it('times out a slow query on a non-read-only connector and cancels it on the server', async () => {
    const c = await make({ readOnly: false });
    const marker = `steward_timeout_${schema}`;
    const err = await c
      .query(c.prepare(`SELECT pg_sleep(60), '${marker}' AS m`, []), {
        timeoutMs: 300,
        maxRows: 10,
        maxResultBytes: 1 << 20,
        redact: false,
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_TIMEOUT' });
    await eventually(async () => {
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
        [`%${marker}%`],
      );
      expect(rows[0].n).toBe(0);
    });
  });

  it('a read-only connector session refuses writes even when a statement gets past the guard', async () => {
    const ro = await make();
    // NB: a hand-made prepared statement stands for a guard miss (say, a user function that writes)
    const err = await ro
      .query({ text: `UPDATE ${schema}.people SET note = $1 WHERE id = $2`, params: ['x', 2] }, limits)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
    expect((err as Error).message).toContain('read-only transaction');
    const rw = await make({ readOnly: false });
    await expect(run(rw, `UPDATE ${schema}.people SET note = $1 WHERE id = $2`, ['x', 2])).resolves.toMatchObject({
      sql: { operation: 'update' },
      affected_rows: 1,
      row_count: 0,
    });
  });

  it('keeps the read-only session when the URL carries its own options', async () => {
    const ro = await make({}, `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`);
    const res = await ro.query({ text: 'SELECT count(*)::int AS n FROM people', params: [] }, limits);
    expect(res.rows).toEqual([{ n: 50 }]);
    const err = await ro
      .query({ text: 'UPDATE people SET note = $1 WHERE id = $2', params: ['x', 2] }, limits)
      .catch((e: unknown) => e);
    expect((err as Error).message).toContain('read-only transaction');
  });

  it('refuses stacked statements that a parser/server disagreement would hide (backslash in a standard string)', async () => {
    const c = await make({ readOnly: false });
    expect(() => c.prepare(`SELECT 'a\\' ; DROP TABLE ${schema}.people; --'`, [])).toThrow(
      expect.objectContaining({ reason: 'STACKED_QUERIES' }),
    );
  });

  it('refuses a statement whose placeholders outnumber the params', async () => {
    const c = await make();
    expect(() => c.prepare(`SELECT $2::int`, [1])).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
  });

  it('never shows the connection URL or password in errors', async () => {
    const url = 'postgresql://steward_nobody:Sup3rS3cretPw@127.0.0.1:5432/test';
    const c = await make({}, url);
    const err = (await run(c, 'SELECT 1').catch((e: unknown) => e)) as ConnectorError;
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).not.toContain('Sup3rS3cretPw');
    expect(err.message).not.toContain(url);
    const health = await c.health(2000);
    expect(health.ok).toBe(false);
    expect(health.error).not.toContain('Sup3rS3cretPw');
  });
});

describe('postgres connector: statements that would read past the table allowlist', () => {
  it.each([
    ['a CTE defined inside a subquery', 'SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)'],
    ['a CTE defined inside another CTE', 'WITH x AS (WITH secrets AS (SELECT 1) SELECT 1) SELECT * FROM secrets'],
    ['a non-recursive CTE naming itself', 'WITH secrets AS (SELECT * FROM secrets) SELECT * FROM secrets'],
    [
      'a CTE inside a parenthesised UNION member',
      '(WITH secrets AS (SELECT 1 AS id) SELECT id FROM secrets) UNION ALL SELECT id FROM secrets',
    ],
    [
      'a CTE inside a subquery, on pg_shadow',
      'SELECT usename, passwd FROM pg_shadow WHERE EXISTS (WITH pg_shadow AS (SELECT 1) SELECT 1)',
    ],
    [
      'a CTE inside another CTE, on pg_shadow',
      'WITH x AS (WITH pg_shadow AS (SELECT 1) SELECT 1) SELECT usename FROM pg_shadow',
    ],
  ])('refuses a table shadowed by %s outside its scope', async (_name, sql) => {
    expect(await attempt(ordersOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'TABLE_NOT_ALLOWED' });
  });

  it('reads a CTE inside its scope, and tells policies about the real table a CTE name shadows elsewhere', async () => {
    expect(
      await attempt(ordersOnly(), 'WITH secrets AS (SELECT id FROM orders) SELECT id FROM secrets ORDER BY id'),
    ).toEqual({ rows: [{ id: 1 }, { id: 2 }] });
    expect(
      await attempt(
        ordersOnly(),
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r',
      ),
    ).toEqual({ rows: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    const open = await make({ defaultSchema: schema });
    expect(
      open.prepare('SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)', []).sql?.tables,
    ).toEqual([`${schema}.secrets`]);
    expect(open.prepare('WITH x AS (SELECT 1) SELECT usename FROM pg_shadow, x', []).sql?.tables).toEqual([
      'pg_catalog.pg_shadow',
    ]);
  });

  it('refuses a string the parser would end elsewhere than the server (backslash before a quote)', async () => {
    const sql = `SELECT 'a\\' AS p, (SELECT secret FROM secrets) AS q -- '\n FROM orders`;
    expect(await attempt(ordersOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'TABLE_NOT_ALLOWED' });
  });

  it('refuses FROM ONLY, which the parser misreads', async () => {
    expect(await attempt(ordersOnly(), 'SELECT * FROM ONLY (secrets)')).toEqual({
      code: 'SQL_REFUSED',
      reason: 'PARSE_ERROR',
    });
  });

  it('compares quoted names exactly: "Orders" is not orders', async () => {
    expect(await attempt(ordersOnly(), 'SELECT note FROM "Orders"')).toEqual({
      code: 'SQL_REFUSED',
      reason: 'TABLE_NOT_ALLOWED',
    });
    expect(await attempt(ordersOnly(), 'SELECT note FROM ORDERS WHERE id = 1')).toEqual({ rows: [{ note: 'first' }] });
    const quoted = ordersOnly({ allowedTables: [`${schema}."Orders"`] });
    expect(await attempt(quoted, 'SELECT id FROM "Orders"')).toEqual({ rows: [{ id: 1 }] });
    expect(await attempt(quoted, 'SELECT id FROM orders')).toEqual({
      code: 'SQL_REFUSED',
      reason: 'TABLE_NOT_ALLOWED',
    });
  });
});

describe('postgres connector: functions on a confined connector', () => {
  it('refuses ts_stat, which runs the SQL text it is given', async () => {
    const sql = `SELECT * FROM ts_stat('SELECT to_tsvector(secret) FROM ${schema}.secrets')`;
    expect(await attempt(ordersOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'DENIED_FUNCTION' });
    expect(await attempt(await make(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'DENIED_FUNCTION' });
  });

  it.each([
    ['version()', 'SELECT version() AS v'],
    ['current_setting()', "SELECT current_setting('data_directory') AS v"],
    ['inet_server_addr()', 'SELECT inet_server_addr() AS v'],
    ['a pg_* function', 'SELECT pg_backend_pid() AS v'],
    ['USER written without parentheses', 'SELECT user AS v'],
    ['CURRENT_SCHEMA written without parentheses', 'SELECT current_schema AS v'],
    ['a function of the database, which can read any table', `SELECT * FROM ${schema}.leak()`],
  ])('refuses %s, which is not in the allowlist', async (_name, sql) => {
    expect(await attempt(ordersOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'FUNCTION_NOT_ALLOWED' });
  });

  it('runs pure functions, and the functions allowedFunctions adds unless deniedFunctions names them', async () => {
    const sql =
      "SELECT count(*)::int AS n, max(upper(note)) AS m, coalesce(NULL, 'x') AS c, EXTRACT(YEAR FROM DATE '2024-05-01')::int AS y, now() IS NOT NULL AS t FROM orders";
    expect(await attempt(ordersOnly(), sql)).toEqual({ rows: [{ n: 2, m: 'SECOND', c: 'x', y: 2024, t: true }] });
    expect(
      await attempt(ordersOnly({ allowedFunctions: [`${schema}.leak`] }), `SELECT * FROM ${schema}.leak() AS s`),
    ).toEqual({ rows: [{ s: SECRET }] });
    expect(
      await attempt(
        ordersOnly({ allowedFunctions: ['current_setting'] }),
        "SELECT current_setting('TimeZone') IS NOT NULL AS t",
      ),
    ).toEqual({ rows: [{ t: true }] });
    expect(await attempt(ordersOnly({ deniedFunctions: ['upper'] }), sql)).toEqual({
      code: 'SQL_REFUSED',
      reason: 'DENIED_FUNCTION',
    });
    expect(await attempt(ordersOnly({ allowedFunctions: ['pg_sleep'] }), 'SELECT pg_sleep(0)')).toEqual({
      code: 'SQL_REFUSED',
      reason: 'DENIED_FUNCTION',
    });
  });
});

describe('postgres connector: the session reads text as the guard does', () => {
  const scsOff = withSession('standard_conforming_strings=off');

  it('keeps standard_conforming_strings on when the server (here the URL) turns it off', async () => {
    expect(
      await attempt(
        await make({ readOnly: false }, scsOff),
        "SELECT current_setting('standard_conforming_strings') AS v",
      ),
    ).toEqual({ rows: [{ v: 'on' }] });
    expect(await attempt(ordersOnly({}, scsOff), "SELECT 'a\\' AS s")).toEqual({ rows: [{ s: 'a\\' }] });
    const attack = `SELECT 'a\\' , ' UNION SELECT secret FROM secrets -- ' AS x FROM orders`;
    expect(JSON.stringify(await attempt(ordersOnly({}, scsOff), attack))).not.toContain(SECRET);
  });
});

describe('postgres connector: catalogue names read through reg* casts', () => {
  // NB: oid → name over every user oid: the server answers each relation's name
  const everyRelation =
    "SELECT CAST(CAST(g AS oid) AS regclass) AS rel FROM generate_series(16384, 100000) g WHERE CAST(CAST(CAST(g AS oid) AS regclass) AS text) !~ '^[0-9]+$'";
  const confined = () => [
    make({ defaultSchema: schema }, withSession()),
    ordersOnly(),
    ordersOnly({ readOnly: false }),
  ];

  it('refuses listing every relation name through CAST(CAST(n AS oid) AS regclass), which an open connector answers', async () => {
    const open = await attempt(await make({ readOnly: false }, withSession()), everyRelation);
    expect(JSON.stringify(open)).toContain('secrets');
    for (const c of confined())
      expect(await attempt(c, everyRelation)).toEqual({ code: 'SQL_REFUSED', reason: 'CATALOG_CAST' });
  });

  it.each([
    ['a role name from its oid', 'SELECT CAST(CAST(10 AS oid) AS regrole) AS v'],
    ['regclass with ::', "SELECT 'secrets'::regclass AS v"],
    ['regclass after another cast', "SELECT CAST('secrets' AS text)::regclass AS v"],
    ['regclass, quoted', `SELECT v::"regclass" FROM (SELECT 'secrets' AS v) s`],
    ['regclass in CAST', "SELECT CAST('secrets' AS regclass) AS v"],
    ['regtype', "SELECT 'secrets'::regtype AS v"],
    ['regnamespace', `SELECT '${schema}'::regnamespace AS v`],
    ['regproc', "SELECT 'leak'::regproc AS v"],
    ['regprocedure', "SELECT 'leak()'::regprocedure AS v"],
    ['regoper', 'SELECT CAST(CAST(96 AS oid) AS regoper) AS v'],
    ['regoperator', "SELECT '=(int4,int4)'::regoperator AS v"],
    ['regconfig', "SELECT 'simple'::regconfig AS v"],
    ['regdictionary', "SELECT 'simple'::regdictionary AS v"],
    ['regcollation', `SELECT '"C"'::regcollation AS v`],
    ['regrole', "SELECT 'postgres'::regrole AS v"],
    ['a cast in a WHERE clause', "SELECT id FROM orders WHERE 'secrets'::regclass IS NOT NULL"],
  ])('refuses %s, which the server resolves against the catalogue', async (_name, sql) => {
    const open = await attempt(await make({ readOnly: false }, withSession()), sql);
    expect('rows' in open && open.rows.length > 0).toBe(true);
    for (const c of confined()) expect(await attempt(c, sql)).toEqual({ code: 'SQL_REFUSED', reason: 'CATALOG_CAST' });
  });

  it('refuses a cast written as a call (regclass(...)) even when allowedFunctions would let the name through', async () => {
    const sql = "SELECT regclass('secrets') AS v";
    expect(await attempt(await make({ readOnly: false }, withSession()), sql)).toEqual({ rows: [{ v: 'secrets' }] });
    expect(await attempt(ordersOnly({ allowedFunctions: ['reg*'] }), sql)).toEqual({
      code: 'SQL_REFUSED',
      reason: 'CATALOG_CAST',
    });
  });

  it("refuses a typed literal (regclass 'secrets'), which the parser cannot read", async () => {
    const sql = "SELECT regclass 'secrets' AS v";
    expect(await attempt(await make({ readOnly: false }, withSession()), sql)).toMatchObject({ code: 'SQL_REFUSED' });
    expect(await attempt(ordersOnly(), sql)).toEqual({
      code: 'SQL_REFUSED',
      reason: expect.stringMatching(/^(PARSE_ERROR|CATALOG_CAST)$/),
    });
  });

  it.each([
    'to_regclass',
    'to_regtype',
    'to_regrole',
    'to_regnamespace',
    'to_regproc',
    'to_regprocedure',
    'to_regoper',
    'to_regoperator',
    'to_regcollation',
  ])('refuses %s(), which resolves a name, as a function off the allowlist', async (fn) => {
    expect(await attempt(ordersOnly(), `SELECT ${fn}('x') AS v`)).toEqual({
      code: 'SQL_REFUSED',
      reason: 'FUNCTION_NOT_ALLOWED',
    });
  });

  it('still runs casts to types that name nothing, and reg* casts on an open connector', async () => {
    expect(
      await attempt(
        ordersOnly(),
        'SELECT CAST(id AS text) AS t, id::oid AS o, CAST(1 AS oid) AS p FROM orders WHERE id = 1',
      ),
    ).toEqual({ rows: [{ t: '1', o: 1, p: 1 }] });
    expect(
      await attempt(await make({ readOnly: false }, withSession()), "SELECT 'secrets'::regclass::text AS v"),
    ).toEqual({
      rows: [{ v: 'secrets' }],
    });
  });
});

describe('postgres connector: an E string continued on the next line', () => {
  /**
   * NB: two string literals separated by whitespace with a newline are one literal, and the continuation keeps
   * the first segment's rules: after E'x', the segment '\'' has an escaped quote and ends at the third quote.
   */
  const attack = (table: string) => `SELECT E'x'\n'\\'' UNION SELECT secret FROM ${table} --' AS a`;

  it('reads the continuation with backslash escapes, as the server does, so the UNION is seen', async () => {
    const { rows } = await admin.query(attack(`${schema}.secrets`));
    expect(JSON.stringify(rows)).toContain(SECRET);
    expect(await attempt(ordersOnly(), attack('secrets'))).toEqual({
      code: 'SQL_REFUSED',
      reason: 'TABLE_NOT_ALLOWED',
    });
    expect((await make({ readOnly: false, defaultSchema: schema })).prepare(attack('secrets'), []).sql?.tables).toEqual(
      [`${schema}.secrets`],
    );
  });

  it.each([
    ['a newline', "E'x'\n'\\''"],
    ['a carriage return', "E'x'\r'\\''"],
    ['a comment before the newline', "E'x' -- c\n'\\''"],
    ['a comment line between', "E'x'\n-- c\n  '\\''"],
    ['tabs and a form feed around the newline', "E'x'\t\f\n\t'\\''"],
    ['two continuations', "E'x'\n'y'\n'\\''"],
    ['a doubled quote in the continuation', "E'x'\n''''"],
    ['a standard string continued (no escapes)', "'x'\n'\\'"],
    ['a block comment (no continuation)', "E'x' /* c */\n'\\''"],
    ['no newline (no continuation)', "E'x' '\\''"],
  ])('reads one literal exactly when the server does: %s', async (_name, literal) => {
    const sql = `SELECT ${literal} AS a`;
    const server = await admin.query(sql).then(
      (r) => r.fields.length === 1 && r.fields[0]!.name === 'a',
      () => false,
    );
    const lex = lexSql(sql, 'postgresql');
    // SELECT, the literal, AS, a
    expect(!lex.unterminated && lex.tokens === 4).toBe(server);
  });
});
