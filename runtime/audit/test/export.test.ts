import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../../store/index.js';
import { AuditExportError, exportAudit, verifyExport, type ExportOptions } from '../export.js';
import { pruneAudit } from '../retention.js';
import { verifyAudit } from '../verify.js';
import { ZERO_HASH } from '../walk.js';
import { recordChain, testKey, type TestKey } from './chains.js';

type Line = Record<string, unknown> & { type: string };

async function lines(db: Db, opts: ExportOptions): Promise<string[]> {
  const out: string[] = [];
  for await (const l of exportAudit(db, opts)) out.push(l);
  return out;
}
const parsed = (ls: string[]) => ls.map((l) => JSON.parse(l) as Line);
const indexOf = (ls: string[], type: string, seq: number) =>
  parsed(ls).findIndex((l) => l.type === type && (type === 'row' ? l.chain_seq : l.seq) === seq);

interface EditCase {
  name: string;
  edit: (ls: string[]) => string[];
  seq: number | null;
  what: RegExp;
}

const edit = (ls: string[], type: string, seq: number, change: (l: Line) => Line | undefined) => {
  const i = indexOf(ls, type, seq);
  const changed = change(JSON.parse(ls[i]!) as Line);
  return [...ls.slice(0, i), ...(changed ? [JSON.stringify(changed)] : []), ...ls.slice(i + 1)];
};

