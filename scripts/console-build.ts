/**
 * Builds the governance console (console/) into the two assets the gateway serves (runtime/console/plugin.ts):
 * one minified ES module and one stylesheet. scripts/gen.ts writes and checks them like the other generated files,
 * so the build must be deterministic: relative paths only, no timestamps, no source maps.
 *
 * Preact and uPlot carry no legal comments in their dist files, so their licences are appended from the packages
 * themselves, for every package the metafile says went into an asset.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const CONSOLE_ENTRY = 'console/src/main.tsx';
const OUT_DIR = 'runtime/console/assets';

/** The packages whose files went into one output, from esbuild's metafile (`node_modules/<name>/...`). */
function packagesOf(output: Metafile['outputs'][string]): string[] {
  const names = new Set<string>();
  for (const input of Object.keys(output.inputs)) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}

/** The licence notices of the packages, as one comment a minifier keeps (`/*!`). */
function licenceComment(packages: string[]): string {
  if (packages.length === 0) return '';
  const notices = packages.map((name) => {
    const dir = join(root, 'node_modules', name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; license?: string };
    const text = readFileSync(join(dir, 'LICENSE'), 'utf8').trim().replaceAll('*/', '* /');
    return `${name} ${pkg.version} (${pkg.license ?? 'see licence'})\n\n${text}`;
  });
  return `\n/*! Bundled third-party software:\n\n${notices.join('\n\n---\n\n')}\n*/\n`;
}

/** `[path, content]` of `runtime/console/assets/console.js` and `console.css`. */
export async function consoleAssets(): Promise<[string, string][]> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { console: CONSOLE_ENTRY },
    tsconfig: 'console/tsconfig.json',
    outdir: OUT_DIR,
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    legalComments: 'eof',
    metafile: true,
    logLevel: 'silent',
  });
  const files: [string, string][] = [];
  for (const name of ['console.js', 'console.css']) {
    const rel = `${OUT_DIR}/${name}`;
    const file = result.outputFiles.find((f) => f.path === join(root, rel));
    const output = result.metafile.outputs[rel];
    if (!file || !output) throw new Error(`the console build made no ${rel}`);
    files.push([rel, file.text.trimEnd() + '\n' + licenceComment(packagesOf(output)).trimStart()]);
  }
  return files;
}
