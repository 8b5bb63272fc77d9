import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.js';
import { createConnector } from '../factory.js';
import { lexSql } from '../sql/lexer.js';
import type { Connector } from '../types.js';
import { MYSQL_URL, connectorDoc, eventually, runId } from './fixtures.js';

const table = runId();
const secrets = `${table}_secrets`;
/** Another table than `table` on Linux (lower_case_table_names=0). */
const upper = table.toUpperCase();
const SECRET = 'hunter2-my';
let admin: mysql.Connection;
const open: Connector[] = [];
const make = async (options: Record<string, unknown> = {}, url = MYSQL_URL) => {
  const c = await createConnector(connectorDoc('maria', 'mysql', 'MYSQL', { options }), url);
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
/** A connector that may read `table` only. */
const tableOnly = (options: Record<string, unknown> = {}) => make({ allowedTables: [table], ...options });

/**
 * The connector with a server whose default sql_mode has NO_BACKSLASH_ESCAPES and ANSI (ANSI_QUOTES): each
 * new session of its pool gets that mode before the connector uses it. NB: per session (the pool's first
 * 'connection' listener), not SET GLOBAL, which would change every other client of the shared test server.
 */
function withHostileDefaultMode(c: Connector): Connector {
  const pool = (c as unknown as { ensurePool(): mysql.Pool }).ensurePool();
  pool.pool.prependListener('connection', (conn: { query(sql: string): unknown }) => {
    conn.query("SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES,ANSI')");
  });
  return c;
}

beforeAll(async () => {
  admin = await mysql.createConnection({ uri: MYSQL_URL });
  await admin.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, name VARCHAR(64), note VARCHAR(128))`);
  await admin.query(
    `INSERT INTO ${table} VALUES (1, 'Ada', 'card 4111-1111-1111-1111'), (2, 'Alan', 'n/a'), (3, 'Grace', '$1 is not a placeholder')`,
  );
  await admin.query(`CREATE TABLE ${secrets} (secret VARCHAR(64))`);
  await admin.query(`INSERT INTO ${secrets} VALUES ('${SECRET}')`);
  await admin.query(`CREATE TABLE ${upper} (note VARCHAR(64))`);
  await admin.query(`INSERT INTO ${upper} VALUES ('${SECRET}')`);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await admin.query(`DROP TABLE IF EXISTS ${table}, ${secrets}, ${upper}`);
  await admin.end();
});

describe('mysql connector (MariaDB)', () => {
  it('translates $n placeholders to ? outside strings, reordering and repeating values', async () => {
    const c = await make();
    const res = await run(
      c,
      `SELECT id, name FROM ${table} WHERE (id = $2 OR name = $1) AND note <> '$1' AND id <> $2 + 100 ORDER BY id`,
      ['Ada', 2],
    );
    expect(res.rows).toEqual([
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Alan' },
    ]);
    expect(res.columns).toEqual(['id', 'name']);
    expect(res.sql).toEqual({ operation: 'select', tables: [`test.${table}`], limit: null });
  });

  it('keeps a $1 inside a string literal as text', async () => {
    const res = await run(await make(), `SELECT note FROM ${table} WHERE note = '$1 is not a placeholder'`, []);
    expect(res.rows).toEqual([{ note: '$1 is not a placeholder' }]);
  });

  it('redacts card numbers', async () => {
    const c = await make({ redact: true });
    const res = await c.query(c.prepare(`SELECT note FROM ${table} WHERE id = $1`, [1]), { ...limits, redact: true });
    expect(res.rows).toEqual([{ note: 'card [REDACTED:payment_card]' }]);
    expect(res.redactions).toEqual({ payment_card: 1 });
  });

  it('refuses SLEEP, executable comments and INTO OUTFILE on a read-only connector', async () => {
    const c = await make();
    expect(() => c.prepare('SELECT SLEEP(5)', [])).toThrow(expect.objectContaining({ reason: 'DENIED_FUNCTION' }));
    expect(() => c.prepare(`SELECT 1 /*!50000 , (SELECT 1) */`, [])).toThrow(
      expect.objectContaining({ reason: 'EXECUTABLE_COMMENT' }),
    );
    expect(() => c.prepare(`SELECT * FROM ${table} INTO OUTFILE '/tmp/x'`, [])).toThrow(
      expect.objectContaining({ reason: 'SELECT_INTO' }),
    );
  });

  it('times out a slow query on a non-read-only connector and kills it on the server', async () => {
    const c = await make({ readOnly: false });
    const marker = `steward_timeout_${table}`;
    const err = await c
      .query(c.prepare(`SELECT SLEEP(60) AS s, '${marker}' AS m`, []), { ...limits, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_TIMEOUT' });
    await eventually(async () => {
      const [rows] = await admin.query(
        `SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE ? AND id <> CONNECTION_ID()`,
        [`%${marker}%`],
      );
      expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
    });
  });

  it('a read-only session refuses writes that get past the guard', async () => {
    const err = await (
      await make()
    )
      .query({ text: `UPDATE ${table} SET note = $1 WHERE id = $2`, params: ['x', 2] }, limits)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
  });

  it('answers affected_rows for a write on a read-write connector', async () => {
    const res = await run(await make({ readOnly: false }), `UPDATE ${table} SET note = $1 WHERE id = $2`, [
      'changed',
      2,
    ]);
    expect(res).toMatchObject({
      affected_rows: 1,
      row_count: 0,
      sql: { operation: 'update', tables: [`test.${table}`] },
    });
  });

  it('ignores multipleStatements=true in the connection URL', async () => {
    const c = await make({ readOnly: false }, `${MYSQL_URL}?multipleStatements=true`);
    const err = await c.query({ text: 'SELECT 1; SELECT 2', params: [] }, limits).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
  });

  it('never shows the connection URL or password in errors', async () => {
    const url = 'mysql://steward_nobody:Sup3rS3cretPw@127.0.0.1:3306/test';
    const err = (await run(await make({}, url), 'SELECT 1').catch((e: unknown) => e)) as ConnectorError;
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).not.toContain('Sup3rS3cretPw');
    expect(err.message).not.toContain(url);
  });
});

describe('mysql connector: statements that would read past the table allowlist', () => {
  it.each([
    [
      'a CTE defined inside a subquery',
      `SELECT * FROM ${secrets} WHERE EXISTS (WITH ${secrets} AS (SELECT 1) SELECT 1)`,
    ],
    ['a CTE defined inside another CTE', `WITH x AS (WITH ${secrets} AS (SELECT 1) SELECT 1) SELECT * FROM ${secrets}`],
    ['a non-recursive CTE naming itself', `WITH ${secrets} AS (SELECT * FROM ${secrets}) SELECT * FROM ${secrets}`],
  ])('refuses a table shadowed by %s outside its scope', async (_name, sql) => {
    expect(await attempt(tableOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'TABLE_NOT_ALLOWED' });
  });

  it('reads a CTE inside its scope', async () => {
    expect(
      await attempt(tableOnly(), `WITH s AS (SELECT id FROM ${table}) SELECT id FROM s WHERE id < 3 ORDER BY id`),
    ).toEqual({ rows: [{ id: 1 }, { id: 2 }] });
  });

  it('refuses `--(`, which the parser reads as a comment and MySQL as two minus signs', async () => {
    const sql = `SELECT id --(SELECT ASCII(secret) FROM ${secrets} LIMIT 1)\n FROM ${table} WHERE id = 1`;
    expect(await attempt(tableOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'TABLE_NOT_ALLOWED' });
  });

  it('compares table names exactly as written (another case is another table on Linux)', async () => {
    expect(await attempt(tableOnly(), `SELECT note FROM ${upper}`)).toEqual({
      code: 'SQL_REFUSED',
      reason: 'TABLE_NOT_ALLOWED',
    });
    expect(await attempt(tableOnly(), `SELECT name FROM \`${table}\` WHERE id = 1`)).toEqual({
      rows: [{ name: 'Ada' }],
    });
  });
});

