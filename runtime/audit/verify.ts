/**
 * `steward audit verify` against a database (docs/audit-evidence.md): every chain read in pages, in sequence order,
 * and judged by the chain walk (walk.ts). One snapshot (REPEATABLE READ) covers the whole run, so rows, checkpoints
 * and heads written or pruned meanwhile by a live installation cannot look like tampering.
 */
import type { Db, Queryable } from '../store/index.js';
import { checkpointsBetween, latestPruned } from './checkpoints.js';
import type { AuditVerifier, SignedCheckpoint } from './signing.js';
import {
  CHAINED_COLUMNS,
  ChainWalk,
  resultOf,
  ZERO_HASH,
  type ChainAnchor,
  type LinkedRow,
  type VerifyResult,
} from './walk.js';

export interface VerifyOptions {
  /** Only this organization's chain. */
  organization?: string;
  /** Rows read per query. @default 1000 */
  pageSize?: number;
}

const DEFAULT_PAGE_ROWS = 1000;

/** The row columns a walk reads: the chained ones, the chain fields as text and hex (the same from either driver). */
const ROW_COLUMNS = [
  ...CHAINED_COLUMNS,
  `chain_seq::text AS chain_seq`,
  `encode(chain_hash, 'hex') AS chain_hash`,
  `encode(row_digest, 'hex') AS row_digest`,
].join(', ');

type StoredRow = Omit<LinkedRow, 'chain_seq' | 'created_at'> & { chain_seq: string; created_at: Date | string };

/** A row as read back, in the form the writer digested: created_at in toISOString form, numbers as numbers. */
function linkedRowOf(r: StoredRow): LinkedRow {
  return { ...r, created_at: new Date(r.created_at).toISOString(), chain_seq: Number(r.chain_seq) };
}

/**
 * A chain's rows with `after < chain_seq <= through`, in pages of `pageSize`, ordered by sequence number and id: a
 * duplicated sequence number (a row inserted with the index dropped) comes out as two rows, never as one.
 */
export async function* chainPages(
  db: Queryable,
  chain: string,
  after: number,
  through: number | undefined,
  pageSize = DEFAULT_PAGE_ROWS,
): AsyncGenerator<LinkedRow[]> {
  let key: { seq: number; id: string } | undefined;
  for (;;) {
    const params: unknown[] = key ? [chain, key.seq, key.id] : [chain, after];
    const from = key ? '(chain_seq, id) > ($2, $3)' : 'chain_seq > $2';
    let upTo = '';
    if (through !== undefined) {
      params.push(through);
      upTo = `AND chain_seq <= $${params.length}`;
    }
    params.push(pageSize);
    // NB: ORDER BY names the table's columns: `chain_seq` alone would be the text alias, sorting 10 before 2.
    const { rows } = await db.query<StoredRow>(
      `SELECT ${ROW_COLUMNS} FROM audit_entries
        WHERE organization_id = $1 AND chain_seq IS NOT NULL AND ${from} ${upTo}
        ORDER BY audit_entries.chain_seq, audit_entries.id LIMIT $${params.length}`,
      params,
    );
    if (rows.length === 0) return;
    const page = rows.map(linkedRowOf);
    yield page;
    if (rows.length < pageSize) return;
    const last = page[page.length - 1]!;
    key = { seq: last.chain_seq, id: last.id };
  }
}

/** A chain read in walk order: a row, or a checkpoint. */
export type ChainEvent = { row: LinkedRow; checkpoint?: undefined } | { checkpoint: SignedCheckpoint; row?: undefined };

/**
 * A chain's rows with `after < chain_seq <= through` and its checkpoints in that range, in the order a walk takes
 * them: each checkpoint right after its row; one whose row is missing before the next row (where the gap shows);
 * those beyond the last row at the end (rows deleted at the end). Verify walks it, export writes it.
 */
export async function* chainEvents(
  db: Queryable,
  chain: string,
  after: number,
  through: number | undefined,
  pageSize?: number,
): AsyncGenerator<ChainEvent> {
  const pending: SignedCheckpoint[] = [];
  let checkpointsThrough = after;
  for await (const page of chainPages(db, chain, after, through, pageSize)) {
    const pageLast = page[page.length - 1]!.chain_seq;
    if (pageLast > checkpointsThrough) {
      pending.push(...(await checkpointsBetween(db, chain, 'checkpoint', checkpointsThrough, pageLast)));
      checkpointsThrough = pageLast;
    }
    for (const row of page) {
      while (pending[0] && pending[0].seq < row.chain_seq) yield { checkpoint: pending.shift()! };
      yield { row };
      while (pending[0]?.seq === row.chain_seq) yield { checkpoint: pending.shift()! };
    }
  }
  for (const checkpoint of pending) yield { checkpoint };
  for (const checkpoint of await checkpointsBetween(db, chain, 'checkpoint', checkpointsThrough, through))
    yield { checkpoint };
}

