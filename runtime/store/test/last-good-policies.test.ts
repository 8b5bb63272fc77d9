import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testBackends } from '../../../testing/db.js';
import { migrate, storeOn, type Db, type Store } from '../index.js';

const version = (over: Record<string, unknown> = {}) => ({
  namespace: 'prod',
  name: 'pii',
  document: { kind: 'Policy', spec: { rego: 'package p\n' } },
  hash: 'h1',
  generation: 3,
  uid: 'uid-1',
  resourceVersion: '41',
  ...over,
});

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`policy_last_good on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let store: Store;

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
      store = storeOn(db);
    });
    afterAll(async () => {
      await db?.close();
    });
    beforeEach(async () => {
      await db.query('DELETE FROM policy_last_good');
    });

    it('stores a version once: replicas writing the same one keep the row', async () => {
      expect(await store.lastGoodPolicies.save(version())).toBe('stored');
      expect(await store.lastGoodPolicies.save(version())).toBe('kept');
      expect(await store.lastGoodPolicies.list()).toEqual([
        {
          ...version(),
          storedAt: expect.any(Date),
        },
      ]);
    });

    it('keeps a newer generation of the same object over a lagging replica, and takes a re-created object', async () => {
      await store.lastGoodPolicies.save(version({ hash: 'h5', generation: 5 }));
      expect(await store.lastGoodPolicies.save(version({ hash: 'h4', generation: 4 }))).toBe('kept');
      expect(await store.lastGoodPolicies.save(version({ hash: 'h6', generation: 6 }))).toBe('stored');
      expect(await store.lastGoodPolicies.save(version({ hash: 'n1', generation: 1, uid: 'uid-2' }))).toBe('stored');
      expect((await store.lastGoodPolicies.list()).map((v) => [v.hash, v.generation, v.uid])).toEqual([
        ['n1', 1, 'uid-2'],
      ]);
    });

    it('keeps bundles byte for byte, and lists one namespace', async () => {
      const bundle = new Uint8Array([0, 0x61, 0x73, 0x6d, 255, 0]);
      await store.lastGoodPolicies.save(version({ bundle }));
      await store.lastGoodPolicies.save(version({ namespace: 'dev' }));
      const prod = await store.lastGoodPolicies.list('prod');
      expect(prod.map((v) => v.namespace)).toEqual(['prod']);
      expect(prod[0]!.bundle).toEqual(bundle);
      expect(await store.lastGoodPolicies.list()).toHaveLength(2);
    });

    it("deletes a Policy's row, but not a re-created object's when the uid is another", async () => {
      await store.lastGoodPolicies.save(version({ uid: 'uid-2' }));
      await store.lastGoodPolicies.delete('prod', 'pii', 'uid-1');
      expect(await store.lastGoodPolicies.list()).toHaveLength(1);
      await store.lastGoodPolicies.delete('prod', 'pii', 'uid-2');
      expect(await store.lastGoodPolicies.list()).toEqual([]);
      await store.lastGoodPolicies.save(version({ uid: undefined }));
      await store.lastGoodPolicies.delete('prod', 'pii');
      expect(await store.lastGoodPolicies.list()).toEqual([]);
    });
  });
}
