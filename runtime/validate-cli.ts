import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseManifestFile } from './source/index.js';

export interface ValidateReport {
  documents: number;
  errors: string[];
  warnings: string[];
}

/** Validates files (or folders of .yaml/.yml/.json) as the standalone loader and kubectl users would. */
export async function validateFiles(paths: readonly string[]): Promise<ValidateReport> {
  const report: ValidateReport = { documents: 0, errors: [], warnings: [] };
  for (const file of await expand(paths, report)) {
    const text = await readFile(file, 'utf8');
    const parsed = parseManifestFile(file, text);
    report.documents += parsed.resources.length + new Set(parsed.issues.map((i) => i.documentIndex)).size;
    for (const r of parsed.resources) for (const w of r.warnings) report.warnings.push(`${w.file}#${w.documentIndex} ${w.field}: ${w.message}`);
    for (const i of parsed.issues) report.errors.push(`${i.file}#${i.documentIndex} ${i.field}: ${i.message}`);
  }
  return report;
}

async function expand(paths: readonly string[], report: ValidateReport): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    const info = await stat(p).catch(() => undefined);
    if (!info) report.errors.push(`${p}: no such file or folder`);
    else if (info.isDirectory()) {
      const names = (await readdir(p)).filter((n) => ['.yaml', '.yml', '.json'].includes(extname(n))).sort();
      out.push(...(await expand(names.map((n) => join(p, n)), report)));
    } else out.push(p);
  }
  return out;
}
