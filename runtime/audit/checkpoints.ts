/**
 * Signed checkpoints of the audit chains (issue 36, docs/audit-evidence.md): "chain X had hash H at sequence N",
 * signed with the installation's Ed25519 key. A row at or before a checkpoint cannot be changed, inserted or deleted
 * without the checkpoint failing, even by someone who recomputes every link after it; rows after the last checkpoint
 * are protected by the chain alone.
 */
import type { Queryable } from '../store/index.js';
import type { AuditSigner, SignedCheckpoint } from './signing.js';

export interface CheckpointOptions {
  /** The time the checkpoints state (`at`), and the clock the `everyMs` bound is judged by. */
  now: Date;
  /** A chain is due when its head is at least this many rows past its last checkpoint… */
  everyRows: number;
  /** …or when its last checkpoint is at least this old and the head moved since. */
  everyMs: number;
  /** Gets every checkpoint this call wrote (an external witness: a file, a webhook). */
  witness?: (c: SignedCheckpoint) => Promise<void>;
  /** Told when the witness fails; the checkpoint stays written. Absent: the failure is dropped. */
  onWitnessError?: (err: unknown, c: SignedCheckpoint) => void;
}

/** A checkpoint as the table holds it. */
interface CheckpointRow {
  organization_id: string;
  seq: string | number;
  kind: 'checkpoint' | 'pruned';
  hash: string;
  signed_at: Date | string;
  key_id: string;
  signature: string;
}

/** The columns of a checkpoint row, the hash as hex (either driver gives the same types). */
export const CHECKPOINT_COLUMNS = `organization_id, seq, kind, encode(hash, 'hex') AS hash, signed_at, key_id, signature`;

export function checkpointOf(r: CheckpointRow): SignedCheckpoint {
  return {
    chain: r.organization_id,
    seq: Number(r.seq),
    hash: r.hash,
    // NB: signed as toISOString wrote it; timestamptz keeps microseconds, so milliseconds come back unchanged.
    at: new Date(r.signed_at).toISOString(),
    kind: r.kind,
    keyId: r.key_id,
    signature: r.signature,
  };
}

/**
 * Signs and stores a checkpoint of every chain that is due, then hands each to the witness. Replicas may run it at
 * the same moment: the table's key (chain, seq, kind) keeps one checkpoint per head, and only the replica whose
 * insert won calls the witness. Returns the checkpoints this call wrote.
 */
export async function writeCheckpoints(
  db: Queryable,
  signer: AuditSigner,
  opts: CheckpointOptions,
): Promise<SignedCheckpoint[]> {
  // One query over every chain: the head, and whether it is due against the chain's latest checkpoint of any kind
  // (a prune's checkpoint also marks how far the chain is vouched for).
  const { rows: due } = await db.query<{ organization_id: string; seq: string | number; head: string }>(
    `SELECT c.organization_id, c.seq, encode(c.head, 'hex') AS head
       FROM audit_chains c
       LEFT JOIN LATERAL (
         SELECT k.seq, k.signed_at FROM audit_checkpoints k
          WHERE k.organization_id = c.organization_id ORDER BY k.seq DESC LIMIT 1
       ) last ON true
      WHERE last.seq IS NULL
         OR (c.seq > last.seq AND (c.seq - last.seq >= $1 OR last.signed_at <= $2))`,
    [opts.everyRows, new Date(opts.now.getTime() - opts.everyMs).toISOString()],
  );
  if (due.length === 0) return [];
  const at = opts.now.toISOString();
  const signed = due.map((d) =>
    signer.sign({ chain: d.organization_id, seq: Number(d.seq), hash: d.head, at, kind: 'checkpoint' }),
  );
  const { rows: inserted } = await db.query<{ organization_id: string }>(
    `INSERT INTO audit_checkpoints (organization_id, seq, kind, hash, signed_at, key_id, signature)
     SELECT o, s, 'checkpoint', decode(h, 'hex'), a, k, sig
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::timestamptz[], $5::text[], $6::text[]) AS t(o, s, h, a, k, sig)
     ON CONFLICT DO NOTHING
     RETURNING organization_id`,
    [
      signed.map((c) => c.chain),
      signed.map((c) => c.seq),
      signed.map((c) => c.hash),
      signed.map((c) => c.at),
      signed.map((c) => c.keyId),
      signed.map((c) => c.signature),
    ],
  );
  const won = new Set(inserted.map((r) => r.organization_id));
  const written = signed.filter((c) => won.has(c.chain));
  if (opts.witness) {
    for (const c of written) {
      try {
        await opts.witness(c);
      } catch (err) {
        opts.onWitnessError?.(err, c);
      }
    }
  }
  return written;
}

/** Every checkpoint of a chain, in sequence order (a prune's after the checkpoint it was made from). */
export async function listCheckpoints(db: Queryable, chain: string): Promise<SignedCheckpoint[]> {
  const { rows } = await db.query<CheckpointRow>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints WHERE organization_id = $1 ORDER BY seq, kind`,
    [chain],
  );
  return rows.map(checkpointOf);
}

/** A chain's checkpoints of one kind with `after < seq <= through` (through absent: to the end), in order. */
export async function checkpointsBetween(
  db: Queryable,
  chain: string,
  kind: 'checkpoint' | 'pruned',
  after: number,
  through?: number,
): Promise<SignedCheckpoint[]> {
  const { rows } = await db.query<CheckpointRow>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints
      WHERE organization_id = $1 AND kind = $2 AND seq > $3 AND ($4::bigint IS NULL OR seq <= $4)
      ORDER BY seq`,
    [chain, kind, after, through ?? null],
  );
  return rows.map(checkpointOf);
}

/** The chain's latest pruned checkpoint: where its rows now start. */
export async function latestPruned(db: Queryable, chain: string): Promise<SignedCheckpoint | undefined> {
  const { rows } = await db.query<CheckpointRow>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints
      WHERE organization_id = $1 AND kind = 'pruned' ORDER BY seq DESC LIMIT 1`,
    [chain],
  );
  return rows[0] ? checkpointOf(rows[0]) : undefined;
}
