import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** What every Steward process runs with (package.json `start`, the Dockerfile); `npm run bench` too. */
export const NODE_FLAGS = ['--max-semi-space-size=32'];

/** The V8/node flags this process runs with (the loader hook left out), for a benchmark's method line. */
export function processFlags(): string {
  const flags = process.execArgv.filter((a, i, all) => a !== '--import' && all[i - 1] !== '--import');
  return flags.length ? flags.join(' ') : 'no flags';
}

/** The machine line every benchmark section carries. */
export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

/**
 * Replaces the section `name` of docs/benchmarks.md (between `<!-- bench:name -->` markers), keeping the
 * other benchmarks' figures, so each `npm run bench -- <name>` updates only its own part.
 */
export function writeSection(file: string, name: string, markdown: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  let doc = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Benchmarks\n\nFigures written by `npm run bench` (`bench/`). Each section names the machine, the method and the date; rerun to refresh.\n';
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  doc = i >= 0 && j > i ? doc.slice(0, i) + block + doc.slice(j + end.length) : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, doc.endsWith('\n') ? doc : `${doc}\n`);
}

/** Percentile of a sorted sample (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
