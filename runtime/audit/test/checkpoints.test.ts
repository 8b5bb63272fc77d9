import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../../store/index.js';
import { listCheckpoints, writeCheckpoints } from '../checkpoints.js';
import type { SignedCheckpoint } from '../signing.js';
import { chainRows, recordChain, testKey, type TestKey } from './chains.js';

const T0 = new Date('2026-09-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const EVERY = { everyRows: 10, everyMs: 60_000 };

interface DueCase {
  name: string;
  /** Rows recorded after the first checkpoint. */
  more: number;
  /** Time since the first checkpoint. */
  afterMs: number;
  written: boolean;
}

const dueCases: DueCase[] = [
  {
    name: 'writes nothing while the head has not moved, however long ago',
    more: 0,
    afterMs: 3_600_000,
    written: false,
  },
  { name: 'writes nothing below everyRows rows and everyMs', more: 9, afterMs: 59_999, written: false },
  { name: 'writes once everyRows rows were added', more: 10, afterMs: 1, written: true },
  { name: 'writes once everyMs passed and a row was added', more: 1, afterMs: 60_000, written: true },
];

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`writeCheckpoints on ${backend.name}`, () => {
    let db: Db;
    let store: Store;
    let key: TestKey;
    let n = 0;
    const org = () => `org-${++n}`;

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

    it('signs the head of a chain that has no checkpoint yet, with the hash of its last row', async () => {
      const o = org();
      await recordChain(store, key.signer, o, { rows: 3, checkpointEvery: 1000 });
      const written = await writeCheckpoints(db, key.signer, { now: T0, ...EVERY });
      const last = (await chainRows(db, o)).at(-1)!;
      expect(written.filter((c) => c.chain === o)).toEqual([
        {
          chain: o,
          seq: 3,
          hash: last.chain_hash,
          at: T0.toISOString(),
          kind: 'checkpoint',
          keyId: key.signer.keyId,
          signature: expect.any(String),
        },
      ]);
      expect(key.verifier.check(written.find((c) => c.chain === o)!)).toBeNull();
      expect(await listCheckpoints(db, o)).toEqual(written.filter((c) => c.chain === o));
    });

    it.each(dueCases)('$name', async ({ more, afterMs, written }) => {
      const o = org();
      await recordChain(store, key.signer, o, { rows: 2, checkpointEvery: 1000 });
      await writeCheckpoints(db, key.signer, { now: T0, ...EVERY });
      await recordChain(store, key.signer, o, { rows: more, checkpointEvery: 1000 });
      const now = at(afterMs);
      const out = await writeCheckpoints(db, key.signer, { now, ...EVERY });
      expect(out.filter((c) => c.chain === o).map((c) => c.seq)).toEqual(written ? [2 + more] : []);
      expect((await listCheckpoints(db, o)).map((c) => c.seq)).toEqual(written ? [2, 2 + more] : [2]);
    });

    it('writes one checkpoint of a head when two replicas race, and only the winner calls its witness', async () => {
      const o = org();
      await recordChain(store, key.signer, o, { rows: 5, checkpointEvery: 1000 });
      const seen: SignedCheckpoint[] = [];
      const witness = async (c: SignedCheckpoint) => void seen.push(c);
      const [a, b] = await Promise.all([
        writeCheckpoints(db, key.signer, { now: at(1), ...EVERY, witness }),
        writeCheckpoints(db, key.signer, { now: at(2), ...EVERY, witness }),
      ]);
      const mine = [...a, ...b].filter((c) => c.chain === o);
      expect(mine).toHaveLength(1);
      expect(seen.filter((c) => c.chain === o)).toEqual(mine);
      expect(await listCheckpoints(db, o)).toEqual(mine);
    });

    it('keeps a checkpoint whose witness failed, and reports the failure', async () => {
      const o = org();
      await recordChain(store, key.signer, o, { rows: 1, checkpointEvery: 1000 });
      const failures: [unknown, SignedCheckpoint][] = [];
      const written = await writeCheckpoints(db, key.signer, {
        now: T0,
        ...EVERY,
        witness: () => Promise.reject(new Error('witness down')),
        onWitnessError: (err, c) => failures.push([err, c]),
      });
      expect(written.map((c) => c.chain)).toContain(o);
      expect(failures.map(([err, c]) => [(err as Error).message, c.chain])).toContainEqual(['witness down', o]);
      expect(await listCheckpoints(db, o)).toHaveLength(1);
    });

    it('writes nothing when no chain is due', async () => {
      await writeCheckpoints(db, key.signer, { now: at(10), ...EVERY });
      expect(await writeCheckpoints(db, key.signer, { now: at(11), ...EVERY })).toEqual([]);
    });
  });
}
