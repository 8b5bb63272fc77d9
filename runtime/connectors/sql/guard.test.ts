import { describe, expect, it } from 'vitest';
import { guardSql, MAX_STATEMENT_CHARS, type SqlGuardOptions } from './guard.js';
import { CORPUS } from './test/corpus/index.js';

const pgRead: SqlGuardOptions = { dialect: 'postgresql', readOnly: true };
const refusal = (sql: string, o: SqlGuardOptions) => {
  try {
    guardSql(sql, o);
    return undefined;
  } catch (e) {
    return (e as { reason?: string }).reason;
  }
};

describe('guardSql', () => {
  it.each([
    [
      'adds a LIMIT on its own line, dropping a trailing comment that could swallow it',
      'SELECT * FROM t -- note',
      'SELECT * FROM t\nLIMIT 10',
    ],
    ['keeps a smaller literal LIMIT', 'SELECT * FROM t LIMIT 3', 'SELECT * FROM t LIMIT 3'],
    [
      'wraps a larger LIMIT',
      'SELECT * FROM t LIMIT 50',
      'SELECT * FROM (\nSELECT * FROM t LIMIT 50\n) AS steward_limited LIMIT 10',
    ],
    [
      'wraps a set operation',
      'SELECT a FROM t UNION SELECT a FROM u',
      'SELECT * FROM (\nSELECT a FROM t UNION SELECT a FROM u\n) AS steward_limited LIMIT 10',
    ],
    ['drops a trailing semicolon', 'SELECT 1 LIMIT 1;', 'SELECT 1 LIMIT 1'],
    ['leaves EXPLAIN alone', 'EXPLAIN SELECT * FROM t', 'EXPLAIN SELECT * FROM t'],
  ])('%s', (_name, sql, text) => {
    expect(guardSql(sql, { ...pgRead, forceLimit: 10 }).text).toBe(text);
  });

  it('answers the operation and the schema-qualified tables for policies (CTE names are not tables)', () => {
    expect(
      guardSql('WITH x AS (SELECT * FROM sales.orders) SELECT * FROM x JOIN customers c ON true', pgRead).summary,
    ).toEqual({
      operation: 'select',
      tables: ['public.customers', 'sales.orders'],
      limit: null,
    });
    expect(guardSql('EXPLAIN SELECT * FROM t LIMIT 5', pgRead).summary).toEqual({
      operation: 'explain',
      tables: ['public.t'],
      limit: null,
    });
    expect(guardSql('DELETE FROM t WHERE id = $1', { dialect: 'postgresql', readOnly: false }).summary).toEqual({
      operation: 'delete',
      tables: ['public.t'],
      limit: null,
    });
  });

  it("answers the statement's own LIMIT, before the forced one: a literal, or which $n gives it", () => {
    const capped = { ...pgRead, forceLimit: 100 };
    expect(guardSql('SELECT * FROM t LIMIT 5000', capped).summary.limit).toBe(5000);
    expect(guardSql('SELECT * FROM t LIMIT 10 OFFSET 20', capped).summary.limit).toBe(10);
    expect(guardSql('SELECT * FROM t', capped).summary.limit).toBeNull();
    expect(guardSql('SELECT * FROM t LIMIT ALL', capped).summary.limit).toBeNull();
    const param = guardSql('SELECT * FROM t LIMIT $2', capped);
    expect([param.summary.limit, param.limitParam]).toEqual([null, 2]);
    expect(guardSql('SELECT * FROM t LIMIT 5, 2000', { dialect: 'mysql', readOnly: true }).summary.limit).toBe(2000);
  });

  it('enforces the table allowlist everywhere in the statement, with bare names in the default schema', () => {
    const o: SqlGuardOptions = { ...pgRead, allowedTables: ['orders', 'reporting.daily'] };
    expect(refusal('SELECT * FROM orders JOIN reporting.daily d ON true', o)).toBeUndefined();
    expect(refusal('SELECT * FROM public.orders', o)).toBeUndefined();
    expect(refusal('SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM users)', o)).toBe('TABLE_NOT_ALLOWED');
    expect(refusal('SELECT * FROM other.orders', o)).toBe('TABLE_NOT_ALLOWED');
    expect(refusal('SELECT * FROM orders UNION SELECT * FROM pg_catalog.pg_authid', o)).toBe('TABLE_NOT_ALLOWED');
    expect(refusal('SELECT * FROM (SELECT * FROM secrets) s', o)).toBe('TABLE_NOT_ALLOWED');
    expect(
      refusal('SELECT * FROM `test`.`orders`', {
        dialect: 'mysql',
        readOnly: true,
        allowedTables: ['test.orders'],
        defaultSchema: 'test',
      }),
    ).toBeUndefined();
  });

  it('applies extra denied functions from the connector options', () => {
    expect(refusal('SELECT my_export(1)', { ...pgRead, deniedFunctions: ['my_export'] })).toBe('DENIED_FUNCTION');
  });

  it('refuses a function off the allowlist on a read-only connector, and allows it by allowedFunctions', () => {
    expect(refusal('SELECT my_report(1)', pgRead)).toBe('FUNCTION_NOT_ALLOWED');
    expect(refusal('SELECT my_report(1)', { ...pgRead, allowedFunctions: ['my_report'] })).toBeUndefined();
    expect(
      refusal('SELECT reports.my_report(1)', { ...pgRead, allowedFunctions: ['reports.my_report'] }),
    ).toBeUndefined();
  });

  it('confines a read-write connector with allowedTables: functions, server variables and SET', () => {
    const rw: SqlGuardOptions = { dialect: 'postgresql', readOnly: false, allowedTables: ['orders'] };
    expect(refusal('UPDATE orders SET note = upper(note)', rw)).toBeUndefined();
    expect(
      refusal(
        "UPDATE orders SET note = (SELECT string_agg(word, ' ') FROM ts_stat('SELECT to_tsvector(secret) FROM secrets'))",
        rw,
      ),
    ).toBe('DENIED_FUNCTION');
    expect(refusal('UPDATE orders SET note = version()', rw)).toBe('FUNCTION_NOT_ALLOWED');
    expect(refusal('SET standard_conforming_strings = off', rw)).toBe('SERVER_VARIABLE');
    const my: SqlGuardOptions = { dialect: 'mysql', readOnly: false, allowedTables: ['orders'], defaultSchema: 'shop' };
    expect(refusal("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'", my)).toBe('SERVER_VARIABLE');
    expect(refusal('UPDATE orders SET note = @@version', my)).toBe('SERVER_VARIABLE');
    const open: SqlGuardOptions = { dialect: 'mysql', readOnly: false };
    expect(refusal('SELECT @@version, VERSION()', open)).toBeUndefined();
  });

  it('refuses casts to catalogue types on confined connectors, in every form the parser reads', () => {
    const confined: SqlGuardOptions[] = [pgRead, { dialect: 'postgresql', readOnly: false, allowedTables: ['orders'] }];
    const casts = [
      "SELECT CAST(CAST(g AS oid) AS regclass) AS rel FROM generate_series(16384, 100000) g WHERE CAST(CAST(CAST(g AS oid) AS regclass) AS text) !~ '^[0-9]+$'",
      'SELECT CAST(CAST(10 AS oid) AS regrole)',
      "SELECT 'secrets'::regclass",
      'SELECT id FROM orders WHERE note::text::RegType IS NOT NULL',
      'SELECT x::"regnamespace" FROM orders',
      "SELECT regclass('secrets')",
      "SELECT pg_catalog.regproc('leak')",
    ];
    for (const o of confined) for (const sql of casts) expect([sql, refusal(sql, o)]).toEqual([sql, 'CATALOG_CAST']);
    expect(refusal("SELECT regclass('secrets')", { ...pgRead, allowedFunctions: ['reg*'] })).toBe('CATALOG_CAST');
    expect(
      refusal('CREATE TABLE orders (r regclass)', {
        dialect: 'postgresql',
        readOnly: false,
        allowedTables: ['orders'],
      }),
    ).toBe('CATALOG_CAST');
    expect(refusal("SELECT CAST(id AS text), id::oid, DATE '2024-01-01' FROM orders", pgRead)).toBeUndefined();
    expect(refusal("SELECT 'secrets'::regclass", { dialect: 'postgresql', readOnly: false })).toBeUndefined();
  });

  it('parses what the server reads, not what node-sql-parser would read from the text', () => {
    const o: SqlGuardOptions = { ...pgRead, allowedTables: ['orders'] };
    expect(refusal("SELECT 'a\\' AS p, (SELECT secret FROM secrets) AS q -- '\n FROM orders", o)).toBe(
      'TABLE_NOT_ALLOWED',
    );
    expect(refusal('SELECT 1 /* /* */ */ , (SELECT secret FROM secrets) AS q FROM orders', o)).toBe(
      'TABLE_NOT_ALLOWED',
    );
    expect(refusal('SELECT 1 /* /* */ , (SELECT secret FROM secrets) AS q */ FROM orders', o)).toBeUndefined();
    const my: SqlGuardOptions = { dialect: 'mysql', readOnly: true, allowedTables: ['orders'], defaultSchema: 'shop' };
    expect(refusal('SELECT id --(SELECT ASCII(secret) FROM secrets)\n FROM orders', my)).toBe('TABLE_NOT_ALLOWED');
    expect(
      refusal("SELECT id FROM orders WHERE note = 'x\\' UNION SELECT secret FROM secrets -- '", my),
    ).toBeUndefined();
    expect(
      guardSql("SELECT id FROM orders WHERE note = 'x\\' UNION SELECT secret FROM secrets -- '", my).summary.tables,
    ).toEqual(['shop.orders']);
    // PostgreSQL: an E string continued on the next line keeps its backslash escapes; MySQL: `--` and DEL is a comment
    expect(refusal("SELECT E'x'\n'\\'' UNION SELECT secret FROM secrets --' AS a", o)).toBe('TABLE_NOT_ALLOWED');
    expect(refusal("SELECT id FROM orders WHERE 1=1 --\x7f'\nUNION SELECT secret FROM secrets -- '", my)).toBe(
      'TABLE_NOT_ALLOWED',
    );
  });

  it('refuses PostgreSQL FROM ONLY, which the parser misreads, on every connector', () => {
    const rw: SqlGuardOptions = { dialect: 'postgresql', readOnly: false };
    expect(refusal('SELECT * FROM ONLY secrets', rw)).toBe('PARSE_ERROR');
    expect(refusal('SELECT * FROM ONLY (secrets)', rw)).toBe('PARSE_ERROR');
    expect(refusal('DELETE FROM ONLY secrets', rw)).toBe('PARSE_ERROR');
  });

  it('tells policies the schema of every table: a three-part name, a catalogue table, a quoted name', () => {
    expect(guardSql('SELECT * FROM test.sales.orders, pg_authid, "Mixed"', pgRead).summary.tables).toEqual([
      'pg_catalog.pg_authid',
      'public.Mixed',
      'sales.orders',
    ]);
  });

  it('still refuses stacked and unparseable statements on a read-write connector, but allows writes', () => {
    const rw: SqlGuardOptions = { dialect: 'postgresql', readOnly: false };
    expect(refusal('UPDATE t SET a = 1', rw)).toBeUndefined();
    expect(refusal('SELECT pg_sleep(1)', rw)).toBeUndefined();
    expect(refusal('UPDATE t SET a = 1; DROP TABLE t', rw)).toBe('STACKED_QUERIES');
    expect(refusal('SELEC 1', rw)).toBe('PARSE_ERROR');
  });

  it('refuses statements over the size cap without parsing them', () => {
    expect(refusal(`SELECT '${'x'.repeat(MAX_STATEMENT_CHARS)}'`, pgRead)).toBe('TOO_LONG');
  });

  it('refuses statements with more tokens than the parser can take on the event loop', () => {
    expect(refusal('SELECT ' + 'a,'.repeat(2000) + 'b FROM t', pgRead)).toBe('TOO_COMPLEX');
    expect(refusal('SELECT ' + '('.repeat(5000) + '1' + ')'.repeat(5000), pgRead)).toBe('TOO_COMPLEX');
    expect(refusal(`SELECT '${'long string '.repeat(4000)}'`, pgRead)).toBeUndefined();
  });

  it('fails closed on deep nesting within the token cap', () => {
    const r = refusal('SELECT ' + '('.repeat(900) + '1' + ')'.repeat(900), pgRead);
    expect(r === undefined || r === 'PARSE_ERROR').toBe(true);
  });

  it('parses the corpus (measured: the figure goes to the report, not an assertion)', () => {
    const times: number[] = [];
    for (const e of CORPUS) {
      const t = performance.now();
      refusal(e.sql, { dialect: e.dialect === 'mysql' ? 'mysql' : 'postgresql', readOnly: true, forceLimit: 1001 });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    expect(times.length).toBe(CORPUS.length);
  });
});
