import pg from 'pg';
import { withTimeout, type Db, type Queryable, type QueryOptions } from './db.js';

export interface PostgresOptions {
  url: string;
  /** Optional schema (created if missing) put first on the search_path; tests use one each. */
  schema?: string;
  /** @default 10 */
  poolSize?: number;
  /** Server-side statement timeout. @default 30s */
  statementTimeoutMs?: number;
  /** @default 5s */
  connectTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Prepared statement names by statement text (one name per text in the process; pg prepares per connection). */
const statementNames = new Map<string, string>();

/** pg's query config: a named (prepared) statement when asked for, else text and values. */
function config(
  sql: string,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): pg.QueryConfig {
  const values = params as unknown[] | undefined;
  if (options?.prepare !== true) return { text: sql, values };
  let name = statementNames.get(sql);
  if (name === undefined) statementNames.set(sql, (name = `steward_${statementNames.size + 1}`));
  return { name, text: sql, values };
}

export async function openPostgres(options: PostgresOptions): Promise<Db> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid schema name ${JSON.stringify(options.schema)}`);
  }
  const makePool = (extra: string, max: number) => {
    const settings = [options.schema ? `-c search_path=${options.schema},public` : '', extra].filter(Boolean).join(' ');
    const p = new pg.Pool({
      connectionString: options.url,
      max,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      ...(settings ? { options: settings } : {}),
    });
    // NB: an idle client losing its connection emits 'error' on the pool; unhandled, it would crash the process.
    p.on('error', () => undefined);
    return p;
  };
  const pool = makePool('', options.poolSize ?? 10);
  const relaxedPool = makePool('-c synchronous_commit=off', 2);
  if (options.schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);

  const query: Queryable['query'] = async (sql, params, opts) => {
    const res = await pool.query(config(sql, params, opts));
    return { rows: res.rows };
  };
  const forClient = (client: pg.PoolClient): Queryable => ({
    query: async (sql, params, opts) => ({ rows: (await client.query(config(sql, params, opts))).rows }),
    exec: async (sql) => {
      await client.query(sql);
    },
  });
  return {
    backend: 'postgres',
    query,
    relaxed: {
      query: async (sql, params, opts) => ({ rows: (await relaxedPool.query(config(sql, params, opts))).rows }),
      exec: async (sql) => {
        await relaxedPool.query(sql);
      },
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(forClient(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async session(fn) {
      const client = await pool.connect();
      try {
        return await fn(forClient(client));
      } finally {
        client.release();
      }
    },
    async ping(timeoutMs = 2000) {
      const started = performance.now();
      await withTimeout(pool.query('SELECT 1'), timeoutMs, 'database ping');
      return performance.now() - started;
    },
    async close() {
      await Promise.all([pool.end(), relaxedPool.end()]);
    },
  };
}
