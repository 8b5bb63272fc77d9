/**
 * The audit retention prune (docs/audit-evidence.md): old rows go by whole chain segments only, up to a signed
 * checkpoint, and a signed "pruned" checkpoint at that sequence number says where the chain now starts, so that
 * `steward audit verify` passes afterwards and still catches any change to the rows that remain.
 */
import type { Queryable } from '../store/index.js';
import { CHECKPOINT_COLUMNS, checkpointOf, latestPruned } from './checkpoints.js';
import { AuditVerifier, type AuditSigner, type SignedCheckpoint } from './signing.js';

export interface PruneOptions {
  /** Rows dated before this may go. */
  before: Date;
  /** The time the pruned checkpoints state. */
  now: Date;
  /** Rows deleted per statement, so that no transaction holds millions of row locks. @default 5000 */
  batchRows?: number;
}

export interface PruneResult {
  /** Chains cut, each at the sequence number it now starts after, with the rows deleted. */
  chains: { chain: string; prunedThrough: number; rows: number }[];
  /** Chains left whole although they had old rows, and why (the checkpoint to cut at does not check out). */
  skipped: { chain: string; seq: number; why: string }[];
  /** Unchained rows written before the chains began, deleted. */
  legacyRows: number;
}

const DEFAULT_BATCH_ROWS = 5000;

/**
 * Per chain: the latest checkpoint at or before the newest row dated before `before` is the cut. The cut's checkpoint
 * must verify with the signer's key and match the row at its sequence number: re-signing a forged checkpoint as
 * "pruned" would launder it. The pruned checkpoint is written first and the rows deleted after, in batches: a crash
 * in between leaves rows the next run deletes, never a chain that starts at a gap. Idempotent.
 */
export async function pruneAudit(db: Queryable, signer: AuditSigner, opts: PruneOptions): Promise<PruneResult> {
  const verifier = AuditVerifier.fromPem(signer.publicKeyPem());
  const batch = opts.batchRows ?? DEFAULT_BATCH_ROWS;
  const result: PruneResult = { chains: [], skipped: [], legacyRows: 0 };
  const { rows: chains } = await db.query<{ organization_id: string; old_seq: string | null }>(
    `SELECT c.organization_id,
            (SELECT max(e.chain_seq) FROM audit_entries e
              WHERE e.organization_id = c.organization_id AND e.chain_seq IS NOT NULL AND e.created_at < $1)::text
              AS old_seq
       FROM audit_chains c ORDER BY c.organization_id`,
    [opts.before.toISOString()],
  );
  for (const { organization_id: chain, old_seq } of chains) {
    const pruned = await latestPruned(db, chain);
    let through = pruned?.seq ?? 0;
    const cut = old_seq === null ? undefined : await cutAt(db, chain, Number(old_seq), through);
    if (cut) {
      const why = verifier.check(cut) ?? (await rowMismatch(db, cut));
      if (why) result.skipped.push({ chain, seq: cut.seq, why });
      else {
        const signed = signer.sign({ chain, seq: cut.seq, hash: cut.hash, at: opts.now.toISOString(), kind: 'pruned' });
        await insertCheckpoint(db, signed);
        through = cut.seq;
      }
    }
    const rows = through > 0 ? await deleteThrough(db, chain, through, batch) : 0;
    if (rows > 0 || through !== (pruned?.seq ?? 0)) result.chains.push({ chain, prunedThrough: through, rows });
  }
  result.legacyRows = await deleteLegacy(db, opts.before, batch);
  return result;
}

/** The latest checkpoint with `after < seq <= upTo`. */
async function cutAt(db: Queryable, chain: string, upTo: number, after: number): Promise<SignedCheckpoint | undefined> {
  const { rows } = await db.query<Parameters<typeof checkpointOf>[0]>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints
      WHERE organization_id = $1 AND kind = 'checkpoint' AND seq > $2 AND seq <= $3 ORDER BY seq DESC LIMIT 1`,
    [chain, after, upTo],
  );
  return rows[0] ? checkpointOf(rows[0]) : undefined;
}

/** Why the row at the checkpoint's sequence number does not carry its hash, or null. */
async function rowMismatch(db: Queryable, c: SignedCheckpoint): Promise<string | null> {
  const { rows } = await db.query<{ hash: string }>(
    `SELECT encode(chain_hash, 'hex') AS hash FROM audit_entries WHERE organization_id = $1 AND chain_seq = $2`,
    [c.chain, c.seq],
  );
  if (!rows[0]) return `the row at ${c.seq} is missing; run steward audit verify`;
  return rows[0].hash === c.hash ? null : `the row at ${c.seq} does not match its checkpoint; run steward audit verify`;
}

async function insertCheckpoint(db: Queryable, c: SignedCheckpoint): Promise<void> {
  // NB: replicas prune at the same time; the first pruned checkpoint at a sequence number stays.
  await db.query(
    `INSERT INTO audit_checkpoints (organization_id, seq, kind, hash, signed_at, key_id, signature)
     VALUES ($1, $2, $3, decode($4, 'hex'), $5, $6, $7) ON CONFLICT DO NOTHING`,
    [c.chain, c.seq, c.kind, c.hash, c.at, c.keyId, c.signature],
  );
}

async function deleteThrough(db: Queryable, chain: string, through: number, batch: number): Promise<number> {
  return deleteInBatches(
    db,
    `SELECT id FROM audit_entries WHERE organization_id = $1 AND chain_seq IS NOT NULL AND chain_seq <= $2
      ORDER BY chain_seq LIMIT $3`,
    [chain, through, batch],
    batch,
  );
}

/** Unchained rows older than both `before` and the chains' start; rows dated after it are evidence and stay. */
async function deleteLegacy(db: Queryable, before: Date, batch: number): Promise<number> {
  return deleteInBatches(
    db,
    `SELECT id FROM audit_entries
      WHERE chain_seq IS NULL AND created_at < $1 AND created_at < (SELECT started_at FROM audit_chain_epoch)
      LIMIT $2`,
    [before.toISOString(), batch],
    batch,
  );
}

async function deleteInBatches(db: Queryable, select: string, params: unknown[], batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await db.query<{ n: string | number }>(
      `WITH gone AS (DELETE FROM audit_entries WHERE id IN (${select}) RETURNING 1) SELECT count(*) AS n FROM gone`,
      params,
    );
    const n = Number(rows[0]!.n);
    total += n;
    if (n < batch) return total;
  }
}
