import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.js';
import { MYSQL_URL, PG_URL, runId } from '../test/fixtures.js';
import { CORPUS, type CorpusEntry } from './test/corpus/index.js';
import { guardSql } from './guard.js';
import { lexSql, toQuestionMarks, type SqlDialect } from './lexer.js';

/**
 * Every corpus statement goes through the guard exactly as a read-only connector runs it; an allowed
 * one then runs on the real server inside a transaction that is rolled back. A counting wrapper around
 * both clients records every corpus statement that reached a server.
 */
const space = runId();
let pgClient: pg.Client;
let myAdmin: mysql.Connection;
let myClient: mysql.Connection;
const reached: { entry: CorpusEntry; dialect: SqlDialect }[] = [];

const FIXTURE = [
  'CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(64), email VARCHAR(128), country VARCHAR(2), created_at TIMESTAMP)',
  'CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total NUMERIC(10,2), status VARCHAR(16), created_at TIMESTAMP)',
  "INSERT INTO customers VALUES (1, 'Ada', 'ada@corp.io', 'GB', '2024-01-01'), (2, 'Alan', NULL, 'GB', '2024-02-01'), (3, 'Grace', 'grace@corp.io', 'US', '2024-03-01')",
  "INSERT INTO orders VALUES (1, 1, 12.5, 'new', '2024-04-01'), (2, 1, 30, 'shipped', '2024-04-02'), (3, 2, 7, 'shipped', '2024-04-03'), (4, 3, 99, 'new', '2024-04-04')",
];

beforeAll(async () => {
  pgClient = new pg.Client({ connectionString: PG_URL });
  await pgClient.connect();
  await pgClient.query(`CREATE SCHEMA ${space}`);
  for (const s of FIXTURE) await pgClient.query(s.replace(/(TABLE|INTO) (\w+)/, `$1 ${space}.$2`));
  myAdmin = await mysql.createConnection({ uri: MYSQL_URL });
  await myAdmin.query(`CREATE DATABASE ${space}`);
  myClient = await mysql.createConnection({ uri: MYSQL_URL.replace(/\/test$/, `/${space}`) });
  for (const s of FIXTURE) await myClient.query(s);
});

afterAll(async () => {
  await pgClient?.query(`DROP SCHEMA IF EXISTS ${space} CASCADE`);
  await pgClient?.end();
  await myClient?.end();
  await myAdmin?.query(`DROP DATABASE IF EXISTS ${space}`);
  await myAdmin?.end();
});

/** The counting wrapper: the only way a corpus statement reaches a server. */
async function runOnServer(entry: CorpusEntry, dialect: SqlDialect, text: string): Promise<void> {
  reached.push({ entry, dialect });
  const params = entry.params ?? [];
  if (dialect === 'postgresql') {
    await pgClient.query('BEGIN');
    try {
      await pgClient.query(`SET LOCAL search_path TO ${space}`);
      await pgClient.query("SET LOCAL statement_timeout = '10s'");
      await pgClient.query({ text, values: params, queryMode: 'extended' } as pg.QueryConfig);
    } finally {
      await pgClient.query('ROLLBACK');
    }
    return;
  }
  const { text: sql, values } = toQuestionMarks(text, params, lexSql(text, 'mysql'));
  await myClient.query('START TRANSACTION');
  try {
    await myClient.execute(sql, values as never);
  } finally {
    await myClient.query('ROLLBACK');
  }
}

const cases = CORPUS.flatMap((entry) =>
  (entry.dialect === 'both' ? (['postgresql', 'mysql'] as const) : [entry.dialect]).map((dialect) => ({
    entry,
    dialect,
    name: `${entry.verdict === 'benign' ? 'allows' : 'refuses'} [${dialect}] ${entry.note}: ${JSON.stringify(entry.sql).slice(0, 90)}`,
  })),
);

describe('SQL guard corpus', () => {
  it('holds at least 150 statements, half of them hostile', () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(cases.filter((c) => c.entry.verdict === 'hostile').length * 2).toBeGreaterThanOrEqual(cases.length - 10);
  });

  it.each(cases)('$name', async ({ entry, dialect }) => {
    let guarded;
    try {
      guarded = guardSql(entry.sql, {
        dialect,
        readOnly: true,
        forceLimit: 1001,
        allowedTables: entry.allowedTables,
        defaultSchema: space,
      });
    } catch (e) {
      expect(e).toBeInstanceOf(ConnectorError);
      expect((e as ConnectorError).code).toBe('SQL_REFUSED');
      expect(entry.verdict, `refused (${(e as ConnectorError).reason}): ${(e as Error).message}`).toBe('hostile');
      return;
    }
    expect(entry.verdict, `allowed: ${guarded.text}`).toBe('benign');
    await runOnServer(entry, dialect, guarded.text);
  });

  it('no hostile statement reached a server; every benign one did', () => {
    expect(reached.filter((r) => r.entry.verdict === 'hostile')).toEqual([]);
    expect(reached.length).toBe(cases.filter((c) => c.entry.verdict === 'benign').length);
  });
});
