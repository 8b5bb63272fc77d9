/**
 * The budget ledgers (migration 8, ADR 0018): what each ledger spent per bucket, and what calls in flight hold.
 * Every method is one round trip to a function of the migration, so reserving is atomic across replicas without a
 * transaction held open from the client. Writes go through `Db.relaxed` (no wait for the WAL flush): a database
 * crash may lose the last moments of spend, which the audit rows (committed durably, with each call's cost) still
 * record.
 *
 * Money is in micro-dollars (integers), so sums are exact; bigint columns come back as strings from node-postgres
 * and as numbers from PGlite, hence `Number()`.
 */
import { isoTimestamp } from '../../platform/iso-time.js';
import type { Queryable } from './db.js';

/** One ledger a call is charged to, with its window and limits. */
export interface LedgerCharge {
  ledger: string;
  /** The bucket the charge goes to: the calendar window's start, or the current hour of a rolling window. */
  bucket: Date;
  /** The earliest bucket the window counts. */
  from: Date;
  /** Absent: no money limit. */
  limitMicros?: number;
  /** Absent: no token limit. */
  limitTokens?: number;
  /** Whether a call that does not fit is refused (else it is only reported). */
  block: boolean;
}

/** A ledger's window totals as a reservation saw them. */
export interface LedgerTotals {
  ledger: string;
  spentMicros: number;
  spentTokens: number;
  /** Held by calls in flight, this one's included when it was reserved. */
  reservedMicros: number;
  reservedTokens: number;
  /** Whether this call fits the ledger's limits. */
  fits: boolean;
}

/** A ledger's window spend after a settle. */
export interface LedgerSpend {
  ledger: string;
  bucket: Date;
  spentMicros: number;
  spentTokens: number;
}

export interface Amount {
  micros: number;
  tokens: number;
}

type Num = number | string;

export class BudgetLedgerRepository {
  /** @param db `Db.relaxed` in production (see the module comment). */
  constructor(private readonly db: Queryable) {}

  /**
   * Reserves `cost` on every ledger of `charges` (which must be sorted by ledger, the lock order), or on none when
   * a blocking ledger cannot hold it. Returns each ledger's totals, in the order given.
   */
  async reserve(id: string, charges: readonly LedgerCharge[], cost: Amount, expiresAt: Date): Promise<LedgerTotals[]> {
    const { rows } = await this.db.query<{
      ledger: string;
      spent_micros: Num;
      spent_tokens: Num;
      reserved_micros: Num;
      reserved_tokens: Num;
      fits: boolean;
    }>(
      `SELECT * FROM steward_budget_reserve($1, $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[],
         $6::bigint[], $7::boolean[], $8, $9, $10)`,
      [
        id,
        charges.map((c) => c.ledger),
        charges.map((c) => isoTimestamp(c.bucket)),
        charges.map((c) => isoTimestamp(c.from)),
        charges.map((c) => (c.limitMicros === undefined ? null : Math.floor(c.limitMicros))),
        charges.map((c) => (c.limitTokens === undefined ? null : Math.floor(c.limitTokens))),
        charges.map((c) => c.block),
        Math.ceil(cost.micros),
        Math.ceil(cost.tokens),
        isoTimestamp(expiresAt),
      ],
    );
    return rows.map((r) => ({
      ledger: r.ledger,
      spentMicros: Number(r.spent_micros),
      spentTokens: Number(r.spent_tokens),
      reservedMicros: Number(r.reserved_micros),
      reservedTokens: Number(r.reserved_tokens),
      fits: r.fits,
    }));
  }

  /** Releases a call's reservations and charges what it spent (once); empty when there was nothing left to settle. */
  async settle(id: string, spent: Amount): Promise<LedgerSpend[]> {
    const { rows } = await this.db.query<{
      ledger: string;
      bucket: Date | string;
      spent_micros: Num;
      spent_tokens: Num;
    }>('SELECT * FROM steward_budget_settle($1, $2, $3)', [id, Math.ceil(spent.micros), Math.ceil(spent.tokens)]);
    return rows.map((r) => ({
      ledger: r.ledger,
      bucket: new Date(r.bucket),
      spentMicros: Number(r.spent_micros),
      spentTokens: Number(r.spent_tokens),
    }));
  }

  /** Charges in full the reservations that expired by `now` (crashed calls), at most `max`; returns how many. */
  async expire(now: Date, max = 1000): Promise<number> {
    const { rows } = await this.db.query<{ n: Num }>('SELECT steward_budget_expire($1, $2) AS n', [
      isoTimestamp(now),
      max,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  /** Marks a threshold fired for a ledger's bucket; true for the one caller (of every replica) that marked it. */
  async markFired(ledger: string, bucket: Date, threshold: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE budget_buckets SET fired = array_append(fired, $3::smallint)
       WHERE ledger = $1 AND bucket = $2 AND NOT ($3::smallint = ANY (fired)) RETURNING 1`,
      [ledger, isoTimestamp(bucket), threshold],
    );
    return rows.length > 0;
  }

  /**
   * The window totals of ledgers (a Budget's, or every value's of its `spec.each`, by prefix), for status and the
   * budgets API. `prefix` ledgers: every ledger whose key starts with it.
   */
  async totals(
    windows: readonly { ledger: string; from: Date; to: Date; prefix?: boolean }[],
  ): Promise<Map<string, LedgerTotals[]>> {
    const out = new Map<string, LedgerTotals[]>();
    if (windows.length === 0) return out;
    const { rows } = await this.db.query<{
      key: string;
      ledger: string;
      spent_micros: Num;
      spent_tokens: Num;
      reserved_micros: Num;
      reserved_tokens: Num;
    }>(
      `SELECT w.key, b.ledger, sum(b.spent_micros) AS spent_micros, sum(b.spent_tokens) AS spent_tokens,
              sum(b.reserved_micros) AS reserved_micros, sum(b.reserved_tokens) AS reserved_tokens
       FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::boolean[]) AS w(key, "from", "to", prefix)
       JOIN budget_buckets b
         ON (b.ledger = w.key OR (w.prefix AND starts_with(b.ledger, w.key)))
        AND b.bucket >= w."from" AND b.bucket <= w."to"
       GROUP BY w.key, b.ledger`,
      [
        windows.map((w) => w.ledger),
        windows.map((w) => isoTimestamp(w.from)),
        windows.map((w) => isoTimestamp(w.to)),
        windows.map((w) => w.prefix === true),
      ],
    );
    for (const r of rows) {
      const list = out.get(r.key) ?? [];
      list.push({
        ledger: r.ledger,
        spentMicros: Number(r.spent_micros),
        spentTokens: Number(r.spent_tokens),
        reservedMicros: Number(r.reserved_micros),
        reservedTokens: Number(r.reserved_tokens),
        fits: true,
      });
      out.set(r.key, list);
    }
    return out;
  }
}
