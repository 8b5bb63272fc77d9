/**
 * Finding the full conformance corpus. A run that was asked for must not pass by grading nothing:
 * a missing folder, or one without any case file, is an error the caller reports.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export class CorpusMissingError extends Error {
  constructor(
    readonly dir: string,
    reason: string,
  ) {
    super(`OPA conformance corpus not usable at ${dir}: ${reason}`);
    this.name = 'CorpusMissingError';
  }
}

function hasCaseFile(dir: string): boolean {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name.endsWith('.jsonl') && statSync(p).isFile()) return true;
    if (statSync(p).isDirectory() && hasCaseFile(p)) return true;
  }
  return false;
}

/** Throws CorpusMissingError unless `dir` is a folder holding at least one `*.jsonl` case file. */
export function requireCorpus(dir: string): string {
  if (!existsSync(dir)) throw new CorpusMissingError(dir, 'no such folder');
  if (!statSync(dir).isDirectory()) throw new CorpusMissingError(dir, 'not a folder');
  if (!hasCaseFile(dir)) throw new CorpusMissingError(dir, 'no *.jsonl case files in it');
  return dir;
}
