import type { Queryable, QueryOptions } from './db.js';

export interface GroupInsertOptions {
  table: string;
  columns: readonly string[];
  /** Rows per statement at most. @default 256 */
  maxRows?: number;
}

interface Pending {
  /** the row as a JSON object text */
  json: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

// NB: the statement text is constant per table (see below), so it is parsed and planned once per connection.
const PREPARED: QueryOptions = { prepare: true };

/**
 * Group commit for inserts: rows that arrive while a statement is in flight go out together in the next
 * INSERT. Each caller's promise resolves only once its row is committed, so "durable before the answer"
 * holds; under load the database sees one statement per batch instead of one per request, and at low load
 * a lone row goes out at once (no timer, no added latency).
 *
 * A batch travels as one JSON parameter expanded by `json_populate_recordset` into rows of the table's own
 * type, so the statement text never changes (no per-batch parse of thousands of placeholders) and each row is
 * encoded once, when it arrives, by one JSON.stringify. Values are JSON: strings, numbers, booleans, null, Dates
 * (sent as ISO-8601), and plain arrays or objects for json/jsonb columns.
 * NB: if a batch fails, its rows are retried one by one so that one bad row fails only its own caller.
 */
export class GroupInsert {
  private queue: Pending[] = [];
  private flushing = false;
  private readonly maxRows: number;
  private readonly sql: string;

  constructor(
    private readonly db: Queryable,
    private readonly options: GroupInsertOptions,
  ) {
    if (!IDENT.test(options.table) || !options.columns.every((c) => IDENT.test(c))) throw new Error('invalid table or column name');
    this.maxRows = Math.max(1, options.maxRows ?? 256);
    const cols = options.columns.join(', ');
    this.sql = `INSERT INTO ${options.table} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${options.table}, $1::json)`;
  }

  /**
   * Queues one row, keyed by column name (columns it leaves out are NULL; keys that are not columns are
   * ignored); resolves once the row is committed.
   */
  insert(row: Readonly<Record<string, unknown>>): Promise<void> {
    let json = JSON.stringify(row);
    // JSON.stringify writes a lone surrogate or NUL as an escape, which PostgreSQL's text cannot hold.
    if (json.includes('\\u')) json = JSON.stringify(row, storable);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ json, resolve, reject });
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
      await this.db.query(this.sql, [rowsJson(batch)], PREPARED);
      for (const p of batch) p.resolve();
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const p of batch) {
        await this.db.query(this.sql, [rowsJson([p])], PREPARED).then(p.resolve, p.reject);
      }
    }
  }
}

/**
 * Strings made storable: lone surrogates (a client's broken UTF-16) become U+FFFD, as the driver's UTF-8
 * encoding did, and so does NUL. The slow path, for rows whose JSON has an escape.
 */
function storable(_key: string, v: unknown): unknown {
  return typeof v === 'string' ? v.toWellFormed().replaceAll('\0', '\uFFFD') : v;
}

function rowsJson(batch: readonly Pending[]): string {
  let out = '[';
  for (let i = 0; i < batch.length; i++) out += (i === 0 ? '' : ',') + batch[i]!.json;
  return out + ']';
}