const editCases: EditCase[] = [
  {
    name: 'names a row whose text was changed',
    edit: (ls) => edit(ls, 'row', 17, (l) => ({ ...l, response: 'changed' })),
    seq: 17,
    what: /^changed row/,
  },
  {
    name: 'names a row whose line was removed',
    edit: (ls) => edit(ls, 'row', 17, () => undefined),
    seq: 17,
    what: /^deleted row: row 17 is missing/,
  },
  {
    name: 'names a row changed with its digest and hash, by the checkpoint after it',
    edit: (ls) => edit(ls, 'checkpoint', 20, (l) => ({ ...l, hash: 'ef'.repeat(32) })),
    seq: 20,
    what: /^the checkpoint at 20 does not match the chain/,
  },
  {
    name: 'names a checkpoint whose signature does not verify',
    edit: (ls) => edit(ls, 'checkpoint', 20, (l) => ({ ...l, at: '2020-01-01T00:00:00.000Z' })),
    seq: 20,
    what: /^the checkpoint at 20 does not verify: bad signature/,
  },
  {
    name: 'names the first row when the anchor was changed',
    edit: (ls) => [JSON.stringify({ ...(JSON.parse(ls[0]!) as Line), hash: 'ab'.repeat(32) }), ...ls.slice(1)],
    seq: 1,
    what: /^broken link/,
  },
  {
    name: 'names two rows swapped',
    edit: (ls) => {
      const [a, b] = [indexOf(ls, 'row', 5), indexOf(ls, 'row', 6)];
      const out = [...ls];
      [out[a], out[b]] = [ls[b]!, ls[a]!];
      return out;
    },
    seq: 5,
    what: /^deleted row: row 5 is missing/,
  },
  {
    name: 'names a line that is not JSON',
    edit: (ls) => [...ls.slice(0, 3), '{"type": "row", ', ...ls.slice(4)],
    seq: null,
    what: /^line 4 of the export: not JSON$/,
  },
  {
    name: 'refuses an export without its anchor line',
    edit: (ls) => ls.slice(1),
    seq: null,
    what: /^line 1 of the export: the first line is not the anchor$/,
  },
];

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`exportAudit and verifyExport on ${backend.name}`, () => {
    let db: Db;
    let store: Store;
    let key: TestKey;
    let n = 0;
    const chain = async (rows = 35) => {
      const org = `org-${++n}`;
      await recordChain(store, key.signer, org, { rows, checkpointEvery: 10 });
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

    it('exports a whole chain as anchor, rows and checkpoints after their rows, and it verifies offline', async () => {
      const org = await chain();
      const ls = await lines(db, { organization: org });
      const kinds = parsed(ls).map((l) => (l.type === 'row' ? `r${l.chain_seq}` : `${l.type[0]}${l.seq}`));
      expect(kinds.slice(0, 2)).toEqual(['a0', 'r1']);
      expect(kinds.slice(10, 13)).toEqual(['r10', 'c10', 'r11']);
      expect(kinds).toHaveLength(1 + 35 + 3);
      expect(parsed(ls)[0]).toEqual({ type: 'anchor', chain: org, seq: 0, hash: ZERO_HASH });
      const offline = await verifyExport(ls, key.verifier);
      const online = await verifyAudit(db, key.verifier, { organization: org });
      expect(offline).toEqual(online);
    });

    it.each(editCases)('$name', async ({ edit, seq, what }) => {
      const org = await chain();
      const result = await verifyExport(edit(await lines(db, { organization: org })), key.verifier);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.problem.seq).toBe(seq);
      expect(result.problem.what).toMatch(what);
    });

    it('exports a date range as the contiguous run of its rows, anchored on the link before it', async () => {
      const org = `org-${++n}`;
      await recordChain(store, key.signer, org, { rows: 10, checkpointEvery: 10 });
      await sleep(5);
      const from = new Date();
      await recordChain(store, key.signer, org, { rows: 10, checkpointEvery: 10 });
      await sleep(5);
      const to = new Date();
      await recordChain(store, key.signer, org, { rows: 10, checkpointEvery: 10 });
      const ls = parsed(await lines(db, { organization: org, from, to }));
      const rows = ls.filter((l) => l.type === 'row');
      expect(rows.map((r) => r.chain_seq)).toEqual(Array.from({ length: 10 }, (_, i) => 11 + i));
      expect(ls[0]).toMatchObject({ type: 'anchor', seq: 10 });
      // The checkpoint at the anchor vouches for it; the one at 20 closes the range.
      expect(ls.filter((l) => l.type === 'checkpoint').map((c) => c.seq)).toEqual([10, 20]);
      const result = await verifyExport(
        ls.map((l) => JSON.stringify(l)),
        key.verifier,
      );
      expect(result).toMatchObject({ ok: true, chains: [{ startSeq: 10, rows: 10, checkpoints: 2 }] });
    });

    it('exports an empty range as its anchor alone', async () => {
      const org = await chain(5);
      const ls = await lines(db, { organization: org, from: new Date(Date.now() + 60_000) });
      expect(parsed(ls)).toEqual([{ type: 'anchor', chain: org, seq: 0, hash: ZERO_HASH }]);
      expect(await verifyExport(ls, key.verifier)).toMatchObject({ ok: true, chains: [{ rows: 0 }] });
    });

    it('exports a pruned chain from its pruned checkpoint, which vouches for the anchor', async () => {
      const org = await chain();
      const cutoff = new Date(Date.now() + 1);
      await sleep(5);
      await pruneAudit(db, key.signer, { before: cutoff, now: new Date() });
      const ls = await lines(db, { organization: org });
      expect(parsed(ls).slice(0, 2)).toMatchObject([
        { type: 'anchor', seq: 30 },
        { type: 'checkpoint', kind: 'pruned', seq: 30 },
      ]);
      expect(await verifyExport(ls, key.verifier)).toMatchObject({
        ok: true,
        chains: [{ startSeq: 30, rows: 5, checkpoints: 1, rowsAfterLastCheckpoint: 5 }],
      });
    });

    it('refuses to export a range whose anchor row is gone, naming it', async () => {
      const org = await chain(5);
      await sleep(5);
      const from = new Date();
      await recordChain(store, key.signer, org, { rows: 5 });
      await db.query('DELETE FROM audit_entries WHERE organization_id = $1 AND chain_seq = 5', [org]);
      await expect(lines(db, { organization: org, from })).rejects.toThrow(
        new AuditExportError(
          `the row before the range (sequence 5 of ${org}) is missing, so the export has no anchor; ` +
            'run `steward audit verify`, or export a wider range',
        ),
      );
    });
  });
}
