import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../../store/index.js';
import { rowDigest } from '../../store/audit-digest.js';
import { verifyAudit } from '../verify.js';
import { chainedRowOf } from '../walk.js';
import {
  chainRows,
  forgedRow,
  idAt,
  insertRenumbered,
  recordChain,
  testKey,
  type ChainShape,
  type TestKey,
} from './chains.js';

/** 55 rows, a checkpoint every 10: the last one at 50, five rows after it. */
const SHAPE = { rows: 55, checkpointEvery: 10 };

interface TamperCase {
  name: string;
  tamper: (db: Db, org: string, key: TestKey) => Promise<unknown>;
  seq: number | null;
  /** The row named, by its sequence number before the tampering. */
  idOf?: number;
  what: RegExp;
}

const tamperCases: TamperCase[] = [
  {
    name: 'names a changed row by its sequence number and id',
    tamper: (db, org) =>
      db.query(`UPDATE audit_entries SET response = 'x' WHERE organization_id = $1 AND chain_seq = 25`, [org]),
    seq: 25,
    idOf: 25,
    what: /^changed row: its content differs from the digest written with it$/,
  },
  {
    name: 'names a row changed together with its digest as a broken link',
    tamper: async (db, org) => {
      const row = (await chainRows(db, org))[24]!;
      const digest = rowDigest({ ...chainedRowOf(row), response: 'x' }).toString('hex');
      await db.query(
        `UPDATE audit_entries SET response = 'x', row_digest = decode($2, 'hex') WHERE organization_id = $1 AND chain_seq = 25`,
        [org, digest],
      );
    },
    seq: 25,
    idOf: 25,
    what: /^broken link: /,
  },
  {
    name: 'names a deleted row',
    tamper: (db, org) => db.query('DELETE FROM audit_entries WHERE organization_id = $1 AND chain_seq = 25', [org]),
    seq: 25,
    what: /^deleted row: row 25 is missing \(the next row is 26/,
  },
  {
    name: 'names rows deleted at the end, by the chain head',
    tamper: (db, org) => db.query('DELETE FROM audit_entries WHERE organization_id = $1 AND chain_seq >= 53', [org]),
    seq: 53,
    what: /^deleted row: rows 53–55 are missing \(the chain head is at 55/,
  },
  {
    name: 'names rows deleted at the end with the head moved back, by the signed checkpoint beyond them',
    tamper: async (db, org) => {
      await db.query('DELETE FROM audit_entries WHERE organization_id = $1 AND chain_seq >= 45', [org]);
      await db.query(
        `UPDATE audit_chains SET seq = 44,
           head = (SELECT chain_hash FROM audit_entries WHERE organization_id = $1 AND chain_seq = 44)
         WHERE organization_id = $1`,
        [org],
      );
    },
    seq: 45,
    what: /^deleted row: rows 45–50 are missing \(a checkpoint is at 50/,
  },
  {
    name: 'names a row inserted around the chain (no digest) by its id',
    tamper: (db, org) =>
      db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, context_id, response) VALUES ('aud_forged_' || $1, $1, 'c', NULL, 'x')`,
        [org],
      ),
    seq: null,
    what: /^inserted row: it is outside the chain/,
  },
  {
    name: 'names the row after one inserted with renumbered sequence numbers',
    tamper: (db, org) => insertRenumbered(db, org, 22, forgedRow(org, `aud_forged_${org}`), false),
    seq: 23,
    idOf: 22,
    what: /^broken link: .*a row before it was inserted, deleted or renumbered/,
  },
  {
    name: 'catches a segment rewritten with every link recomputed, by its signed checkpoint',
    tamper: (db, org) => insertRenumbered(db, org, 22, forgedRow(org, `aud_forged_${org}`), true),
    seq: 30,
    what: /^the checkpoint at 30 does not match the chain: a row after 20 and at or before 30 was changed/,
  },
  {
    name: "rejects a checkpoint whose hash was replaced by the chain's",
    tamper: (db, org) =>
      db.query(
        `UPDATE audit_checkpoints SET hash = decode(repeat('ab', 32), 'hex') WHERE organization_id = $1 AND seq = 30`,
        [org],
      ),
    seq: 30,
    what: /does not match the chain/,
  },
  {
    name: 'rejects a checkpoint whose signature does not verify',
    tamper: async (db, org, key) => {
      const other = key.signer.sign({
        chain: org,
        seq: 31,
        hash: 'ab'.repeat(32),
        at: new Date().toISOString(),
        kind: 'checkpoint',
      });
      await db.query('UPDATE audit_checkpoints SET signature = $2 WHERE organization_id = $1 AND seq = 30', [
        org,
        other.signature,
      ]);
    },
    seq: 30,
    what: /^the checkpoint at 30 does not verify: bad signature/,
  },
  {
    name: 'rejects a checkpoint signed by another key',
    tamper: async (db, org) => {
      const forger = (await testKey()).signer;
      const { rows } = await db.query<{ hash: string; signed_at: Date }>(
        `SELECT encode(hash, 'hex') AS hash, signed_at FROM audit_checkpoints WHERE organization_id = $1 AND seq = 30`,
        [org],
      );
      const at = new Date(rows[0]!.signed_at).toISOString();
      const c = forger.sign({ chain: org, seq: 30, hash: rows[0]!.hash, at, kind: 'checkpoint' });
      await db.query(
        'UPDATE audit_checkpoints SET key_id = $2, signature = $3 WHERE organization_id = $1 AND seq = 30',
        [org, c.keyId, c.signature],
      );
    },
    seq: 30,
    what: /does not verify: signed by key [0-9a-f]{16}, not by this key/,
  },
  {
    name: 'names a chain whose head was deleted',
    tamper: (db, org) => db.query('DELETE FROM audit_chains WHERE organization_id = $1', [org]),
    seq: 55,
    what: /no head/,
  },
];

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`verifyAudit on ${backend.name}`, () => {
    let db: Db;
    let store: Store;
    let key: TestKey;
    let n = 0;
    /** A fresh organization with a recorded chain; each test has its own. */
    const chain = async (shape: ChainShape = SHAPE) => {
      const org = `org-${++n}`;
      await recordChain(store, key.signer, org, shape);
      return org;
    };

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

    it('passes an untouched chain and counts the rows after its last checkpoint', async () => {
      const org = await chain();
      const result = await verifyAudit(db, key.verifier, { organization: org });
      expect(result).toEqual({
        ok: true,
        signatures: 'verified',
        chains: [
          {
            chain: org,
            rows: 55,
            firstSeq: 1,
            lastSeq: 55,
            checkpoints: 5,
            signaturesChecked: 5,
            lastCheckpointSeq: 50,
            rowsAfterLastCheckpoint: 5,
            startSeq: 0,
            legacyRows: 0,
          },
        ],
      });
    });

    it('reads the chain in pages of any size with the same result', async () => {
      const org = await chain();
      const whole = await verifyAudit(db, key.verifier, { organization: org });
      for (const pageSize of [1, 7, 10, 55, 56])
        expect(await verifyAudit(db, key.verifier, { organization: org, pageSize })).toEqual(whole);
    });

    it.each(tamperCases)('$name', async ({ tamper, seq, idOf, what }) => {
      const org = await chain();
      const id = idOf === undefined ? undefined : await idAt(db, org, idOf);
      await tamper(db, org, key);
      const result = await verifyAudit(db, key.verifier, { organization: org, pageSize: 7 });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.problem).toMatchObject({ chain: org, seq });
      expect(result.problem.what).toMatch(what);
      if (id !== undefined) expect(result.problem.id).toBe(id);
      if (seq === null) expect(result.problem.id).toBe(`aud_forged_${org}`);
    });

    it('names a sequence number that appears twice (the unique index dropped)', async () => {
      const org = await chain();
      const twin = forgedRow(org, 'aud_twin');
      await db.exec('DROP INDEX audit_entries_chain_idx');
      try {
        await db.exec('ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_chain');
        await db.query(
          `INSERT INTO audit_entries (id, organization_id, client_id, context_id, metadata, row_digest, chain_seq, chain_hash)
           SELECT 'aud_twin', organization_id, client_id, context_id, metadata, row_digest, chain_seq, chain_hash
             FROM audit_entries WHERE organization_id = $1 AND chain_seq = 12`,
          [org],
        );
        const result = await verifyAudit(db, key.verifier, { organization: org });
        expect(result.ok || result.problem).toMatchObject({
          seq: 12,
          what: expect.stringMatching(/sequence 12 appears twice/),
        });
      } finally {
        await db.query(`DELETE FROM audit_entries WHERE id = $1`, [twin.id]);
        await db.exec('ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_chain');
        await db.exec(
          'CREATE UNIQUE INDEX audit_entries_chain_idx ON audit_entries (organization_id, chain_seq) WHERE chain_seq IS NOT NULL',
        );
      }
    });

    it('without a public key compares checkpoint hashes but reports the signatures as unchecked', async () => {
      const org = await chain();
      const result = await verifyAudit(db, undefined, { organization: org });
      expect(result).toMatchObject({
        ok: true,
        signatures: 'unchecked',
        chains: [{ checkpoints: 5, signaturesChecked: 0 }],
      });
      await insertRenumbered(db, org, 3, forgedRow(org, `aud_forged_${org}`), true);
      expect(await verifyAudit(db, undefined, { organization: org })).toMatchObject({
        ok: false,
        problem: { seq: 10 },
      });
    });

    it('counts unchained rows dated before the chains began as legacy, not as inserted', async () => {
      const org = await chain({ rows: 3 });
      await db.query(
        `INSERT INTO audit_entries (id, organization_id, client_id, context_id, created_at)
         VALUES ('aud_old_1', $1, 'c', NULL, '2020-01-01T00:00:00Z'), ('aud_old_2', $1, 'c', NULL, '2020-01-02T00:00:00Z')`,
        [org],
      );
      expect(await verifyAudit(db, key.verifier, { organization: org })).toMatchObject({
        ok: true,
        chains: [{ rows: 3, legacyRows: 2, checkpoints: 1 }],
      });
    });

    it('verifies every organization when none is named, one problem per broken chain', async () => {
      const verifyAll = await backend.open();
      try {
        await migrate(verifyAll);
        const all = storeOn(verifyAll);
        await recordChain(all, key.signer, 'org-a', { rows: 12, checkpointEvery: 5 });
        await recordChain(all, key.signer, 'org-b', { rows: 8, checkpointEvery: 5 });
        await recordChain(all, key.signer, 'org-c', { rows: 4 });
        expect(await verifyAudit(verifyAll, key.verifier)).toMatchObject({
          ok: true,
          chains: [
            { chain: 'org-a', rows: 12, lastCheckpointSeq: 10 },
            { chain: 'org-b', rows: 8, lastCheckpointSeq: 5 },
            { chain: 'org-c', rows: 4, lastCheckpointSeq: 4 },
          ],
        });
        await verifyAll.query(
          `UPDATE audit_entries SET model = 'y' WHERE chain_seq = 2 AND organization_id <> 'org-b'`,
        );
        const result = await verifyAudit(verifyAll, key.verifier);
        expect(result.ok || result.problems.map((p) => [p.chain, p.seq])).toEqual([
          ['org-a', 2],
          ['org-c', 2],
        ]);
      } finally {
        await verifyAll.close();
      }
    });

    it('ignores rows written after the verification began (one snapshot)', async () => {
      const org = await chain({ rows: 20, checkpointEvery: 10 });
      const [result] = await Promise.all([
        verifyAudit(db, key.verifier, { organization: org, pageSize: 2 }),
        recordChain(store, key.signer, org, { rows: 20, checkpointEvery: 10, inFlight: 5 }),
      ]);
      expect(result.ok).toBe(true);
      expect((await verifyAudit(db, key.verifier, { organization: org })).chains[0]).toMatchObject({ rows: 40 });
    });
  });
}