describe('mysql connector: server variables and functions on a confined connector', () => {
  it.each([
    ['@@version', 'SELECT @@version AS v', 'SERVER_VARIABLE'],
    ['@@global.datadir', 'SELECT @@global.datadir AS v', 'SERVER_VARIABLE'],
    ['a user variable, which outlives the call on a pooled session', 'SELECT @stolen AS v', 'SERVER_VARIABLE'],
    ['USER()', 'SELECT USER() AS v', 'FUNCTION_NOT_ALLOWED'],
    ['CURRENT_USER()', 'SELECT CURRENT_USER() AS v', 'FUNCTION_NOT_ALLOWED'],
    ['CURRENT_ROLE written without parentheses', 'SELECT CURRENT_ROLE AS v', 'FUNCTION_NOT_ALLOWED'],
    ['DATABASE()', 'SELECT DATABASE() AS v', 'FUNCTION_NOT_ALLOWED'],
    ['VERSION()', 'SELECT VERSION() AS v', 'FUNCTION_NOT_ALLOWED'],
    ['CONNECTION_ID()', 'SELECT CONNECTION_ID() AS v', 'FUNCTION_NOT_ALLOWED'],
    [
      "LAST_INSERT_ID(), the previous caller's on a pooled session",
      'SELECT LAST_INSERT_ID() AS v',
      'FUNCTION_NOT_ALLOWED',
    ],
  ])('refuses %s', async (_name, sql, reason) => {
    expect(await attempt(tableOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason });
  });

  it('runs pure functions, and the functions allowedFunctions adds unless deniedFunctions names them', async () => {
    const sql = `SELECT COUNT(*) AS n, UPPER(MAX(name)) AS m, COALESCE(NULL, 'x') AS c, EXTRACT(YEAR FROM '2024-05-01') AS y, IF(1, 'a', 'b') AS i FROM ${table}`;
    expect(await attempt(tableOnly(), sql)).toEqual({ rows: [{ n: '3', m: 'GRACE', c: 'x', y: 2024, i: 'a' }] });
    expect(await attempt(tableOnly({ allowedFunctions: ['version'] }), 'SELECT VERSION() IS NOT NULL AS v')).toEqual({
      rows: [{ v: 1 }],
    });
    expect(await attempt(tableOnly({ deniedFunctions: ['upper'] }), sql)).toEqual({
      code: 'SQL_REFUSED',
      reason: 'DENIED_FUNCTION',
    });
  });
});

