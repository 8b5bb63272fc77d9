import pg from 'pg';
import { withTimeout } from '../limits.js';
import type { ConnectorOptions, EffectiveLimits } from '../options.js';
import type { Connector, PreparedStatement, QueryResult } from '../types.js';
import { guardStatement, releaseAfter, SqlConnectorBase, sqlResult } from './sql-common.js';

/**
 * PostgreSQL through a `pg` Pool. Every statement goes over the extended protocol, where the server
 * itself refuses a second statement; sessions start with standard_conforming_strings on (what the guard's
 * lexer assumes), and on read-only connectors with default_transaction_read_only, so a function with side
 * effects fails even if the guard missed it.
 * A timed-out query is cancelled with pg_cancel_backend from a separate connection (the pool may be full).
 */
export class PostgresConnector extends SqlConnectorBase implements Connector {
  private pool: pg.Pool | undefined;

  constructor(name: string, url: string, options: ConnectorOptions) {
    super(name, 'postgres', url, options);
  }

  private config(): pg.PoolConfig {
    const { connectionString, options } = sessionOptions(this.url, this.options.readOnly);
    return {
      connectionString,
      max: this.options.poolMax,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      // server-side backstop for the client-side deadline
      statement_timeout: this.options.timeoutMs + 1000,
      options,
      application_name: `steward-connector-${this.name}`.slice(0, 63),
    };
  }

  private ensurePool(): pg.Pool {
    if (!this.pool) {
      this.pool = new pg.Pool(this.config());
      // NB: an idle client losing its server emits on the pool; without a listener it would crash the process
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }

  protected ping(): Promise<unknown> {
    return this.ensurePool().query('SELECT 1');
  }

  prepare(statement: string, params: unknown): PreparedStatement {
    const { text, params: values, sql } = guardStatement(statement, params, 'postgresql', this.options);
    return { text, params: values, sql };
  }

  async query(prepared: PreparedStatement, limits: EffectiveLimits): Promise<QueryResult> {
    const pool = this.ensurePool();
    const started = performance.now();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      throw this.fail(e, 'connect');
    }
    const pid = (client as unknown as { processID: number }).processID;
    const work = client.query({
      text: prepared.text,
      values: prepared.params,
      queryMode: 'extended',
    } as pg.QueryConfig);
    try {
      const res = await withTimeout(work, limits.timeoutMs, () => this.cancel(pid));
      return sqlResult(res.rows, limits, started, prepared, {
        columns: res.fields?.map((f) => f.name),
        affectedRows: res.command === 'SELECT' || res.rowCount === null ? undefined : res.rowCount,
      });
    } catch (e) {
      throw this.fail(e, 'query');
    } finally {
      releaseAfter(work, () => client.release());
    }
  }

  private async cancel(pid: number): Promise<void> {
    const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.options.connectTimeoutMs });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.query('SELECT pg_cancel_backend($1)', [pid]);
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  protected readonly product = 'PostgreSQL';

  protected async endPool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}

/**
 * Settings every session starts with, after the URL's own options so that they win. standard_conforming_strings
 * is what the SQL guard's lexer assumes (a backslash in '...' is an ordinary character, lexer.ts): a server or
 * URL that turned it off would end strings where the guard does not, and run text the guard read as a string.
 */
function pinnedOptions(readOnly: boolean): string {
  return readOnly
    ? '-c standard_conforming_strings=on -c default_transaction_read_only=on'
    : '-c standard_conforming_strings=on';
}

/**
 * NB: pg lets values parsed from the connection string override the config object, so a URL carrying
 * `?options=...` would silently drop the pinned settings. The URL's options are moved into ours instead.
 */
export function sessionOptions(url: string, readOnly: boolean): { connectionString: string; options: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { connectionString: url, options: pinnedOptions(readOnly) };
  }
  const fromUrl = u.searchParams.get('options') ?? '';
  u.searchParams.delete('options');
  return {
    connectionString: u.toString(),
    options: [fromUrl, pinnedOptions(readOnly)].filter((o) => o !== '').join(' '),
  };
}
