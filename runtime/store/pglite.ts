import { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../../platform/log.js';
import { withTimeout, type Db, type Queryable } from './db.js';
import { seedDataDir, type TemplateOptions } from './pglite-template.js';

export interface PgliteOptions {
  /** Data folder; absent: in memory (tests). */
  dataDir?: string;
  /** Where the initial data folder is cached (pglite-template.ts). */
  templates?: TemplateOptions['cacheDirs'];
  /** Says what takes long: creating the database the first time. */
  log?: Pick<Logger, 'info' | 'warn'>;
}

/**
 * PostgreSQL settings of the embedded server. Its WebAssembly memory only grows, so the buffers are sized for one
 * session and a small working set rather than PostgreSQL's server defaults (128 MB shared buffers, 64 MB for
 * maintenance); see docs/reliability.md, "Memory".
 */
export const PGLITE_SETTINGS: readonly string[] = [
  'shared_buffers = 16MB',
  'maintenance_work_mem = 16MB',
  'temp_buffers = 4MB',
  'wal_buffers = 1MB',
  'work_mem = 2MB',
];

/**
 * Embedded PostgreSQL (WebAssembly) — the same SQL as the server backend, one session per process.
 * PGlite queues statements itself; transactions hold that single session.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<Db> {
  // A new data folder starts as a copy of the cached template rather than a run of initdb (seconds of WebAssembly).
  const seeding = options.dataDir
    ? await seedDataDir(options.dataDir, { cacheDirs: options.templates, log: options.log })
    : undefined;
  const started = performance.now();
  if (seeding === 'initdb')
    options.log?.info({ dataDir: options.dataDir }, 'creating the embedded database (no template to copy)');
  const db = new PGlite({ dataDir: options.dataDir, postgresqlconf: [...PGLITE_SETTINGS] });
  await db.waitReady;
  if (seeding === 'initdb')
    options.log?.info({ durationMs: Math.round(performance.now() - started) }, 'embedded database created');

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
          query: async <R>(sql: string, params?: readonly unknown[]) => ({
            rows: (await tx.query<R>(sql, params as unknown[])).rows,
          }),
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
