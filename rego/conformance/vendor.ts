/**
 * `npm run rego:vendor-cases -- DIR`: refreshes the vendored subset of OPA's conformance corpus
 * (cases/) from a full copy at DIR. The files to take are the keys of cases/manifest.json; the
 * script copies them byte for byte, copies OPA's LICENSE beside them and rewrites the case counts
 * that vendored.test.ts holds the copy to.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countCases, readManifest, type Manifest } from './manifest.js';

const CASES = join(dirname(fileURLToPath(import.meta.url)), 'cases');

function main(argv: string[]): number {
  const dir = argv[0];
  if (!dir || !existsSync(join(dir, 'LICENSE'))) {
    process.stderr.write(
      `usage: rego:vendor-cases DIR (DIR must hold OPA's corpus with its LICENSE; got ${dir ?? 'nothing'})\n`,
    );
    return 2;
  }
  const manifestPath = join(CASES, 'manifest.json');
  const old = readManifest(manifestPath);
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { source?: string };
  const files: Record<string, number> = {};
  for (const rel of Object.keys(old.files)) {
    const from = join(dir, rel);
    if (!existsSync(from)) {
      process.stderr.write(`${rel} is not in ${dir}\n`);
      return 1;
    }
    mkdirSync(dirname(join(CASES, rel)), { recursive: true });
    copyFileSync(from, join(CASES, rel));
    files[rel] = countCases(readFileSync(from, 'utf8'));
  }
  copyFileSync(join(dir, 'LICENSE'), join(CASES, 'LICENSE'));
  const next: Manifest = { source: index.source ?? old.source, files };
  writeFileSync(manifestPath, `${JSON.stringify(next, null, 1)}\n`);
  const total = Object.values(files).reduce((a, n) => a + n, 0);
  process.stdout.write(`vendored ${total} cases in ${Object.keys(files).length} files\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
