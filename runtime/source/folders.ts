import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StartupError } from '../../platform/startup-error.js';

/**
 * The built-in policy pack, `config/policies` beside the package's package.json: found from this module's own
 * place, so that it does not depend on the working directory (a checkout runs runtime/source/, the image
 * dist/runtime/source/).
 */
export function builtinPackDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'config', 'policies')))
      return join(dir, 'config', 'policies');
    if (dirname(dir) === dir) return resolve('config', 'policies');
  }
}

const inside = (child: string, parent: string) => {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
};

/**
 * The folders a FolderSource reads: the user's folders first (their documents win a duplicate name, and the
 * first is where API writes go), then the pack unless disabled — once, even when a user's folder is the pack or
 * holds it.
 */
export function manifestFolders(userDirs: readonly string[], pack: { enabled: boolean; dir?: string }): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const d of userDirs) {
    const abs = resolve(d);
    if (!seen.has(abs)) out.push(abs);
    seen.add(abs);
  }
  if (pack.enabled) {
    const packDir = resolve(pack.dir ?? builtinPackDir());
    if (!out.some((d) => inside(packDir, d))) out.push(packDir);
  }
  return out;
}

/** Why each folder cannot be read at start (missing, unreadable); empty when all are fine. A manifest file is accepted too. */
export async function missingManifestFolders(dirs: readonly string[]): Promise<{ dir: string; problem: string }[]> {
  const problems: { dir: string; problem: string }[] = [];
  for (const dir of dirs) {
    await stat(dir).catch((err: NodeJS.ErrnoException) => {
      problems.push({
        dir,
        problem: err.code === 'ENOENT' ? 'does not exist' : err.code === 'EACCES' ? 'is not readable' : err.message,
      });
    });
  }
  return problems;
}

/**
 * Throws the StartupError naming STEWARD_MANIFESTS when a user's manifest folder is missing or not a folder: a typo
 * must not start a gateway without its manifests. Light (node:fs only), so the CLI runs it before heavy imports.
 */
export async function checkManifestFolders(dirs: readonly string[]): Promise<void> {
  const missing = await missingManifestFolders(dirs);
  if (!missing.length) return;
  const list = missing.map((m) => `${m.dir} ${m.problem}`).join(', ');
  throw new StartupError(
    'STEWARD_MANIFESTS',
    `STEWARD_MANIFESTS: manifest folder ${list}; fix STEWARD_MANIFESTS (comma-separated folders)`,
  );
}
