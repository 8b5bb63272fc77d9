export interface QueryOptions {
  /**
   * Run as a prepared statement (PostgreSQL: parsed and planned once per connection, named after the text). For
   * constant statement texts on hot paths only: each distinct text keeps a statement on every connection.
   */
  prepare?: boolean;
}

/** What repositories need from a database: parameterised queries and transactions. */
export interface Queryable {
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<{ rows: R[] }>;
  /** Runs a script of several statements (no parameters), e.g. a migration. */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly backend: 'postgres' | 'pglite';
  /**
   * Writes that commit without waiting for the WAL flush: atomic and visible to every session at once, but the
   * last moments of them may be lost if the database server crashes. Only for data whose loss is harmless
   * (pre-check contexts); audit entries never go through here.
   */
  readonly relaxed: Queryable;
  /** Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `fn` holding one dedicated session (advisory locks are per session). */
  session<T>(fn: (s: Queryable) => Promise<T>): Promise<T>;
  /** Round-trip time of `SELECT 1`, for health. */
  ping(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** Rejects after `ms` so that no database call can hang a request or a health check. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreError(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
