import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.js';
import { createConnector } from '../factory.js';
import type { Connector } from '../types.js';
import { PG_URL, connectorDoc, eventually, runId } from './fixtures.js';

const schema = runId();
const admin = new pg.Client({ connectionString: PG_URL });
const open: Connector[] = [];
const make = (options: Record<string, unknown> = {}, url = PG_URL) => {
  const c = createConnector(connectorDoc('pg', 'postgres', 'PG', { options }), url);
  open.push(c);
  return c;
};
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };
const run = (c: Connector, sql: string, params: unknown[] = []) => c.query(c.prepare(sql, params), limits);

beforeAll(async () => {
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.people (id int primary key, name text, note text)`);
  await admin.query(`INSERT INTO ${schema}.people SELECT g, 'person ' || g, CASE WHEN g = 1 THEN 'ssn 123-45-6789' ELSE 'n/a' END FROM generate_series(1, 50) g`);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

describe('postgres connector', () => {
  it('runs a statement with $1 params and answers rows, row_count, columns and execution_time_ms', async () => {
    const c = make();
    const res = await run(c, `SELECT id, name FROM ${schema}.people WHERE id = $1 OR name = $2 ORDER BY id`, [3, 'person 7']);
    expect(res.rows).toEqual([{ id: 3, name: 'person 3' }, { id: 7, name: 'person 7' }]);
    expect(res.row_count).toBe(2);
    expect(res.columns).toEqual(['id', 'name']);
    expect(res.execution_time_ms).toBeGreaterThanOrEqual(0);
    expect(res.sql).toEqual({ operation: 'select', tables: [`${schema}.people`] });
  });

  it('cuts rows at maxRows with the truncated flag (the forced LIMIT fetches one more)', async () => {
    const c = make({ maxRows: 10 });
    const prepared = c.prepare(`SELECT id FROM ${schema}.people ORDER BY id`, []);
    expect(prepared.text).toMatch(/LIMIT 11$/);
    const res = await c.query(prepared, { timeoutMs: 5000, maxRows: 10, maxResultBytes: 1 << 20, redact: false });
    expect(res.row_count).toBe(10);
    expect(res.truncated).toBe(true);
  });

  it('cuts rows at the byte cap', async () => {
    const c = make();
    const res = await c.query(c.prepare(`SELECT id, name FROM ${schema}.people ORDER BY id`, []), { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 100, redact: false });
    expect(res.truncated).toBe(true);
    expect(res.row_count).toBeLessThan(50);
  });

  it('redacts PII in string cells and counts per kind', async () => {
    const c = make();
    const res = await c.query(c.prepare(`SELECT note FROM ${schema}.people WHERE id = $1`, [1]), { timeoutMs: 5000, maxRows: 10, maxResultBytes: 1 << 20, redact: true });
    expect(res.rows).toEqual([{ note: 'ssn [REDACTED:us_ssn]' }]);
    expect(res.redactions).toEqual({ us_ssn: 1 });
  });

  it('refuses pg_sleep on a read-only connector before anything reaches the server', () => {
    const c = make();
    expect(() => c.prepare('SELECT pg_sleep(5)', [])).toThrow(expect.objectContaining({ code: 'SQL_REFUSED', reason: 'DENIED_FUNCTION' }));
  });

  it('times out a slow query on a non-read-only connector and cancels it on the server', async () => {
    const c = make({ readOnly: false });
    const marker = `steward_timeout_${schema}`;
    const err = await c
      .query(c.prepare(`SELECT pg_sleep(60), '${marker}' AS m`, []), { timeoutMs: 300, maxRows: 10, maxResultBytes: 1 << 20, redact: false })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_TIMEOUT' });
    await eventually(async () => {
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`, [`%${marker}%`]);
      expect(rows[0].n).toBe(0);
    });
  });

  it('a read-only connector session refuses writes even when a statement gets past the guard', async () => {
    const ro = make();
    // NB: a hand-made prepared statement stands for a guard miss (say, a user function that writes)
    const err = await ro.query({ text: `UPDATE ${schema}.people SET note = $1 WHERE id = $2`, params: ['x', 2] }, limits).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTOR_QUERY_FAILED' });
    expect((err as Error).message).toContain('read-only transaction');
    const rw = make({ readOnly: false });
    await expect(run(rw, `UPDATE ${schema}.people SET note = $1 WHERE id = $2`, ['x', 2])).resolves.toMatchObject({ sql: { operation: 'update' }, affected_rows: 1, row_count: 0 });
  });

  it('keeps the read-only session when the URL carries its own options', async () => {
    const ro = make({}, `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`);
    const res = await ro.query({ text: 'SELECT count(*)::int AS n FROM people', params: [] }, limits);
    expect(res.rows).toEqual([{ n: 50 }]);
    const err = await ro.query({ text: 'UPDATE people SET note = $1 WHERE id = $2', params: ['x', 2] }, limits).catch((e: unknown) => e);
    expect((err as Error).message).toContain('read-only transaction');
  });

  it('refuses stacked statements that a parser/server disagreement would hide (backslash in a standard string)', () => {
    const c = make({ readOnly: false });
    expect(() => c.prepare(`SELECT 'a\\' ; DROP TABLE ${schema}.people; --'`, [])).toThrow(expect.objectContaining({ reason: 'STACKED_QUERIES' }));
  });

  it('refuses a statement whose placeholders outnumber the params', () => {
    expect(() => make().prepare(`SELECT $2::int`, [1])).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
  });

  it('never shows the connection URL or password in errors', async () => {
    const url = 'postgresql://steward_nobody:Sup3rS3cretPw@127.0.0.1:5432/test';
    const c = make({}, url);
    const err = (await run(c, 'SELECT 1').catch((e: unknown) => e)) as ConnectorError;
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.message).not.toContain('Sup3rS3cretPw');
    expect(err.message).not.toContain(url);
    const health = await c.health(2000);
    expect(health.ok).toBe(false);
    expect(health.error).not.toContain('Sup3rS3cretPw');
  });
});
