/**
 * The embedded database's first data folder, made once and copied. PGlite creates a database by running
 * PostgreSQL's initdb in WebAssembly, seconds of CPU on every new data folder (a fresh pod without a volume paid it
 * on every start). Its output depends only on PGlite's build, so Steward keeps one initdb result per PGlite version
 * in a cache folder — the template — and copies it into each new data folder, which takes milliseconds.
 *
 * The template is made at first use (or at image build, see the Dockerfile), never committed: nothing here can go
 * stale, because a new PGlite version is a new cache key. Migrations still run after the copy (store/index.ts).
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../../platform/log.js';

/** What a data folder holds after seeding: its own database, a copy of the template, or nothing for PGlite's initdb. */
export type Seeding = 'existing' | 'template' | 'initdb';

/** Where templates may live, most preferred first. */
export interface TemplateOptions {
  /** @default node_modules/.cache/steward beside PGlite, then `<os tmpdir>/steward-cache` */
  cacheDirs?: readonly string[];
  log?: Pick<Logger, 'info' | 'warn'>;
}

const require = createRequire(import.meta.url);

/** PGlite's package folder (…/node_modules/@electric-sql/pglite): its main entry is `dist/index.cjs`. */
function pglitePackageDir(): string {
  return dirname(dirname(require.resolve('@electric-sql/pglite')));
}

/** The installed PGlite version: the template's cache key. */
export function pgliteVersion(): string {
  return (JSON.parse(readFileSync(join(pglitePackageDir(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The default cache folders: inside node_modules (per checkout or image), then the OS temp folder (read-only installs). */
export function defaultCacheDirs(): string[] {
  return [join(pglitePackageDir(), '..', '..', '.cache', 'steward'), join(tmpdir(), 'steward-cache')];
}

function templateName(): string {
  return `pglite-${pgliteVersion()}-pgdata`;
}

function isDatabase(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

/** The cached template for this PGlite version, if one exists. */
export function findTemplate(options: TemplateOptions = {}): string | undefined {
  return (options.cacheDirs ?? defaultCacheDirs()).map((d) => join(d, templateName())).find(isDatabase);
}

/**
 * The template, made now if no cache folder has one: initdb into a private folder, then a rename publishes it, so a
 * reader never sees half a template and two processes racing both end up with a whole one. Undefined when no cache
 * folder is writable.
 */
export async function ensureTemplate(options: TemplateOptions = {}): Promise<string | undefined> {
  const found = findTemplate(options);
  if (found) return found;
  for (const cacheDir of options.cacheDirs ?? defaultCacheDirs()) {
    let work: string;
    try {
      mkdirSync(cacheDir, { recursive: true });
      work = mkdtempSync(join(cacheDir, '.initdb-'));
    } catch {
      continue; // read-only or missing: try the next folder
    }
    const started = performance.now();
    options.log?.info(
      { cacheDir },
      'creating the embedded database (once per PGlite version; new data folders copy it)',
    );
    try {
      const db = new PGlite({ dataDir: work });
      await db.waitReady;
      await db.close();
      const target = join(cacheDir, templateName());
      try {
        renameSync(work, target);
      } catch (err) {
        // Another process published first; its template is as good as ours.
        if (!isDatabase(target)) throw err;
        rmSync(work, { recursive: true, force: true });
      }
      options.log?.info({ durationMs: Math.round(performance.now() - started) }, 'embedded database created');
      return target;
    } catch (err) {
      rmSync(work, { recursive: true, force: true });
      throw err;
    }
  }
  return undefined;
}

/**
 * Gives `dataDir` a database unless it has one: a copy of the template (made first if need be). A folder that holds
 * files but no database is left to PGlite as before, and so is a machine with no writable cache folder.
 */
export async function seedDataDir(dataDir: string, options: TemplateOptions = {}): Promise<Seeding> {
  if (isDatabase(dataDir)) return 'existing';
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return 'initdb';
  const template = await ensureTemplate(options);
  if (!template) {
    mkdirSync(dataDir, { recursive: true });
    return 'initdb';
  }
  // NB: copy beside the target and rename, so a crash mid-copy leaves no data folder that looks like a database.
  mkdirSync(dirname(dataDir), { recursive: true });
  const work = mkdtempSync(`${dataDir}.copy-`);
  try {
    cpSync(template, work, { recursive: true });
    chmodSync(work, 0o700); // PostgreSQL's own mode for a data folder, whatever the template's
  } catch (err) {
    // An unreadable template (another user's cache, say) costs time, not the start: PGlite makes the database.
    rmSync(work, { recursive: true, force: true });
    options.log?.warn({ template, err }, 'cannot copy the embedded database template; creating the database instead');
    mkdirSync(dataDir, { recursive: true });
    return 'initdb';
  }
  rmSync(dataDir, { recursive: true, force: true }); // an empty folder, checked above
  renameSync(work, dataDir);
  return 'template';
}
