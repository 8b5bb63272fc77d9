/**
 * `steward audit export` and the offline check of its output (docs/audit-evidence.md). An export is JSON lines: an
 * anchor (the link before its first row), the rows in sequence order with their hashes, and the checkpoints among
 * them, each right after its row. `verifyExport` walks it with the same chain walk as the database check, so an
 * export can be verified anywhere with the public key alone.
 */
import type { Queryable } from '../store/index.js';
import { checkpointsBetween } from './checkpoints.js';
import type { AuditVerifier, SignedCheckpoint } from './signing.js';
import { chainEvents, chainStart } from './verify.js';
import { chainedRowOf, ChainWalk, resultOf, type ChainAnchor, type LinkedRow, type VerifyResult } from './walk.js';

/** One line of an export. */
export type ExportLine =
  | ({ type: 'anchor'; chain: string } & ChainAnchor)
  | ({ type: 'row' } & LinkedRow)
  | ({ type: 'checkpoint' } & SignedCheckpoint);

export interface ExportOptions {
  organization: string;
  /** Rows dated at or after this (absent: from the start of the chain). */
  from?: Date;
  /** Rows dated before this (absent: to the end of the chain as it is when the export starts). */
  to?: Date;
  /** Rows read per query. @default 1000 */
  pageSize?: number;
}

/** An export that cannot be made as asked (the row its anchor needs is gone). */
export class AuditExportError extends Error {
  override name = 'AuditExportError';
}

/**
 * The export's lines (JSON text, without the newline). NB: rows are not stamped in sequence order (writers' clocks
 * differ by a few milliseconds), so the range is the contiguous run of sequence numbers from the lowest to the highest
 * of the rows dated within [from, to): an export never has a hole that would read as a deleted row.
 */
export async function* exportAudit(db: Queryable, opts: ExportOptions): AsyncGenerator<string> {
  const chain = opts.organization;
  const { anchor: start, pruned } = await chainStart(db, chain);
  const range = await seqRange(db, chain, start.seq, opts);
  const anchor = range ? await anchorBefore(db, chain, range.first, start) : start;
  yield line({ type: 'anchor', chain, ...anchor });
  // The checkpoints at the anchor vouch for it: the pruned one where the chain now starts, else any at its seq.
  if (pruned && anchor.seq === start.seq) yield line({ type: 'checkpoint', ...pruned });
  else
    for (const c of await checkpointsBetween(db, chain, 'checkpoint', anchor.seq - 1, anchor.seq))
      yield line({ type: 'checkpoint', ...c });
  if (!range) return;

  for await (const { row: r, checkpoint } of chainEvents(db, chain, anchor.seq, range.last, opts.pageSize))
    yield r
      ? line({
          type: 'row',
          ...chainedRowOf(r),
          chain_seq: r.chain_seq,
          chain_hash: r.chain_hash,
          row_digest: r.row_digest,
        })
      : line({ type: 'checkpoint', ...checkpoint });
}

function line(l: ExportLine): string {
  return JSON.stringify(l);
}

/** The sequence numbers of the rows dated within [from, to), after the chain's start; undefined when none. */
async function seqRange(
  db: Queryable,
  chain: string,
  after: number,
  opts: ExportOptions,
): Promise<{ first: number; last: number } | undefined> {
  const params: unknown[] = [chain, after];
  let dated = '';
  if (opts.from) {
    params.push(opts.from.toISOString());
    dated += ` AND created_at >= $${params.length}`;
  }
  if (opts.to) {
    params.push(opts.to.toISOString());
    dated += ` AND created_at < $${params.length}`;
  }
  const { rows } = await db.query<{ first: string | null; last: string | null }>(
    `SELECT min(chain_seq)::text AS first, max(chain_seq)::text AS last FROM audit_entries
      WHERE organization_id = $1 AND chain_seq IS NOT NULL AND chain_seq > $2${dated}`,
    params,
  );
  const r = rows[0];
  return r?.first != null && r.last != null ? { first: Number(r.first), last: Number(r.last) } : undefined;
}

/** The link before `first`: the chain's start, the previous row's hash, or a checkpoint's at that sequence number. */
async function anchorBefore(db: Queryable, chain: string, first: number, start: ChainAnchor): Promise<ChainAnchor> {
  const seq = first - 1;
  if (seq === start.seq) return start;
  const { rows } = await db.query<{ hash: string }>(
    `SELECT encode(chain_hash, 'hex') AS hash FROM audit_entries WHERE organization_id = $1 AND chain_seq = $2
     UNION ALL
     SELECT encode(hash, 'hex') FROM audit_checkpoints WHERE organization_id = $1 AND seq = $2
     LIMIT 1`,
    [chain, seq],
  );
  if (!rows[0])
    throw new AuditExportError(
      `the row before the range (sequence ${seq} of ${chain}) is missing, so the export has no anchor; ` +
        'run `steward audit verify`, or export a wider range',
    );
  return { seq, hash: rows[0].hash };
}

/**
 * Checks an export (its lines, in order) as `verifyAudit` checks a database: every row's digest and link from the
 * anchor on, and every checkpoint's hash and signature. The anchor itself is vouched for only by a checkpoint at its
 * sequence number (an export from the start of a chain, or from a prune, has one; see the summary's `startSeq`).
 */
export async function verifyExport(
  lines: AsyncIterable<string> | Iterable<string>,
  verifier: AuditVerifier | undefined,
): Promise<VerifyResult> {
  let walk: ChainWalk | undefined;
  let n = 0;
  const malformed = (what: string): VerifyResult => {
    const problem = { chain: walk?.chain ?? '', seq: null, what: `line ${n} of the export: ${what}` };
    const chains = walk ? [walk.summary] : [];
    return { ok: false, problem, problems: [problem], chains, signatures: verifier ? 'verified' : 'unchecked' };
  };
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    let l: Partial<ExportLine> & Record<string, unknown>;
    try {
      l = JSON.parse(text) as typeof l;
    } catch {
      return malformed('not JSON');
    }
    if (typeof l !== 'object' || l === null) return malformed('not a JSON object');
    if (!walk) {
      if (l.type !== 'anchor') return malformed('the first line is not the anchor');
      if (typeof l.chain !== 'string' || !isSeq(l.seq) || typeof l.hash !== 'string')
        return malformed('the anchor needs a chain, a sequence number and a hash');
      walk = new ChainWalk(l.chain, { seq: l.seq, hash: l.hash }, verifier);
      continue;
    }
    if (l.type === 'row') {
      if (
        !isSeq(l.chain_seq) ||
        typeof l.chain_hash !== 'string' ||
        !(typeof l.row_digest === 'string' || l.row_digest === null)
      )
        return malformed('a row needs chain_seq, chain_hash and row_digest');
      walk.row(l as LinkedRow);
    } else if (l.type === 'checkpoint') {
      if (!isSeq(l.seq)) return malformed('a checkpoint needs a sequence number');
      walk.checkpoint(l as SignedCheckpoint);
    } else return malformed(l.type === 'anchor' ? 'a second anchor' : `unknown line type ${JSON.stringify(l.type)}`);
    if (walk.problem) break;
  }
  if (!walk) return malformed('no anchor line: the export is empty');
  walk.end();
  return resultOf([walk], verifier);
}

function isSeq(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
