/**
 * Runs OPA's full conformance corpus and holds the engine to it: language folders must pass fully,
 * every other folder at least as many cases as the committed baseline (regressions fail CI).
 * The corpus lives outside the repository (REGO_CONFORMANCE_DIR, default ../shared/opa-cases beside it).
 * When REGO_CONFORMANCE_DIR is set, or REGO_CONFORMANCE_REQUIRED=1, the corpus is required and a
 * missing one fails the run; otherwise a missing default corpus skips this file under a name that
 * says so (the vendored subset in vendored.test.ts is graded either way).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requireCorpus } from './corpus.js';
import { runDirectory, type FolderSummary } from './runner.js';
import { sharedPath } from '../../testing/shared.js';

const DIR = process.env.REGO_CONFORMANCE_DIR ?? sharedPath('opa-cases');
const here = dirname(fileURLToPath(import.meta.url));
const baseline = JSON.parse(readFileSync(join(here, 'baseline.json'), 'utf8')) as Record<
  string,
  { passed: number; total: number }
>;

/** Folders that exercise the language itself (not builtin families): always 100%. */
const LANGUAGE = [
  'assignments',
  'comparisonexpr',
  'completedoc',
  'compositebasedereference',
  'compositereferences',
  'comprehensions',
  'defaultkeyword',
  'disjunction',
  'elsekeyword',
  'eqexpr',
  'every',
  'indirectreferences',
  'keywordrefs',
  'nestedreferences',
  'partialobjectdoc',
  'partialsetdoc',
  'refheads',
  'stringinterpolation',
  'undos',
  'varreferences',
  'virtualdocs',
  'withkeyword',
];

const required = process.env.REGO_CONFORMANCE_DIR !== undefined || process.env.REGO_CONFORMANCE_REQUIRED === '1';
const available = existsSync(DIR);

describe.runIf(required)('OPA conformance corpus (required)', () => {
  it(`is present at ${DIR}`, () => {
    expect(() => requireCorpus(DIR)).not.toThrow();
  });
});

describe.skipIf(!available)(
  available ? 'OPA conformance corpus' : `OPA conformance corpus (not found at ${DIR}: skipped)`,
  () => {
    const { folders } = available ? runDirectory(DIR) : { folders: [] as FolderSummary[] };
    const byName = new Map(folders.map((f) => [f.folder, f]));

    it.each(
      folders.filter(
        (f) =>
          LANGUAGE.includes(f.folder.split('/').pop()!) ||
          f.folder.startsWith('compilecases') ||
          f.folder.startsWith('extra'),
      ),
    )('passes every case of language folder $folder', (f) => {
      expect(f.passed).toBe(f.total);
    });

    it.each(Object.entries(baseline).map(([folder, b]) => ({ folder, min: b.passed })))(
      'keeps at least $min passing cases in $folder',
      ({ folder, min }) => {
        const f = byName.get(folder);
        expect(f, `folder ${folder} is missing from the corpus run`).toBeDefined();
        expect(f!.passed).toBeGreaterThanOrEqual(min);
      },
    );

    it('meets the v1 (≥ 97%, excluding logic_operators) and v0 (≥ 95%) targets', () => {
      const sum = (pred: (f: FolderSummary) => boolean) =>
        folders
          .filter(pred)
          .reduce((a, f) => ({ passed: a.passed + f.passed, total: a.total + f.total }), { passed: 0, total: 0 });
      const v1 = sum((f) => f.folder.startsWith('v1/') && !f.folder.endsWith('logic_operators'));
      const v0 = sum((f) => f.folder.startsWith('v0/'));
      expect(v1.passed / v1.total).toBeGreaterThanOrEqual(0.97);
      expect(v0.passed / v0.total).toBeGreaterThanOrEqual(0.95);
    });
  },
);
