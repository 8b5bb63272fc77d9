/**
 * Runs every *.jsonl case file under a directory and tallies results per folder. Folders under
 * v0/ are compiled as Rego v0, everything else as v1; compilecases/ use their own schema.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { RObject, parseJSON, toJS, type Value } from '../value.js';
import { gradeCompileCase, type CompileCase } from './compilecases.js';
import { gradeCase, type OpaCase, type Outcome } from './grade.js';

export interface CaseResult {
  folder: string;
  note: string;
  pass: boolean;
  detail?: string;
  ms: number;
}

export interface FolderSummary {
  folder: string;
  passed: number;
  total: number;
}

export interface RunOptions {
  /** only cases whose note contains this text */
  filter?: string;
  /** only folders whose name contains this text */
  folder?: string;
}

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...jsonlFiles(p));
    else if (name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

function caseOf(v: Value): Record<string, unknown> {
  if (!(v instanceof RObject)) throw new TypeError('case is not an object');
  const out: Record<string, unknown> = {};
  for (const [k, x] of v.entries()) {
    if (typeof k !== 'string' || k === '_file') continue;
    // data/input/want_result stay Rego values (big integers exact); the rest become plain JS
    out[k] = k === 'data' || k === 'input' ? x : k === 'want_result' && Array.isArray(x) ? x : toJS(x);
  }
  return out;
}

export function runDirectory(dir: string, opts: RunOptions = {}): { cases: CaseResult[]; folders: FolderSummary[] } {
  const cases: CaseResult[] = [];
  const folders = new Map<string, FolderSummary>();
  for (const file of jsonlFiles(dir)) {
    const rel = relative(dir, file)
      .replace(/\.jsonl$/, '')
      .split(sep)
      .join('/');
    if (opts.folder && !rel.includes(opts.folder)) continue;
    const segments = relative(dir, file).split(sep);
    const full = file.split(sep);
    const version: 'v0' | 'v1' = full.includes('v0') || segments.includes('v0') ? 'v0' : 'v1';
    const isCompile = full.includes('compilecases');
    const summary = folders.get(rel) ?? { folder: rel, passed: 0, total: 0 };
    folders.set(rel, summary);
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const line of lines) {
      if (line.trim() === '') continue;
      const c = caseOf(parseJSON(line));
      const note = String(c.note ?? '');
      if (opts.filter && !note.includes(opts.filter)) continue;
      const t0 = performance.now();
      let outcome: Outcome;
      try {
        outcome = isCompile
          ? gradeCompileCase(c as unknown as CompileCase, version)
          : gradeCase(c as unknown as OpaCase, version);
      } catch (e) {
        outcome = { pass: false, detail: `harness error: ${(e as Error).message}` };
      }
      const ms = performance.now() - t0;
      summary.total++;
      if (outcome.pass) summary.passed++;
      cases.push({ folder: rel, note, pass: outcome.pass, ms, ...(outcome.detail ? { detail: outcome.detail } : {}) });
    }
  }
  return { cases, folders: [...folders.values()] };
}
