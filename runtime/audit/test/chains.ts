/**
 * Builders for the audit evidence tests: a signing key in a temporary folder, chains recorded through the store as
 * the gateway records them, and the SQL an attacker with database access would run against them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queryable, Store } from '../../store/index.js';
import { rowDigest } from '../../store/audit-digest.js';
import { writeCheckpoints } from '../checkpoints.js';
import { AuditSigner, AuditVerifier } from '../signing.js';
import { chainedRowOf, type LinkedRow } from '../walk.js';
import { chainPages } from '../verify.js';
import { createHash } from 'node:crypto';

export interface TestKey {
  signer: AuditSigner;
  verifier: AuditVerifier;
  dir: string;
  keyFile: string;
  publicKeyFile: string;
  remove(): Promise<void>;
}

/** A fresh audit key in a temporary folder. */
export async function testKey(): Promise<TestKey> {
  const dir = await mkdtemp(join(tmpdir(), 'steward-audit-test-'));
  const keyFile = join(dir, 'audit-signing-key.pem');
  const { signer, publicKeyPath } = await AuditSigner.generateFile(keyFile);
  return {
    signer,
    verifier: await AuditVerifier.fromFile(publicKeyPath),
    dir,
    keyFile,
    publicKeyFile: publicKeyPath,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface ChainShape {
  /** Rows to record. */
  rows: number;
  /** A checkpoint after every this many rows (the last ones may stay after the last checkpoint). */
  checkpointEvery?: number;
  /** record() calls in flight at once, so that the store's group insert batches them. @default 50 */
  inFlight?: number;
}

/** Records rows for `org` through `store.audit.record`, signing a checkpoint after each full `checkpointEvery`. */
export async function recordChain(store: Store, signer: AuditSigner, org: string, shape: ChainShape): Promise<void> {
  const every = shape.checkpointEvery ?? shape.rows;
  for (let done = 0; done < shape.rows;) {
    const chunk = Math.min(every, shape.rows - done);
    await recordRows(store, org, chunk, shape.inFlight ?? 50, done);
    done += chunk;
    if (chunk === every) await writeCheckpoints(store.db, signer, { now: new Date(), everyRows: every, everyMs: 1e9 });
  }
}

async function recordRows(store: Store, org: string, count: number, inFlight: number, offset: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = offset + next++;
      await store.audit.record({
        organizationId: org,
        clientId: 'cli_test',
        contextId: null,
        provider: 'echo',
        model: 'echo',
        prompt: `question ${i}`,
        response: `answer ${i}`,
        latencyMs: 12.5,
        promptTokens: 3,
        completionTokens: 4,
        totalTokens: 7,
        metadata: { kind: 'llm', step: i, tags: ['a', 'b'] },
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
}

/** The rows of a chain, in sequence order. */
export async function chainRows(db: Queryable, org: string): Promise<LinkedRow[]> {
  const rows: LinkedRow[] = [];
  for await (const page of chainPages(db, org, 0, undefined)) rows.push(...page);
  return rows;
}

export async function idAt(db: Queryable, org: string, seq: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM audit_entries WHERE organization_id = $1 AND chain_seq = $2',
    [org, seq],
  );
  return rows[0]!.id;
}

/** What an attacker inserts: a plausible row, its digest computed as the writer would. */
export function forgedRow(org: string, id: string): LinkedRow {
  const row = {
    id,
    organization_id: org,
    client_id: 'cli_test',
    context_id: null,
    user_token: null,
    provider: 'echo',
    model: 'echo',
    prompt: 'never asked',
    response: 'never answered',
    latency_ms: 1,
    prompt_tokens: 1,
    completion_tokens: 1,
    total_tokens: 2,
    metadata: {},
    created_at: new Date().toISOString(),
  };
  return { ...row, chain_seq: 0, chain_hash: '', row_digest: rowDigest(row).toString('hex') };
}

/**
 * Inserts `row` at `seq` as an attacker who owns the table would: the chain trigger disabled, the rows from `seq` on
 * moved up by one. `rehash`: every link from `seq` on recomputed and the head moved, so that only a signed checkpoint
 * can tell.
 */
export async function insertRenumbered(
  db: Queryable,
  org: string,
  seq: number,
  row: LinkedRow,
  rehash: boolean,
): Promise<void> {
  await db.exec('ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_chain');
  try {
    await shift(db, org, seq, row);
  } finally {
    await db.exec('ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_chain');
  }
  await db.query('UPDATE audit_chains SET seq = seq + 1 WHERE organization_id = $1', [org]);
  const rows = await chainRows(db, org);
  let link = seq === 1 ? '00'.repeat(32) : rows[seq - 2]!.chain_hash;
  for (const r of rows.slice(seq - 1)) {
    if (!rehash && r.chain_seq > seq) break;
    link = createHash('sha256')
      .update(Buffer.from(link + r.row_digest!, 'hex'))
      .digest('hex');
    await db.query(`UPDATE audit_entries SET chain_hash = decode($2, 'hex') WHERE id = $1`, [r.id, link]);
  }
  if (rehash)
    await db.query(`UPDATE audit_chains SET head = decode($2, 'hex') WHERE organization_id = $1`, [org, link]);
}

/** Moves the rows from `seq` on up by one and puts `row` at `seq` (the chain trigger disabled). */
async function shift(db: Queryable, org: string, seq: number, row: LinkedRow): Promise<void> {
  // Two steps: a unique index is checked row by row, so a shift by one in place would collide.
  await db.query('UPDATE audit_entries SET chain_seq = -chain_seq WHERE organization_id = $1 AND chain_seq >= $2', [
    org,
    seq,
  ]);
  await db.query('UPDATE audit_entries SET chain_seq = 1 - chain_seq WHERE organization_id = $1 AND chain_seq <= $2', [
    org,
    -seq,
  ]);
  const c = chainedRowOf(row);
  await db.query(
    `INSERT INTO audit_entries (id, organization_id, client_id, context_id, user_token, provider, model, prompt, response,
       latency_ms, prompt_tokens, completion_tokens, total_tokens, metadata, created_at, row_digest, chain_seq, chain_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, decode($16, 'hex'), $17, decode($18, 'hex'))`,
    [...Object.values(c).map((v, i) => (i === 13 ? JSON.stringify(v) : v)), row.row_digest, seq, '00'.repeat(32)],
  );
}