describe('mysql connector: the session reads text as the guard does', () => {
  it('turns NO_BACKSLASH_ESCAPES and ANSI_QUOTES off when the server defaults to them, keeping the rest of its mode', async () => {
    expect(await attempt(withHostileDefaultMode(await tableOnly()), "SELECT 'it\\'s' AS s, \"quoted\" AS q")).toEqual({
      rows: [{ s: "it's", q: 'quoted' }],
    });
    const attack = `SELECT name FROM ${table} WHERE note = 'x\\' UNION SELECT secret FROM ${secrets} -- '`;
    expect(JSON.stringify(await attempt(withHostileDefaultMode(await tableOnly()), attack))).not.toContain(SECRET);
    const res = await attempt(
      withHostileDefaultMode(await make({ readOnly: false })),
      'SELECT @@SESSION.sql_mode AS m',
    );
    const modes = String((res as { rows: { m: string }[] }).rows[0]!.m).split(',');
    expect(modes).not.toContain('NO_BACKSLASH_ESCAPES');
    expect(modes).not.toContain('ANSI_QUOTES');
    expect(modes).not.toContain('ANSI');
    expect(modes).toEqual(expect.arrayContaining(['STRICT_TRANS_TABLES', 'PIPES_AS_CONCAT']));
  });
});

describe('mysql connector: `--` comments read as MariaDB reads them', () => {
  const bytes = Array.from({ length: 255 }, (_, i) => i + 1);

  it('starts a comment after `--` exactly where the server does (a space or any control character, DEL included)', async () => {
    const server: number[] = [];
    const lexer: number[] = [];
    for (const b of bytes) {
      // the server runs it only when the comment reaches the `)`: a newline ends the comment it starts
      const sql = `SELECT 1 AS v --${String.fromCharCode(b)})`;
      if (
        await admin.execute(sql).then(
          () => true,
          () => false,
        )
      )
        server.push(b);
      if (lexSql(sql, 'mysql').contentEnd === 'SELECT 1 AS v'.length) lexer.push(b);
    }
    expect(lexer).toEqual(server);
    // what the server was found to do (MariaDB 10.11): 0x01–0x20 and 0x7f
    expect(server).toEqual([...bytes.filter((b) => b <= 0x20 && b !== 0x0a), 0x7f]);
  });

  it.each(
    [...bytes.filter((b) => b <= 0x20 && b !== 0x0a), 0x7f].map((b) => [`0x${b.toString(16).padStart(2, '0')}`, b]),
  )('refuses a UNION hidden behind `--` followed by %s', async (_hex, b) => {
    const sql = `SELECT name FROM ${table} WHERE 1=1 --${String.fromCharCode(b)}'\nUNION SELECT secret FROM ${secrets} -- '`;
    if (b === 0x7f) expect(JSON.stringify(await admin.execute(sql))).toContain(SECRET);
    expect(await attempt(tableOnly(), sql)).toEqual({ code: 'SQL_REFUSED', reason: 'TABLE_NOT_ALLOWED' });
  });

  it('ends a line comment at a NUL as the server does (which then refuses the NUL itself)', async () => {
    const sql = `SELECT name FROM ${table} -- x\u0000, (SELECT secret FROM ${secrets}) AS s`;
    await expect(admin.execute(sql)).rejects.toMatchObject({ code: 'ER_PARSE_ERROR' });
    expect(lexSql(sql, 'mysql', { view: true }).view).toContain(`\u0000, (SELECT secret FROM ${secrets}) AS s`);
    expect(await attempt(tableOnly(), sql)).toMatchObject({ code: 'SQL_REFUSED' });
  });
});
