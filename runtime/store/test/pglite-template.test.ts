import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../index.js';
import { ensureTemplate, findTemplate, pgliteVersion, seedDataDir } from '../pglite-template.js';

describe('the PGlite data-folder template', () => {
  let root: string;
  let cacheDirs: string[];
  let template: string | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'steward-template-test-'));
    // The first cache folder cannot be created (a file stands in its way): the template goes to the second one.
    writeFileSync(join(root, 'blocked'), '');
    cacheDirs = [join(root, 'blocked', 'cache'), join(root, 'cache')];
    // Two makers at once, as two processes starting on one machine: both must end with the one published template.
    const made = await Promise.all([ensureTemplate({ cacheDirs }), ensureTemplate({ cacheDirs })]);
    expect(made[0]).toBe(made[1]);
    template = made[0];
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('publishes one template per PGlite version in the first writable cache folder, with no work folder left', () => {
    expect(template).toBe(join(root, 'cache', `pglite-${pgliteVersion()}-pgdata`));
    expect(readdirSync(join(root, 'cache'))).toEqual([`pglite-${pgliteVersion()}-pgdata`]);
    expect(findTemplate({ cacheDirs })).toBe(template);
  });

  it('copies the template into a new data folder, which then opens and migrates like one made by initdb', async () => {
    const dataDir = join(root, 'data-new');
    expect(await seedDataDir(join(dataDir, 'pglite'), { cacheDirs })).toBe('template');
    const store = await openStore({ dataDir });
    try {
      const { rows } = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(rows[0]!.n).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    expect(readdirSync(dataDir)).toEqual(['pglite']);
  }, 60_000);

  it('seeds an empty data folder too', async () => {
    const dataDir = join(root, 'data-empty');
    mkdirSync(dataDir);
    expect(await seedDataDir(dataDir, { cacheDirs })).toBe('template');
    expect(readdirSync(dataDir)).toContain('PG_VERSION');
  });

  it('leaves a data folder that holds a database as it is', async () => {
    const dataDir = join(root, 'data-new', 'pglite');
    expect(await seedDataDir(dataDir, { cacheDirs })).toBe('existing');
  });

  it('leaves a folder holding other files to PGlite', async () => {
    const dataDir = join(root, 'data-other');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    expect(await seedDataDir(dataDir, { cacheDirs })).toBe('initdb');
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
  });

  it('leaves a new data folder to PGlite when no cache folder is writable', async () => {
    const dataDir = join(root, 'data-nocache');
    expect(await seedDataDir(dataDir, { cacheDirs: [join(root, 'blocked', 'x')] })).toBe('initdb');
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
