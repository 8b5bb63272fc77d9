import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../../store/index.js';
import { listCheckpoints } from '../checkpoints.js';
import { pruneAudit } from '../retention.js';
import { verifyAudit } from '../verify.js';
import { recordChain, testKey, type TestKey } from './chains.js';

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`pruneAudit on ${backend.name}`, () => {
    let db: Db;
    let store: Store;
    let key: TestKey;
    let n = 0;

    /** 25 rows dated before the cutoff (checkpoints at 10 and 20), then 25 after it (checkpoints at 35 and 45). */
    const oldAndNew = async () => {
      const org = `org-${++n}`;
      await recordChain(store, key.signer, org, { rows: 25, checkpointEvery: 10 });
      await sleep(5);
      const cutoff = new Date();
      await sleep(5);
      await recordChain(store, key.signer, org, { rows: 25, checkpointEvery: 10 });
      return { org, cutoff };
    };
    const mine = <T extends { chain: string }>(org: string, list: T[]) => list.filter((c) => c.chain === org);

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
      store = storeOn(db);
      key = await testKey();
    });
    afterAll(async () => {
      await db?.close();
      await key?.remove();
    });

    it('deletes whole segments up to the latest checkpoint before the cutoff, and verification still passes', async () => {
      const { org, cutoff } = await oldAndNew();
      const result = await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      expect(mine(org, result.chains)).toEqual([{ chain: org, prunedThrough: 20, rows: 20 }]);
      expect(mine(org, result.skipped)).toEqual([]);
      expect(await store.audit.count(org)).toBe(30);
      expect(await verifyAudit(db, key.verifier, { organization: org })).toMatchObject({
        ok: true,
        chains: [{ rows: 30, firstSeq: 21, lastSeq: 50, startSeq: 20, lastCheckpointSeq: 45 }],
      });
      const pruned = (await listCheckpoints(db, org)).filter((c) => c.kind === 'pruned');
      expect(pruned).toMatchObject([{ seq: 20, kind: 'pruned', keyId: key.signer.keyId }]);
      expect(key.verifier.check(pruned[0]!)).toBeNull();
    });

    it('is idempotent: a second prune with the same cutoff deletes nothing and signs nothing', async () => {
      const { org, cutoff } = await oldAndNew();
      await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      const again = await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      expect(mine(org, again.chains)).toEqual([]);
      expect((await listCheckpoints(db, org)).filter((c) => c.kind === 'pruned')).toHaveLength(1);
    });

    it('deletes in batches of batchRows', async () => {
      const { org, cutoff } = await oldAndNew();
      const result = await pruneAudit(db, key.signer, { before: cutoff, now: new Date(), batchRows: 3 });
      expect(mine(org, result.chains)).toEqual([{ chain: org, prunedThrough: 20, rows: 20 }]);
    });

    it('leaves the remaining rows protected: a change after a prune is still named', async () => {
      const { org, cutoff } = await oldAndNew();
      await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      await db.query(`UPDATE audit_entries SET prompt = 'x' WHERE organization_id = $1 AND chain_seq = 21`, [org]);
      expect(await verifyAudit(db, key.verifier, { organization: org })).toMatchObject({
        ok: false,
        problem: { chain: org, seq: 21, what: expect.stringMatching(/^changed row/) },
      });
    });

    it('rejects a pruned checkpoint that was tampered with', async () => {
      const { org, cutoff } = await oldAndNew();
      await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      await db.query(
        `UPDATE audit_checkpoints SET hash = decode(repeat('cd', 32), 'hex') WHERE organization_id = $1 AND kind = 'pruned'`,
        [org],
      );
      expect(await verifyAudit(db, key.verifier, { organization: org })).toMatchObject({
        ok: false,
        problem: {
          seq: 20,
          what: expect.stringMatching(/^the pruned checkpoint at 20 does not verify: bad signature/),
        },
      });
    });

    it('leaves a chain whole when the checkpoint to cut at does not verify (no laundering a forged one)', async () => {
      const { org, cutoff } = await oldAndNew();
      const forger = await testKey();
      const forged = forger.signer.sign({
        chain: org,
        seq: 24,
        hash: 'ab'.repeat(32),
        at: new Date().toISOString(),
        kind: 'checkpoint',
      });
      await db.query(
        `INSERT INTO audit_checkpoints (organization_id, seq, kind, hash, signed_at, key_id, signature)
         VALUES ($1, 24, 'checkpoint', decode($2, 'hex'), $3, $4, $5)`,
        [org, forged.hash, forged.at, forged.keyId, forged.signature],
      );
      const result = await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      expect(mine(org, result.skipped)).toEqual([
        { chain: org, seq: 24, why: expect.stringMatching(/^signed by key/) },
      ]);
      expect(mine(org, result.chains)).toEqual([]);
      expect(await store.audit.count(org)).toBe(50);
      await forger.remove();
    });

    it('prunes nothing where no checkpoint precedes the cutoff', async () => {
      const org = `org-${++n}`;
      await recordChain(store, key.signer, org, { rows: 5, checkpointEvery: 10 });
      const result = await pruneAudit(db, key.signer, { before: new Date(Date.now() + 60_000), now: new Date() });
      expect(mine(org, result.chains)).toEqual([]);
      expect(await store.audit.count(org)).toBe(5);
    });

    it('finishes a prune that stopped after signing, before deleting', async () => {
      const { org, cutoff } = await oldAndNew();
      const cp = (await listCheckpoints(db, org)).find((c) => c.seq === 10)!;
      const p = key.signer.sign({ ...cp, kind: 'pruned', at: new Date().toISOString() });
      await db.query(
        `INSERT INTO audit_checkpoints (organization_id, seq, kind, hash, signed_at, key_id, signature)
         VALUES ($1, 10, 'pruned', decode($2, 'hex'), $3, $4, $5)`,
        [org, p.hash, p.at, p.keyId, p.signature],
      );
      expect((await verifyAudit(db, key.verifier, { organization: org })).ok).toBe(true);
      const result = await pruneAudit(db, key.signer, { before: new Date(0), now: new Date() });
      expect(mine(org, result.chains)).toEqual([{ chain: org, prunedThrough: 10, rows: 10 }]);
      await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      expect(await verifyAudit(db, key.verifier, { organization: org })).toMatchObject({
        ok: true,
        chains: [{ startSeq: 20 }],
      });
    });

    it('deletes unchained rows dated before both the cutoff and the chains, and keeps later ones as evidence', async () => {
      const org = `org-${++n}`;
      await recordChain(store, key.signer, org, { rows: 2 });
      await db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, context_id, created_at) VALUES
           ('aud_legacy_2019', $1, 'c', NULL, '2019-06-01T00:00:00Z'),
           ('aud_legacy_2021', $1, 'c', NULL, '2021-06-01T00:00:00Z'),
           ('aud_unchained_now', $1, 'c', NULL, now())`,
        [org],
      );
      const result = await pruneAudit(db, key.signer, { before: new Date('2020-01-01T00:00:00Z'), now: new Date() });
      expect(result.legacyRows).toBe(1);
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM audit_entries WHERE organization_id = $1 AND chain_seq IS NULL ORDER BY id`,
        [org],
      );
      expect(rows.map((r) => r.id)).toEqual(['aud_legacy_2021', 'aud_unchained_now']);
    });
  });
}
