import type { Queryable } from './db.js';

export interface GroupInsertOptions {
  table: string;
  columns: readonly string[];
  /** Rows per statement at most (PostgreSQL allows 65,535 parameters). @default 256 */
  maxRows?: number;
}

interface Pending {
  values: readonly unknown[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/**
 * Group commit for inserts: rows that arrive while a statement is in flight go out together in the next
 * multi-row INSERT. Each caller's promise resolves only once its row is committed, so "durable before the
 * answer" holds; under load the database sees one statement per batch instead of one per request, and at
 * low load a lone row goes out at once (no timer, no added latency).
 * NB: if a batch fails, its rows are retried one by one so that one bad row fails only its own caller.
 */
export class GroupInsert {
  private queue: Pending[] = [];
  private flushing = false;
  private readonly maxRows: number;
  private readonly sqlCache = new Map<number, string>();

  constructor(
    private readonly db: Queryable,
    private readonly options: GroupInsertOptions,
  ) {
    if (!IDENT.test(options.table) || !options.columns.every((c) => IDENT.test(c))) throw new Error('invalid table or column name');
    this.maxRows = Math.max(1, Math.min(options.maxRows ?? 256, Math.floor(65_535 / options.columns.length)));
  }

  insert(values: readonly unknown[]): Promise<void> {
    if (values.length !== this.options.columns.length) return Promise.reject(new Error(`expected ${this.options.columns.length} values`));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ values, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      // Let the rest of this event-loop turn add its rows first.
      await new Promise<void>((r) => setImmediate(r));
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxRows);
        await this.write(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      await this.db.query(this.sql(batch.length), batch.flatMap((p) => p.values));
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const p of batch) {
        await this.db.query(this.sql(1), p.values).then(p.resolve, p.reject);
      }
    }
  }

  private sql(rows: number): string {
    let text = this.sqlCache.get(rows);
    if (!text) {
      const n = this.options.columns.length;
      const tuples = Array.from({ length: rows }, (_, r) => `(${Array.from({ length: n }, (_, c) => `$${r * n + c + 1}`).join(', ')})`);
      text = `INSERT INTO ${this.options.table} (${this.options.columns.join(', ')}) VALUES ${tuples.join(', ')}`;
      if (this.sqlCache.size < 512) this.sqlCache.set(rows, text);
    }
    return text;
  }
}
