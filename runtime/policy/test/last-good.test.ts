import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AnyResource } from '../../../api/index.js';
import { createLogger } from '../../../platform/log.js';
import { testBackends } from '../../../testing/db.js';
import { sharedPath } from '../../../testing/shared.js';
import { FolderSource } from '../../source/index.js';
import { migrate, storeOn, type Db, type Store } from '../../store/index.js';
import { PolicyRestoreError, RegoPolicyEngine } from '../engine.js';
import type { LastGoodStore } from '../last-good.js';
import { ask, policy, policyOf } from './harness.js';

const BLOCK_WORD = (pkg: string, word: string) =>
  `package ${pkg}\ndeny contains "found ${word}" if contains(input.query, "${word}")\n`;
const BROKEN = 'package p.evolving\ndeny contains "x" if {';
const FIXTURE = sharedPath('opa-wasm-fixture/bundle.tar.gz');

const silent = createLogger({ level: 'silent' });
const running: { engine: RegoPolicyEngine; source: FolderSource }[] = [];

/** A runtime's engine over the folder and the store; `restart` is starting another over the same two. */
async function start(
  dir: string,
  lastGood: LastGoodStore,
): Promise<{ engine: RegoPolicyEngine; source: FolderSource }> {
  const source = new FolderSource({ dirs: [dir], watch: false });
  await source.ready();
  const engine = new RegoPolicyEngine({
    source,
    log: silent,
    limits: { deadlineMs: 1000, maxSteps: 1_000_000 },
    isolation: false,
    lastGood,
  });
  await engine.restored();
  await engine.stored();
  running.push({ engine, source });
  return { engine, source };
}

async function stop(r: { engine: RegoPolicyEngine; source: FolderSource }): Promise<void> {
  r.engine.close();
  await r.source.close();
  running.splice(running.indexOf(r), 1);
}

const evolving = (rego: string, spec: Record<string, unknown> = {}) =>
  ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'Policy',
    metadata: { name: 'evolving', namespace: 'default' },
    spec: { type: 'custom', rego, ...spec },
  }) as unknown as AnyResource;

