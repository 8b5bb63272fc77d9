import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { AnyResource } from '../api/index.js';
import { compileError, policyModule } from '../runtime/policy/module.js';
import { wasmBundleError } from '../runtime/policy/wasm.js';
import { parseManifestFile } from '../runtime/source/index.js';

export interface ValidateOptions {
  /** Documents of other APIs (Secrets, ConfigMaps, ...) are errors instead of being skipped. @default false */
  strict?: boolean;
}

/** A document of another API, left alone as the standalone loader leaves it. */
export interface SkippedDocument {
  /** `file#documentIndex` */
  at: string;
  apiVersion: string;
  kind?: string;
}

export interface ValidateReport {
  files: number;
  /** Steward documents (and the reference product's AxonFlow agents) that were checked. */
  documents: number;
  skipped: SkippedDocument[];
  /** `file#documentIndex field: message`; a Rego error adds the source line and a caret under the column. */
  errors: string[];
  warnings: string[];
}

const MANIFEST_EXT = new Set(['.yaml', '.yml', '.json']);

/**
 * Checks files (or folders, walked recursively) as start-up would read them: the standalone loader's parser and
 * validator, duplicate names, and a compile of every Policy's Rego with the engine the gateway runs.
 */
export async function validateFiles(paths: readonly string[], options: ValidateOptions = {}): Promise<ValidateReport> {
  const report: ValidateReport = { files: 0, documents: 0, skipped: [], errors: [], warnings: [] };
  const seen = new Map<string, string>();
  for (const file of await expand(paths, report)) {
    const text = await readFile(file, 'utf8');
    const parsed = parseManifestFile(file, text);
    report.files += 1;
    report.documents += parsed.resources.length + new Set(parsed.issues.map((i) => i.documentIndex)).size;
    for (const i of parsed.issues) report.errors.push(`${file}#${i.documentIndex} ${i.field}: ${i.message}`);
    for (const f of parsed.foreign) {
      const at = `${file}#${f.documentIndex}`;
      report.skipped.push({ at, apiVersion: f.apiVersion, ...(f.kind === undefined ? {} : { kind: f.kind }) });
      if (options.strict)
        report.errors.push(`${at} apiVersion: ${describeForeign(f)} is not a Steward document (--strict)`);
    }
    for (const { resource, documentIndex, warnings } of parsed.resources) {
      const at = `${file}#${documentIndex}`;
      for (const w of warnings) report.warnings.push(`${at} ${w.field}: ${w.message}`);
      const { kind, metadata } = resource;
      const key = `${kind}/${metadata.namespace}/${metadata.name}`;
      const first = seen.get(key);
      if (first) {
        report.errors.push(
          `${at} metadata.name: duplicate ${kind} ${metadata.namespace}/${metadata.name}; first defined in ${first}`,
        );
        continue;
      }
      seen.set(key, at);
      if (resource.kind === 'Policy') checkPolicy(resource, at, report);
    }
  }
  return report;
}

/** Compiles the Rego as the gateway does at start (module `<name>.rego`), so positions read the same in both. */
function checkPolicy(policy: Extract<AnyResource, { kind: 'Policy' }>, at: string, report: ValidateReport): void {
  const module = policyModule(policy);
  if (module === undefined) {
    const error = wasmBundleError(policy);
    if (error !== undefined) report.errors.push(`${at} ${error}`);
    return;
  }
  const error = compileError(module);
  if (error !== undefined) report.errors.push(`${at} spec.rego: ${error}`);
}

function describeForeign(f: { apiVersion: string; kind?: string }): string {
  return f.kind === undefined ? f.apiVersion : `${f.apiVersion} ${f.kind}`;
}

/** The closing line: what was checked, what was found, and what was left alone. */
export function summary(report: ValidateReport, options: ValidateOptions = {}): string {
  let line = `${report.documents} document(s) in ${report.files} file(s): ${report.errors.length} error(s), ${report.warnings.length} warning(s)`;
  if (report.skipped.length && !options.strict) {
    const counts = new Map<string, number>();
    for (const s of report.skipped) counts.set(describeForeign(s), (counts.get(describeForeign(s)) ?? 0) + 1);
    const kinds = [...counts].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(', ');
    line += `; skipped ${report.skipped.length} document(s) of other kinds (${kinds}; --strict makes them errors)`;
  }
  return line;
}

/** Files named, and the .yaml/.yml/.json files of folders named, recursively; dot entries skipped as the loader skips them. */
async function expand(paths: readonly string[], report: ValidateReport): Promise<string[]> {
  const out = new Set<string>();
  const walk = async (p: string, named: boolean): Promise<void> => {
    const info = await stat(p).catch(() => undefined);
    if (!info) {
      report.errors.push(`${p}: no such file or folder`);
      return;
    }
    if (!info.isDirectory()) {
      if (named || MANIFEST_EXT.has(extname(p))) out.add(p);
      return;
    }
    const entries = (await readdir(p)).filter((n) => !n.startsWith('.')).sort();
    for (const name of entries) await walk(join(p, name), false);
  };
  for (const p of paths) await walk(p, true);
  // NB: `validate config config/examples` names some files twice; they are one file, not duplicates.
  const unique = new Map<string, string>();
  for (const f of out) if (!unique.has(resolve(f))) unique.set(resolve(f), f);
  return [...unique.values()];
}
