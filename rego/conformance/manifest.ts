/**
 * The manifest of the vendored corpus subset (cases/manifest.json): where the cases come from and
 * how many cases each file holds, so a truncated or deleted file fails the vendored test.
 */
import { readFileSync } from 'node:fs';

export interface Manifest {
  /** OPA repository path and commit the files were taken from */
  source: string;
  /** file path relative to cases/ → number of cases in it */
  files: Record<string, number>;
}

export function readManifest(path: string): Manifest {
  const m = JSON.parse(readFileSync(path, 'utf8')) as Partial<Manifest>;
  if (typeof m.source !== 'string' || typeof m.files !== 'object' || m.files === null) {
    throw new Error(`${path} is not a conformance manifest (want {source, files})`);
  }
  return { source: m.source, files: m.files };
}

/** One case per non-blank line (JSON Lines). */
export function countCases(text: string): number {
  return text.split('\n').filter((l) => l.trim() !== '').length;
}
