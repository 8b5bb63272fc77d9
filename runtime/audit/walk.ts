/**
 * The judging half of `steward audit verify` (docs/audit-evidence.md): one chain's rows and checkpoints, fed in
 * sequence order, checked link by link. It does no I/O, so the database walk (verify.ts) and the export file walk
 * (export.ts) share every rule, and it keeps nothing per row: a chain of any length is checked in constant memory.
 */
import { createHash } from 'node:crypto';
import { CanonicalJsonError } from './canonical.js';
import { rowDigest, type ChainedRow } from '../store/audit-digest.js';
import type { AuditVerifier, SignedCheckpoint } from './signing.js';

/** The link before sequence 1: 32 zero bytes. */
export const ZERO_HASH = '00'.repeat(32);

/** The chained columns, in the order the store declares them; what the digest covers. */
export const CHAINED_COLUMNS = [
  'id',
  'organization_id',
  'client_id',
  'context_id',
  'user_token',
  'provider',
  'model',
  'prompt',
  'response',
  'latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'metadata',
  'created_at',
] as const satisfies readonly (keyof ChainedRow)[];

/** An audit row as read back: its chained columns and its place in the chain (hashes as lower-case hex). */
export interface LinkedRow extends ChainedRow {
  chain_seq: number;
  chain_hash: string;
  /** What the writer stored; null when someone removed it. */
  row_digest: string | null;
}

/** Where a chain is known to start: sequence 0 with the zero hash, or a pruned checkpoint, or an export's anchor. */
export interface ChainAnchor {
  seq: number;
  hash: string;
}

/** The first thing that does not check out in a chain. */
export interface AuditProblem {
  chain: string;
  /** The first broken sequence number; null for a row outside the chain or a malformed export line. */
  seq: number | null;
  /** The row's id, when a row is at fault. */
  id?: string;
  what: string;
}

/** What was checked in one chain. */
export interface ChainSummary {
  chain: string;
  /** Chained rows read. */
  rows: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** Checkpoints whose hash matched the chain (including a pruned one at the start). */
  checkpoints: number;
  /** Of those, how many had their signature checked (all of them when a public key was given, else none). */
  signaturesChecked: number;
  lastCheckpointSeq: number | null;
  /** Rows after the last checkpoint: protected only by the chain, not by a signature. */
  rowsAfterLastCheckpoint: number;
  /** The sequence number verification started after: 0, a pruned checkpoint's, or an export's anchor. */
  startSeq: number;
  /** Unchained rows written before the chains began (database walks only). */
  legacyRows: number;
}

/** The outcome of a verification: every chain's summary, and the first problem of each broken chain. */
export type VerifyResult =
  | { ok: true; chains: ChainSummary[]; signatures: 'verified' | 'unchecked' }
  | {
      ok: false;
      /** The first problem found (of the first broken chain). */
      problem: AuditProblem;
      /** One problem per broken chain. */
      problems: AuditProblem[];
      chains: ChainSummary[];
      signatures: 'verified' | 'unchecked';
    };

/** The result of a set of chain walks. */
export function resultOf(walks: readonly ChainWalk[], verifier: AuditVerifier | undefined): VerifyResult {
  const chains = walks.map((w) => w.summary);
  const problems = walks.flatMap((w) => (w.problem ? [w.problem] : []));
  const signatures = verifier ? 'verified' : 'unchecked';
  return problems.length === 0
    ? { ok: true, chains, signatures }
    : { ok: false, problem: problems[0]!, problems, chains, signatures };
}

/** The chained columns of a row, as the writer digested them. */
export function chainedRowOf(row: ChainedRow): ChainedRow {
  return Object.fromEntries(CHAINED_COLUMNS.map((k) => [k, row[k]])) as unknown as ChainedRow;
}

/** SHA-256(previous link ‖ digest), hex. */
function nextLink(previous: string, digestHex: string): string {
  return createHash('sha256')
    .update(Buffer.from(previous + digestHex, 'hex'))
    .digest('hex');
}

/**
 * One chain, walked forward from an anchor. Feed checkpoints (any time before their row, or right after it) and rows
 * in sequence order, then `end`. The first problem stops the walk: later rows are read but not judged, since
 * everything after a break would be reported as broken too.
 */
export class ChainWalk {
  problem: AuditProblem | undefined;
  private lastSeq: number;
  private link: string;
  private rows = 0;
  private firstSeq: number | null = null;
  private lastId: string | undefined;
  private checkpoints = 0;
  private signaturesChecked = 0;
  private lastCheckpointSeq: number | null = null;
  private sinceCheckpoint = 0;
  /** Checkpoints ahead of the walk, in sequence order. */
  private readonly pending: SignedCheckpoint[] = [];
  /**
   * A row that failed its digest or link, held for one more row: when the next has the same sequence number, the
   * two are a duplicate (rows come ordered by sequence and id, so the forged twin may come first), else it stands.
   */
  private suspect: { seq: number; id: string; what: string } | undefined;

  constructor(
    readonly chain: string,
    private readonly start: ChainAnchor,
    private readonly verifier: AuditVerifier | undefined,
    /** Rows of this chain outside it (database walks), reported in the summary. */
    public legacyRows = 0,
  ) {
    this.lastSeq = start.seq;
    this.link = start.hash;
  }

  get summary(): ChainSummary {
    return {
      chain: this.chain,
      rows: this.rows,
      firstSeq: this.firstSeq,
      lastSeq: this.rows > 0 ? this.lastSeq : null,
      checkpoints: this.checkpoints,
      signaturesChecked: this.signaturesChecked,
      lastCheckpointSeq: this.lastCheckpointSeq,
      rowsAfterLastCheckpoint: this.sinceCheckpoint,
      startSeq: this.start.seq,
      legacyRows: this.legacyRows,
    };
  }

