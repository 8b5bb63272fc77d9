/**
 * Writes the generated artefacts (CRDs, chart CRDs, OpenAPI documents) from api/, and the console's assets from
 * console/. `--check` writes nothing and exits 1 when a file on disk differs from what would be written.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from '../api/gen/index.js';
import { consoleAssets } from './console-build.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const check = process.argv.includes('--check');
const stale: string[] = [];

for (const [rel, content] of [...generatedFiles(pkg.version), ...(await consoleAssets())]) {
  const file = join(root, rel);
  const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (current === content) continue;
  if (check) {
    stale.push(rel);
    continue;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  console.log(`wrote ${rel}`);
}
if (check && stale.length) {
  console.error(`stale generated files (run npm run gen): ${stale.join(', ')}`);
  process.exit(1);
}
