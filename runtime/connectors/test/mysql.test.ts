import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.js';
import { createConnector } from '../factory.js';
import type { Connector } from '../types.js';
import { MYSQL_URL, connectorDoc, eventually, runId } from './fixtures.js';

const table = runId();
let admin: mysql.Connection;
const open: Connector[] = [];
const make = (options: Record<string, unknown> = {}, url = MYSQL_URL) => {
  const c = createConnector(connectorDoc('maria', 'mysql', 'MYSQL', { options }), url);
  open.push(c);
  return c;
};
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };
const run = (c: Connector, sql: string, params: unknown[] = []) => c.query(c.prepare(sql, params), limits);

beforeAll(async () => {
  admin = await mysql.createConnection({ uri: MYSQL_URL });
  await admin.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, name VARCHAR(64), note VARCHAR(128))`);
  await admin.query(`INSERT INTO ${table} VALUES (1, 'Ada', 'card 4111-1111-1111-1111'), (2, 'Alan', 'n/a'), (3, 'Grace', '$1 is not a placeholder')`);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await admin.query(`DROP TABLE IF EXISTS ${table}`);
  await admin.end();
});

describe('mysql connector (MariaDB)', () => {
  it('translates $n placeholders to ? outside strings, reordering and repeating values', async () => {
    const c = make();
    const res = await run(c, `SELECT id, name FROM ${table} WHERE (id = $2 OR name = $1) AND note <> '$1' AND id <> $2 + 100 ORDER BY id`, ['Ada', 2]);
    expect(res.rows).toEqual([{ id: 1, name: 'Ada' }, { id: 2, name: 'Alan' }]);
    expect(res.columns).toEqual(['id', 'name']);
    expect(res.sql).toEqual({ operation: 'select', tables: [`test.${table}`] });
  });

  it('keeps a $1 inside a string literal as text', async () => {
    const res = await run(make(), `SELECT note FROM ${table} WHERE note = '$1 is not a placeholder'`, []);
    expect(res.rows).toEqual([{ note: '$1 is not a placeholder' }]);
  });

  it('redacts card numbers', async () => {
    const c = make({ redact: true });
    const res = await c.query(c.prepare(`SELECT note FROM ${table} WHERE id = $1`, [1]), { ...limits, redact: true });
    expect(res.rows).toEqual([{ note: 'card [REDACTED:payment_card]' }]);
    expect(res.redactions).toEqual({ payment_card: 1 });
  });

  it('refuses SLEEP, executable comments and INTO OUTFILE on a read-only connector', () => {
    const c = make();
    expect(() => c.prepare('SELECT SLEEP(5)', [])).toThrow(expect.objectContaining({ reason: 'DENIED_FUNCTION' }));
    expect(() => c.prepare(`SELECT 1 /*!50000 , (SELECT 1) */`, [])).toThrow(expect.objectContaining({ reason: 'EXECUTABLE_COMMENT' }));
    expect(() => c.prepare(`SELECT * FROM ${table} INTO OUTFILE '/tmp/x'`, [])).toThrow(expect.objectContaining({ reason: 'SELECT_INTO' }));
  });

  it('times out a slow query on a non-read-only connector and kills it on the server', async () => {
    const c = make({ readOnly: false });
    const marker = `steward_timeout_${table}`;
    const err = await c.query(c.prepare(`SELECT SLEEP(60) AS s, '${marker}' AS m`, []), { ...limits, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_TIMEOUT' });
    await eventually(async () => {
      const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM information_schema.processlist WHERE info LIKE ? AND id <> CONNECTION_ID()`, [`%${marker}%`]);
      expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
    });
  });

  it('a read-only session refuses writes that get past the guard', async () => {
    const err = await make().query({ text: `UPDATE ${table} SET note = $1 WHERE id = $2`, params: ['x', 2] }, limits).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
  });

  it('answers affected_rows for a write on a read-write connector', async () => {
    const res = await run(make({ readOnly: false }), `UPDATE ${table} SET note = $1 WHERE id = $2`, ['changed', 2]);
    expect(res).toMatchObject({ affected_rows: 1, row_count: 0, sql: { operation: 'update', tables: [`test.${table}`] } });
  });

  it('ignores multipleStatements=true in the connection URL', async () => {
    const c = make({ readOnly: false }, `${MYSQL_URL}?multipleStatements=true`);
    const err = await c.query({ text: 'SELECT 1; SELECT 2', params: [] }, limits).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
  });

  it('never shows the connection URL or password in errors', async () => {
    const url = 'mysql://steward_nobody:Sup3rS3cretPw@127.0.0.1:3306/test';
    const err = (await run(make({}, url), 'SELECT 1').catch((e: unknown) => e)) as ConnectorError;
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).not.toContain('Sup3rS3cretPw');
    expect(err.message).not.toContain(url);
  });
});
