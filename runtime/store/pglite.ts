import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { withTimeout, type Db, type Queryable } from './db.js';

export interface PgliteOptions {
  /** Data folder; absent: in memory (tests). */
  dataDir?: string;
}

/**
 * PostgreSQL settings of the embedded server. Its WebAssembly memory only grows, so the buffers are sized for one
 * session and a small working set rather than PostgreSQL's server defaults (128 MB shared buffers, 64 MB for
 * maintenance); see docs/reliability.md, "Memory".
 */
export const PGLITE_SETTINGS: readonly string[] = ['shared_buffers = 16MB', 'maintenance_work_mem = 16MB', 'temp_buffers = 4MB', 'wal_buffers = 1MB', 'work_mem = 2MB'];

/**
 * Embedded PostgreSQL (WebAssembly) — the same SQL as the server backend, one session per process.
 * PGlite queues statements itself; transactions hold that single session.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<Db> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = new PGlite({ dataDir: options.dataDir, postgresqlconf: [...PGLITE_SETTINGS] });
  await db.waitReady;

  const query: Queryable['query'] = async <R>(sql: string, params?: readonly unknown[]) => {
    const res = await db.query<R>(sql, params as unknown[] | undefined);
    return { rows: res.rows };
  };
  const exec = async (sql: string) => {
    await db.exec(sql);
  };
  return {
    backend: 'pglite',
    query,
    exec,
    // One embedded session: there is no separate commit mode worth having.
    relaxed: { query, exec },
    async transaction(fn) {
      return db.transaction(async (tx) =>
        fn({
          query: async <R>(sql: string, params?: readonly unknown[]) => ({ rows: (await tx.query<R>(sql, params as unknown[])).rows }),
          exec: async (sql: string) => {
            await tx.exec(sql);
          },
        }),
      );
    },
    async session(fn) {
      return fn({ query, exec });
    },
    async ping(timeoutMs = 2000) {
      const started = performance.now();
      await withTimeout(db.query('SELECT 1'), timeoutMs, 'database ping');
      return performance.now() - started;
    },
    async close() {
      await db.close();
    },
  };
}
