import nodeSqlParser from 'node-sql-parser';
import { describe, expect, it } from 'vitest';
import { lexSql, type SqlDialect } from './lexer.js';
import { collectFacts, type AstNode } from './walk.js';

const parser = new nodeSqlParser.Parser();
/** The facts of a statement, parsed from the lexer's view as the guard does. */
const facts = (sql: string, dialect: SqlDialect) =>
  collectFacts(
    parser.astify(lexSql(sql, dialect, { view: true }).view, {
      database: dialect === 'postgresql' ? 'PostgresQL' : 'MySQL',
    }) as unknown as AstNode,
    dialect,
  );
const tables = (sql: string, dialect: SqlDialect = 'postgresql') =>
  facts(sql, dialect).tables.map((t) => (t.schema ? `${t.schema}.${t.name}` : t.name));
const calls = (sql: string, dialect: SqlDialect = 'postgresql') =>
  facts(sql, dialect).functions.map((f) => (f.schema ? `${f.schema}.${f.name}` : f.name));

describe('collectFacts: CTE names by scope', () => {
  it.each([
    ['a CTE is not a table in its main query', 'WITH s AS (SELECT * FROM t) SELECT * FROM s', ['t']],
    [
      'nor in the subqueries of its main query',
      'WITH s AS (SELECT 1) SELECT * FROM t WHERE EXISTS (SELECT 1 FROM s)',
      ['t'],
    ],
    [
      'nor in a later CTE of the same WITH',
      'WITH a AS (SELECT * FROM t), b AS (SELECT * FROM a) SELECT * FROM b',
      ['t'],
    ],
    [
      'but an earlier CTE does not see a later one',
      'WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a',
      ['b'],
    ],
    [
      'a non-recursive CTE does not see itself',
      'WITH secrets AS (SELECT * FROM secrets) SELECT * FROM secrets',
      ['secrets'],
    ],
    ['a recursive one does', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r', []],
    [
      'in PostgreSQL a RECURSIVE WITH lets any CTE see any other',
      'WITH RECURSIVE a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a',
      [],
    ],
    [
      'a CTE in a subquery is not visible outside it',
      'SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)',
      ['secrets'],
    ],
    [
      'a CTE inside a CTE is not visible outside it',
      'WITH x AS (WITH secrets AS (SELECT 1) SELECT 1) SELECT * FROM secrets',
      ['secrets'],
    ],
    [
      'a CTE inside a derived table is not visible beside it',
      'SELECT * FROM (WITH s AS (SELECT 1) SELECT * FROM s) d, s',
      ['s'],
    ],
    ['a WITH heading a UNION covers its members', 'WITH s AS (SELECT 1) SELECT * FROM s UNION SELECT * FROM s', []],
    [
      'a parenthesised first member keeps its WITH',
      '(WITH s AS (SELECT 1) SELECT * FROM s) UNION SELECT * FROM s',
      ['s'],
    ],
    [
      'a later member keeps its WITH',
      'SELECT 1 UNION (WITH s AS (SELECT 1) SELECT * FROM s) UNION SELECT * FROM s',
      ['s'],
    ],
    ['a qualified name is never a CTE', 'WITH orders AS (SELECT 1) SELECT * FROM public.orders', ['public.orders']],
    [
      'a quoted name differs from an unquoted one in PostgreSQL',
      'WITH "Secrets" AS (SELECT 1) SELECT * FROM secrets',
      ['secrets'],
    ],
  ])('%s', (_name, sql, expected) => {
    expect(tables(sql)).toEqual(expected);
  });

  it('keeps MySQL CTE names exact (a name in another case is checked as a table: stricter, never looser)', () => {
    expect(tables('SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)', 'mysql')).toEqual([
      'secrets',
    ]);
    expect(tables('WITH Secrets AS (SELECT 1) SELECT * FROM secrets', 'mysql')).toEqual(['secrets']);
    expect(tables('WITH s AS (SELECT * FROM t) SELECT * FROM s', 'mysql')).toEqual(['t']);
  });

  it('names the schema of a three-part PostgreSQL name, and folds unquoted names only', () => {
    expect(tables('SELECT * FROM test.public.orders')).toEqual(['public.orders']);
    expect(tables('SELECT * FROM Public."Orders", ORDERS')).toEqual(['public.Orders', 'orders']);
    expect(tables('SELECT * FROM `Test`.`Orders`, orders', 'mysql')).toEqual(['Test.Orders', 'orders']);
  });
});

describe('collectFacts: calls as node-sql-parser reports them', () => {
  it.each([
    [
      'count(*), aggregates and window functions',
      'SELECT count(*), SUM(a), row_number() OVER (ORDER BY a), lag(a) OVER w FROM t WINDOW w AS (ORDER BY a)',
      ['count', 'sum', 'row_number', 'lag'],
    ],
    [
      'CAST, ::, EXTRACT and CASE are syntax, not calls',
      "SELECT CAST(a AS int), a::text, EXTRACT(YEAR FROM b), CASE WHEN a THEN 1 END, interval '1 day' FROM t",
      [],
    ],
    [
      'COALESCE, NULLIF, GREATEST, LEAST',
      'SELECT COALESCE(a, 1), NULLIF(a, 1), GREATEST(a, 1), LEAST(a, 1) FROM t',
      ['coalesce', 'nullif', 'greatest', 'least'],
    ],
    [
      'now(), and current_date without parentheses',
      'SELECT now(), current_date, current_timestamp, localtime FROM t',
      ['now', 'current_date', 'current_timestamp', 'localtime'],
    ],
    [
      'keywords the parser reads as calls',
      'SELECT * FROM t WHERE NOT (a = 1) AND EXISTS (SELECT 1) AND a = ANY (ARRAY[1])',
      ['not', 'exists', 'any'],
    ],
    [
      'session keywords read as column names are calls',
      'SELECT user, current_schema, current_catalog, current_role, "user" FROM t',
      ['user', 'current_schema', 'current_catalog', 'current_role'],
    ],
    [
      'a schema-qualified call keeps its schema; a quoted name keeps its case',
      'SELECT pg_catalog.lower(a), "Lower"(a), MySchema.f(a) FROM t',
      ['pg_catalog.lower', 'Lower', 'myschema.f'],
    ],
    [
      'a table function, not its column list',
      'SELECT * FROM crosstab($$x$$) AS ct(a int), generate_series(1, 3) AS g(n)',
      ['crosstab', 'generate_series'],
    ],
  ])('PostgreSQL: %s', (_name, sql, expected) => {
    expect(calls(sql)).toEqual(expected);
  });

  it.each([
    [
      'count(*), aggregates and window functions',
      'SELECT COUNT(*), GROUP_CONCAT(a), ROW_NUMBER() OVER (ORDER BY a) FROM t',
      ['count', 'group_concat', 'row_number'],
    ],
    [
      'CAST and EXTRACT are syntax; CONVERT, IF, IFNULL are calls',
      'SELECT CAST(a AS CHAR), EXTRACT(YEAR FROM a), CONVERT(a, CHAR), IF(a, 1, 2), IFNULL(a, 1) FROM t',
      ['convert', 'if', 'ifnull'],
    ],
    [
      'NOW(), CURRENT_DATE, CURRENT_ROLE',
      'SELECT NOW(), CURRENT_DATE, CURRENT_ROLE FROM t',
      ['now', 'current_date', 'current_role'],
    ],
    [
      'a database-qualified call is a stored function: the database name keeps its case',
      'SELECT Test.Lower(a) FROM t',
      ['Test.lower'],
    ],
  ])('MySQL: %s', (_name, sql, expected) => {
    expect(calls(sql, 'mysql')).toEqual(expected);
  });

  it('collects MySQL system and user variables, not placeholders', () => {
    expect(facts('SELECT @@version, @@global.datadir, @x, $1 FROM t', 'mysql').variables).toEqual([
      '@@version',
      '@@global.datadir',
      '@x',
    ]);
  });
});

describe('collectFacts: type names', () => {
  it.each([
    [
      'CAST, and each type of a :: chain, quoted or not',
      'SELECT CAST(a AS regclass), b::oid::regrole, c::"regtype" FROM t',
      ['regclass', 'oid', 'regrole', 'regtype'],
    ],
    [
      'a cast inside a WHERE clause and a subquery',
      "SELECT 1 FROM t WHERE EXISTS (SELECT 1 WHERE 'x'::regnamespace IS NOT NULL)",
      ['regnamespace'],
    ],
    ['a column definition', 'CREATE TABLE c (r regclass)', ['regclass']],
    ['a typed literal', "SELECT DATE '2024-01-01' FROM t", ['date']],
  ])('PostgreSQL: %s', (_name, sql, expected) => {
    expect(facts(sql, 'postgresql').types).toEqual(expect.arrayContaining(expected));
  });

  it("reads a typed literal of any type the way node-sql-parser shapes DATE '…' ({type, value})", () => {
    const ast = { type: 'select', columns: [{ expr: { type: 'regclass', value: 'secrets' } }] };
    expect(collectFacts(ast, 'postgresql').types).toContain('regclass');
  });
});
