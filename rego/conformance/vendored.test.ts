/**
 * Grades the engine on the vendored subset of OPA's conformance corpus (cases/). This test never
 * skips: the cases live in the repository, and every one of them must pass.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countCases, readManifest } from './manifest.js';
import { runDirectory } from './runner.js';

const CASES = join(dirname(fileURLToPath(import.meta.url)), 'cases');
const manifest = readManifest(join(CASES, 'manifest.json'));
const { cases, folders } = runDirectory(CASES);

describe('vendored OPA conformance cases', () => {
  it('holds every file the manifest lists, with its number of cases', () => {
    const got = Object.fromEntries(
      Object.keys(manifest.files).map((rel) => [rel, countCases(readFileSync(join(CASES, rel), 'utf8'))]),
    );
    expect(got).toEqual(manifest.files);
    expect(folders.map((f) => `${f.folder}.jsonl`).sort()).toEqual(Object.keys(manifest.files).sort());
  });

  it('grades a few hundred cases across the language and builtin families', () => {
    expect(cases.length).toBeGreaterThanOrEqual(500);
    expect(folders.filter((f) => f.folder.startsWith('v1/')).length).toBeGreaterThanOrEqual(30);
  });

  it.each(folders)('passes every case of $folder', (f) => {
    const failures = cases.filter((c) => c.folder === f.folder && !c.pass).map((c) => `${c.note}: ${c.detail ?? ''}`);
    expect(failures).toEqual([]);
    expect(f.passed).toBe(f.total);
  });
});
