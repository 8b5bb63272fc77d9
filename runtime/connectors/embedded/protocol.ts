/** Messages between an embedded database (database.ts) and its worker thread (worker.ts). */

/** What the worker is started with (`workerData`). */
export interface WorkerSetup {
  /** SQL run as the database owner once the database exists, before it turns read-only. */
  seed: string;
  /** Largest WebAssembly memory the worker may grow, in bytes. */
  maxMemoryBytes: number;
  /** PostgreSQL settings of the embedded server (postgresql.conf lines). */
  settings: readonly string[];
  /** The schema of unqualified names, as the SQL guard reads them (the connector's `defaultSchema`). */
  searchPath: string;
}

export interface QueryMessage {
  id: number;
  text: string;
  params: unknown[];
}

export type FromWorker =
  /** Seeded and locked down: queries may come. */
  | { t: 'ready' }
  /** The start failed (PGlite, the seed, or the lock-down); the worker exits. */
  | { t: 'failed'; message: string }
  | { t: 'rows'; id: number; rows: Record<string, unknown>[]; columns: string[] }
  /** PostgreSQL's error for one query; `code` is its SQLSTATE. */
  | { t: 'error'; id: number; message: string; code?: string };