  /** A checkpoint of this chain: judged now when the walk is at its sequence number, else when it gets there. */
  checkpoint(c: SignedCheckpoint): void {
    if (this.problem) return;
    if (c.chain !== this.chain)
      return this.fail(c.seq, undefined, `a checkpoint of chain ${JSON.stringify(c.chain)} among this chain's`);
    if (c.seq === this.lastSeq) return this.judge(c);
    if (c.seq < this.lastSeq)
      return this.fail(c.seq, undefined, `the checkpoint at ${c.seq} comes after the row at ${this.lastSeq}`);
    const at = this.pending.findIndex((p) => p.seq > c.seq);
    this.pending.splice(at === -1 ? this.pending.length : at, 0, c);
  }

  row(r: LinkedRow): void {
    if (this.problem) return;
    const seq = r.chain_seq;
    const suspect = this.suspect;
    if (suspect) {
      return suspect.seq === seq
        ? this.fail(seq, r.id, `inserted row: sequence ${seq} appears twice (rows ${suspect.id} and ${r.id})`)
        : this.fail(suspect.seq, suspect.id, suspect.what);
    }
    if (r.organization_id !== this.chain)
      return this.fail(seq, r.id, `a row of organization ${JSON.stringify(r.organization_id)} in this chain`);
    if (seq <= this.lastSeq) {
      const what =
        seq === this.lastSeq && this.rows > 0
          ? `inserted row: sequence ${seq} appears twice (rows ${this.lastId} and ${r.id})`
          : `row out of order: sequence ${seq} after ${this.lastSeq}`;
      return this.fail(seq, r.id, what);
    }
    if (seq > this.lastSeq + 1) return this.missing(seq - 1, `the next row is ${seq} (${r.id})`);
    let digest: string;
    try {
      digest = rowDigest(chainedRowOf(r)).toString('hex');
    } catch (err) {
      if (!(err instanceof CanonicalJsonError)) throw err;
      return this.fail(seq, r.id, `changed row: its content has no canonical form (${err.message})`);
    }
    if (r.row_digest === null) return this.hold(seq, r.id, 'changed row: its stored digest was removed');
    if (r.row_digest !== digest)
      return this.hold(seq, r.id, 'changed row: its content differs from the digest written with it');
    const link = nextLink(this.link, digest);
    if (link !== r.chain_hash)
      return this.hold(
        seq,
        r.id,
        'broken link: the stored chain hash is not SHA-256(previous link ‖ digest); a row before it was inserted, ' +
          'deleted or renumbered, or the hash was rewritten',
      );
    this.link = link;
    this.lastSeq = seq;
    this.lastId = r.id;
    this.rows++;
    this.firstSeq ??= seq;
    this.sinceCheckpoint++;
    while (!this.problem && this.pending[0]?.seq === seq) this.judge(this.pending.shift()!);
  }

  /**
   * No more rows. `head` is the chain head the database keeps (audit_chains); rows deleted at the end show as a head
   * or a checkpoint beyond the last row. An export has no head: it ends where it was cut.
   */
  end(head?: ChainAnchor | null): void {
    if (this.problem) return;
    if (this.suspect) return this.fail(this.suspect.seq, this.suspect.id, this.suspect.what);
    if (head === null && this.rows > 0)
      return this.fail(this.lastSeq, undefined, 'the chain has rows but no head (its audit_chains row was deleted)');
    if (head && head.seq > this.lastSeq)
      return this.missing(head.seq, `the chain head is at ${head.seq}; rows were deleted at the end`);
    if (head && head.seq < this.lastSeq)
      return this.fail(head.seq + 1, undefined, `the chain head is at ${head.seq}, behind the last row`);
    if (head && head.seq === this.lastSeq && head.hash !== this.link)
      return this.fail(head.seq, undefined, "the chain head's hash differs from the last row's link");
    const beyond = this.pending[0];
    if (beyond) this.missing(beyond.seq, `a checkpoint is at ${beyond.seq}; rows were deleted at the end`);
  }

  /** Rows lastSeq+1 … `through` are not there. */
  private missing(through: number, why: string): void {
    const from = this.lastSeq + 1;
    const rows = through === from ? `row ${from} is` : `rows ${from}–${through} are`;
    this.fail(from, undefined, `deleted row: ${rows} missing (${why})`);
  }

  private judge(c: SignedCheckpoint): void {
    const name = c.kind === 'pruned' ? 'pruned checkpoint' : 'checkpoint';
    if (c.hash !== this.link) {
      const since = this.lastCheckpointSeq ?? this.start.seq;
      return this.fail(
        c.seq,
        undefined,
        `the ${name} at ${c.seq} does not match the chain: a row after ${since} and at or before ` +
          `${c.seq} was changed, inserted or deleted and the links after it recomputed, or the checkpoint was altered`,
      );
    }
    if (this.verifier) {
      const why = this.verifier.check(c);
      if (why !== null) return this.fail(c.seq, undefined, `the ${name} at ${c.seq} does not verify: ${why}`);
      this.signaturesChecked++;
    }
    this.checkpoints++;
    this.lastCheckpointSeq = c.seq;
    this.sinceCheckpoint = 0;
  }

  private hold(seq: number, id: string, what: string): void {
    this.suspect = { seq, id, what };
  }

  private fail(seq: number | null, id: string | undefined, what: string): void {
    this.problem = { chain: this.chain, seq, ...(id === undefined ? {} : { id }), what };
  }
}