for (const backend of testBackends()) {
  const suite = backend.skip ? describe.skip : describe;
  suite(`last good policy versions on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`, () => {
    let db: Db;
    let store: Store;
    let dir: string;

    beforeAll(async () => {
      db = await backend.open();
      await migrate(db);
      store = storeOn(db);
    });
    afterAll(async () => {
      await db?.close();
    });
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'steward-last-good-'));
      await db.query('DELETE FROM policy_last_good');
    });
    afterEach(async () => {
      for (const r of [...running]) await stop(r);
      await rm(dir, { recursive: true, force: true });
    });

    it('keeps the version that compiled in force across a restart while the current one does not compile', async () => {
      await writeFile(join(dir, 'p.yaml'), policy('evolving', {}, BLOCK_WORD('p.evolving', 'old')));
      const first = await start(dir, store.lastGoodPolicies);
      expect(await store.lastGoodPolicies.list()).toEqual([
        expect.objectContaining({
          namespace: 'default',
          name: 'evolving',
          generation: 0,
          document: expect.objectContaining({
            spec: expect.objectContaining({ rego: BLOCK_WORD('p.evolving', 'old') }),
          }),
        }),
      ]);

      await first.source.apply(evolving(BROKEN));
      await first.engine.stored();
      expect(ask(first.engine, 'old').approved).toBe(false);
      const [kept] = await store.lastGoodPolicies.list();
      expect((kept!.document as { spec: { rego: string } }).spec.rego).toBe(BLOCK_WORD('p.evolving', 'old'));
      await stop(first);

      const second = await start(dir, store.lastGoodPolicies);
      expect(ask(second.engine, 'old')).toMatchObject({ approved: false, blockReason: 'evolving: found old' });
      expect(second.engine.active()).toEqual(['evolving']);
      expect(second.engine.problems()).toEqual([
        {
          policy: 'evolving',
          message: expect.stringMatching(
            /^evolving\.rego:\d+:\d+: .*; its last good version stays in force, restored from the store \(stored \d{4}-/,
          ),
        },
      ]);
      expect(second.engine.loadStates()[0]).toMatchObject({ loaded: false, fallback: { restored: true } });
    });

    it('drops the stored version when the Policy is deleted: a deleted policy is not in force, now or after a restart', async () => {
      await writeFile(join(dir, 'p.yaml'), policy('evolving', {}, BLOCK_WORD('p.evolving', 'old')));
      const r = await start(dir, store.lastGoodPolicies);
      await r.source.apply(evolving(BROKEN));
      await r.source.delete('Policy', 'evolving');
      await r.engine.stored();
      expect(await store.lastGoodPolicies.list()).toEqual([]);
      expect(ask(r.engine, 'old').approved).toBe(true);
    });

    it('removes at start the stored version of a Policy deleted while no runtime ran', async () => {
      await writeFile(join(dir, 'p.yaml'), policy('evolving', {}, BLOCK_WORD('p.evolving', 'old')));
      await stop(await start(dir, store.lastGoodPolicies));
      expect(await store.lastGoodPolicies.list()).toHaveLength(1);
      await unlink(join(dir, 'p.yaml'));
      await writeFile(join(dir, 'other.yaml'), policy('other', {}, BLOCK_WORD('p.other', 'x')));
      const r = await start(dir, store.lastGoodPolicies);
      expect((await store.lastGoodPolicies.list()).map((v) => v.name)).toEqual(['other']);
      expect(ask(r.engine, 'old').approved).toBe(true);
    });

    it("keeps a restored version's tenant scope, and keeps a disabled policy out of force", async () => {
      await writeFile(
        join(dir, 'p.yaml'),
        policy('evolving', { scope: { tenants: ['eu'] } }, BLOCK_WORD('p.evolving', 'old')),
      );
      await stop(await start(dir, store.lastGoodPolicies));
      await writeFile(join(dir, 'p.yaml'), policy('evolving', {}, BROKEN));
      const r = await start(dir, store.lastGoodPolicies);
      expect(ask(r.engine, 'old', { surface: 'pre-check', tenantId: 'eu' }).approved).toBe(false);
      expect(ask(r.engine, 'old', { surface: 'pre-check', tenantId: 'us' }).approved).toBe(true);

      await r.source.apply(evolving(BROKEN, { enabled: false }));
      expect(r.engine.active()).toEqual([]);
      expect(ask(r.engine, 'old', { surface: 'pre-check', tenantId: 'eu' }).approved).toBe(true);
    });

    it('writes one row for replicas that compile the same version', async () => {
      await writeFile(join(dir, 'p.yaml'), policy('evolving', {}, BLOCK_WORD('p.evolving', 'old')));
      await start(dir, store.lastGoodPolicies);
      await start(dir, store.lastGoodPolicies);
      expect(await store.lastGoodPolicies.list()).toHaveLength(1);
    });

    it.skipIf(!existsSync(FIXTURE))(
      'restores a wasm policy with the bundle it evaluated when its ConfigMap is gone',
      async () => {
        const cm = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bundles}\nbinaryData: {bundle: ${readFileSync(FIXTURE).toString('base64')}}\n---\n`;
        const wasm = policyOf('fixture', {
          wasm: { configMapRef: { name: 'bundles', key: 'bundle' }, entrypoint: 'test/allow' },
        });
        await writeFile(join(dir, 'p.yaml'), cm + wasm);
        const first = await start(dir, store.lastGoodPolicies);
        expect(ask(first.engine, 'anything').approved).toBe(false);
        await stop(first);
        expect((await store.lastGoodPolicies.list())[0]?.bundle).toEqual(new Uint8Array(readFileSync(FIXTURE)));

        await writeFile(join(dir, 'p.yaml'), wasm);
        const second = await start(dir, store.lastGoodPolicies);
        expect(second.engine.problems()).toEqual([
          {
            policy: 'fixture',
            message: expect.stringMatching(
              /^spec\.wasm\.configMapRef: ConfigMap default\/bundles not found; its last good version stays in force, restored/,
            ),
          },
        ]);
        expect(ask(second.engine, 'anything')).toMatchObject({
          approved: false,
          blockReason: 'fixture: not allowed by policy',
        });
      },
    );
  });
}

describe('an unreadable store', () => {
  it('rejects restored() with PolicyRestoreError and keeps evaluating the policies that compile', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'steward-last-good-'));
    try {
      await writeFile(join(dir, 'p.yaml'), policy('fine', {}, BLOCK_WORD('p.fine', 'x')));
      const failing: LastGoodStore = {
        list: () => Promise.reject(new Error('connection refused')),
        save: () => Promise.reject(new Error('connection refused')),
        delete: () => Promise.reject(new Error('connection refused')),
      };
      const source = new FolderSource({ dirs: [dir], watch: false });
      await source.ready();
      const engine = new RegoPolicyEngine({
        source,
        log: silent,
        limits: { deadlineMs: 1000, maxSteps: 1_000_000 },
        isolation: false,
        lastGood: failing,
      });
      await expect(engine.restored()).rejects.toMatchObject({
        name: 'PolicyRestoreError',
        code: 'POLICY_RESTORE_FAILED',
        cause: expect.objectContaining({ message: 'connection refused' }),
      });
      expect(await engine.restored().catch((e: unknown) => e)).toBeInstanceOf(PolicyRestoreError);
      expect(ask(engine, 'x').approved).toBe(false);
      engine.close();
      await source.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
