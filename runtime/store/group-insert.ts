import fastJson from 'fast-json-stringify';
import type { Queryable, QueryOptions } from './db.js';

/** How a column's value is written into a row's JSON: a JSON Schema for the row's compiled serializer. */
export type ColumnJson = Readonly<Record<string, unknown>>;

/** The column kinds rows use. A `timestamp` takes a Date or an ISO-8601 text. */
export const column = {
  text: { type: 'string' },
  textOrNull: { type: ['string', 'null'] },
  boolean: { type: 'boolean' },
  numberOrNull: { type: ['number', 'null'] },
  textList: { type: 'array', items: { type: 'string' } },
  timestamp: { type: 'string', format: 'date-time' },
  timestampOrNull: { type: ['string', 'null'], format: 'date-time' },
  json: {},
} as const satisfies Record<string, ColumnJson>;

export interface GroupInsertOptions {
  table: string;
  /** the columns a row may set, each with how its value is written (see `column`) */
  columns: Readonly<Record<string, ColumnJson>>;
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
 * encoded once, when it arrives, by a serializer compiled for the declared columns. Values are JSON: strings,
 * numbers, booleans, null, Dates (sent as ISO-8601), and plain arrays or objects for json/jsonb columns.
 * NB: if a batch fails, its rows are retried one by one so that one bad row fails only its own caller.
 */
/** Told of a committed INSERT statement of `table` that took `ms`. */
export type WriteObserver = (table: string, ms: number) => void;

export class GroupInsert {
  private queue: Pending[] = [];
  private flushing = false;
  private readonly maxRows: number;
  private readonly sql: string;
  private readonly serialize: (row: Readonly<Record<string, unknown>>) => string;

  constructor(
    private readonly db: Queryable,
    private readonly options: GroupInsertOptions,
  ) {
    const names = Object.keys(options.columns);
    if (!IDENT.test(options.table) || !names.every((c) => IDENT.test(c)))
      throw new Error('invalid table or column name');
    this.maxRows = Math.max(1, options.maxRows ?? 256);
    // NB: code generated for the row's shape writes it in half the time JSON.stringify takes (docs/benchmarks.md).
    this.serialize = fastJson({ type: 'object', properties: options.columns });
    const cols = names.join(', ');
    this.sql = `INSERT INTO ${options.table} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${options.table}, $1::json)`;
  }

  /**
   * Queues one row, keyed by column name (columns it leaves out are NULL; keys that are not columns are
   * ignored); resolves once the row is committed.
   */
  insert(row: Readonly<Record<string, unknown>>): Promise<void> {
    let json = this.serialize(row);
    // A lone surrogate or NUL is written as an escape (as JSON.stringify does), which PostgreSQL's text cannot hold.
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

  /** Told of every committed INSERT: the table and the statement's time in ms (metrics). */
  onWrite: WriteObserver | undefined;

  private async write(batch: Pending[]): Promise<void> {
    try {
      const t0 = performance.now();
      await this.db.query(this.sql, [rowsJson(batch)], PREPARED);
      this.onWrite?.(this.options.table, performance.now() - t0);
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
export function storable(_key: string, v: unknown): unknown {
  return typeof v === 'string' ? v.toWellFormed().replaceAll('\0', '\uFFFD') : v;
}

function rowsJson(batch: readonly Pending[]): string {
  let out = '[';
  for (let i = 0; i < batch.length; i++) out += (i === 0 ? '' : ',') + batch[i]!.json;
  return out + ']';
}
