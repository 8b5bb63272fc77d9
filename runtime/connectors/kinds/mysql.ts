import mysql from 'mysql2/promise';
import { withTimeout } from '../limits.js';
import type { ConnectorOptions, EffectiveLimits } from '../options.js';
import { lexSql, toQuestionMarks } from '../sql/lexer.js';
import type { Connector, PreparedStatement, QueryResult, Row } from '../types.js';
import { guardStatement, releaseAfter, SqlConnectorBase, sqlResult } from './sql-common.js';

/**
 * sql_mode flags that change how the server reads text, which the SQL guard's lexer assumes off (lexer.ts):
 * NO_BACKSLASH_ESCAPES (a backslash no longer escapes a quote, so a string the guard reads to its end stops
 * early and the rest runs) and ANSI_QUOTES (`"` quotes names), with the combination modes that include
 * ANSI_QUOTES (they stay listed in @@sql_mode and would set it again).
 */
const LEXER_MODES = ['NO_BACKSLASH_ESCAPES', 'ANSI_QUOTES', 'ANSI', 'DB2', 'MAXDB', 'MSSQL', 'ORACLE', 'POSTGRESQL'];

/** Takes those flags out of the session's mode and keeps the rest of the server's (`,A,B,` less `,X,`). */
export const PIN_SQL_MODE = `SET SESSION sql_mode = TRIM(BOTH ',' FROM ${LEXER_MODES.reduce(
  (expr, mode) => `REPLACE(${expr}, ',${mode},', ',')`,
  "CONCAT(',', @@SESSION.sql_mode, ',')",
)})`;

/**
 * MySQL and MariaDB through a mysql2 pool. Statements run as server-side prepared statements
 * (`execute`): values never pass through client-side string formatting, and the server refuses stacked
 * statements (multipleStatements stays off). `$n` placeholders become `?` (lexer.ts, outside strings and
 * comments). Every session gets the sql_mode the guard assumes before its first statement, and on read-only
 * connectors SET SESSION TRANSACTION READ ONLY. A timed-out query is stopped with KILL QUERY from a
 * separate connection.
 */
export class MysqlConnector extends SqlConnectorBase implements Connector {
  private pool: mysql.Pool | undefined;
  private readonly database: string | undefined;
  /** Per pooled session (mysql2's connection under the promise wrapper): its settings, applied once. */
  private readonly sessions = new WeakMap<object, Promise<void>>();

  constructor(name: string, url: string, options: ConnectorOptions) {
    super(name, 'mysql', url, options);
    try {
      this.database = decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || undefined;
    } catch {
      this.database = undefined;
    }
  }

  private ensurePool(): mysql.Pool {
    if (!this.pool) {
      this.pool = mysql.createPool({
        uri: withoutUnsafeParams(this.url),
        connectionLimit: this.options.poolMax,
        connectTimeout: this.options.connectTimeoutMs,
        multipleStatements: false,
        supportBigNumbers: true,
        bigNumberStrings: true,
        dateStrings: true,
        enableKeepAlive: true,
      });
      // NB: the 'connection' event hands the callback-API connection, not the promise wrapper
      this.pool.pool.on('connection', (conn: { on(ev: string, f: () => void): void }) =>
        conn.on('error', () => undefined),
      );
    }
    return this.pool;
  }

  /**
   * A pooled connection whose session has the settings the guard assumes. NB: they are applied on its first
   * checkout and awaited (an event listener could not fail the call), so a session that cannot take them is
   * destroyed and the call fails rather than run under another sql_mode.
   */
  private async checkout(pool: mysql.Pool): Promise<mysql.PoolConnection> {
    const conn = await pool.getConnection();
    let ready = this.sessions.get(conn.connection);
    if (!ready) {
      ready = this.pinSession(conn);
      this.sessions.set(conn.connection, ready);
    }
    try {
      await ready;
    } catch (e) {
      conn.destroy();
      throw e;
    }
    return conn;
  }

  private async pinSession(conn: mysql.PoolConnection): Promise<void> {
    await conn.query(PIN_SQL_MODE);
    if (this.options.readOnly) await conn.query('SET SESSION TRANSACTION READ ONLY');
  }

  protected ping(): Promise<unknown> {
    return this.ensurePool().query('SELECT 1');
  }

  prepare(statement: string, params: unknown): PreparedStatement {
    const { text, params: values, sql } = guardStatement(statement, params, 'mysql', this.options, this.database);
    return { text, params: values, sql };
  }

  async query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult> {
    const pool = this.ensurePool();
    const started = performance.now();
    const { text, values } = toQuestionMarks(prepared.text, prepared.params, lexSql(prepared.text, 'mysql'));
    let conn: mysql.PoolConnection;
    try {
      conn = await this.checkout(pool);
    } catch (e) {
      throw this.fail(e, 'connect');
    }
    const threadId = conn.threadId;
    const work = conn.execute({
      sql: text,
      values: values.map((v) => (v === undefined ? null : v)) as never,
      rowsAsArray: false,
    });
    try {
      const [result, fields] = await withTimeout(work, limits.timeoutMs, () => this.kill(threadId));
      // a write answers a ResultSetHeader, not rows
      const header = Array.isArray(result) ? undefined : (result as { affectedRows?: number });
      const rows = header ? [] : (result as Row[]);
      return sqlResult(rows, limits, started, prepared, {
        columns: fields?.map((f) => f.name),
        affectedRows: header?.affectedRows,
      });
    } catch (e) {
      throw this.fail(e, 'query');
    } finally {
      releaseAfter(work, () => conn.release());
    }
  }

  private async kill(threadId: number): Promise<void> {
    const c = await mysql.createConnection({
      uri: withoutUnsafeParams(this.url),
      connectTimeout: this.options.connectTimeoutMs,
    });
    try {
      await c.query(`KILL QUERY ${Number(threadId)}`);
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  protected readonly product = 'MySQL';

  protected async endPool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}

/**
 * NB: mysql2 lets URL parameters override falsy options, so `?multipleStatements=true` in a connection
 * URL would turn stacked statements back on. Those parameters are removed.
 */
const UNSAFE_PARAMS = ['multipleStatements', 'flags', 'localInfile', 'infileStreamFactory', 'typeCast', 'stream'];

export function withoutUnsafeParams(url: string): string {
  try {
    const u = new URL(url);
    for (const p of UNSAFE_PARAMS) u.searchParams.delete(p);
    return u.toString();
  } catch {
    return url;
  }
}