/** Where a chain's verification starts: after its latest pruned checkpoint, else at 0 with the zero hash. */
export async function chainStart(
  db: Queryable,
  chain: string,
): Promise<{ anchor: ChainAnchor; pruned?: SignedCheckpoint }> {
  const pruned = await latestPruned(db, chain);
  return pruned ? { anchor: { seq: pruned.seq, hash: pruned.hash }, pruned } : { anchor: { seq: 0, hash: ZERO_HASH } };
}

/** The chain head the insert trigger keeps; null when the chain has none. */
async function chainHead(db: Queryable, chain: string): Promise<ChainAnchor | null> {
  const { rows } = await db.query<{ seq: string; head: string }>(
    `SELECT seq::text AS seq, encode(head, 'hex') AS head FROM audit_chains WHERE organization_id = $1`,
    [chain],
  );
  return rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].head } : null;
}

/**
 * Checks every chain (or one organization's): each row's digest and link, each checkpoint's hash and signature, the
 * head, and rows outside the chains. `verifier` absent: checkpoint hashes are compared but signatures are not
 * checked, and the result says `signatures: 'unchecked'`.
 */
export async function verifyAudit(
  db: Db,
  verifier: AuditVerifier | undefined,
  opts: VerifyOptions = {},
): Promise<VerifyResult> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const epoch = await chainEpoch(tx);
    const chains = opts.organization ? [opts.organization] : await chainNames(tx);
    const walks: ChainWalk[] = [];
    for (const chain of chains) walks.push(await verifyChain(tx, chain, epoch, verifier, opts.pageSize));
    return resultOf(walks, verifier);
  });
}

async function verifyChain(
  db: Queryable,
  chain: string,
  epoch: Date | null,
  verifier: AuditVerifier | undefined,
  pageSize: number | undefined,
): Promise<ChainWalk> {
  const head = await chainHead(db, chain);
  const { anchor, pruned } = await chainStart(db, chain);
  const walk = new ChainWalk(chain, anchor, verifier);
  if (pruned) walk.checkpoint(pruned);
  for await (const e of chainEvents(db, chain, anchor.seq, undefined, pageSize))
    if (e.row) walk.row(e.row);
    else walk.checkpoint(e.checkpoint);
  walk.end(head);
  walk.legacyRows = await legacyRows(db, chain, epoch);
  if (!walk.problem) {
    const outside = await firstUnchained(db, chain, epoch);
    if (outside)
      walk.problem = {
        chain,
        seq: null,
        id: outside.id,
        what:
          `inserted row: it is outside the chain (no digest, no sequence number) and dated ` +
          `${new Date(outside.created_at).toISOString()}, after the chains began`,
      };
  }
  return walk;
}

/** When the chains began (migration 9); null if someone deleted the record, so that no unchained row is excused. */
async function chainEpoch(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ started_at: Date | string }>('SELECT started_at FROM audit_chain_epoch');
  return rows[0] ? new Date(rows[0].started_at) : null;
}

/**
 * Every organization with a chain head, a checkpoint or an audit row. The rows' organizations are found by skipping
 * through the (organization_id, created_at) index, one probe per organization, not by reading every row.
 */
async function chainNames(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH RECURSIVE orgs(id) AS (
       SELECT min(organization_id) FROM audit_entries
       UNION ALL
       SELECT (SELECT min(organization_id) FROM audit_entries WHERE organization_id > orgs.id) FROM orgs
        WHERE orgs.id IS NOT NULL
     )
     SELECT id FROM orgs WHERE id IS NOT NULL
     UNION SELECT organization_id FROM audit_chains
     UNION SELECT DISTINCT organization_id FROM audit_checkpoints
     ORDER BY 1`,
  );
  return rows.map((r) => r.id);
}

async function legacyRows(db: Queryable, chain: string, epoch: Date | null): Promise<number> {
  if (epoch === null) return 0;
  const { rows } = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM audit_entries WHERE organization_id = $1 AND chain_seq IS NULL AND created_at < $2`,
    [chain, epoch.toISOString()],
  );
  return Number(rows[0]!.n);
}

/** The earliest unchained row dated after the chains began: written around the trigger. */
async function firstUnchained(
  db: Queryable,
  chain: string,
  epoch: Date | null,
): Promise<{ id: string; created_at: Date | string } | undefined> {
  const { rows } = await db.query<{ id: string; created_at: Date | string }>(
    `SELECT id, created_at FROM audit_entries
      WHERE organization_id = $1 AND chain_seq IS NULL AND ($2::timestamptz IS NULL OR created_at >= $2)
      ORDER BY created_at, id LIMIT 1`,
    [chain, epoch?.toISOString() ?? null],
  );
  return rows[0];
}
