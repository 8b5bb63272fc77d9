/**
 * `npm run rego:conformance -- [DIR] [--json] [--verbose] [--filter TEXT] [--folder NAME]`
 * Prints `folder passed/total` per folder and a final `N passed, M failed` line; `--json` prints
 * one machine-readable JSON document instead. DIR defaults to REGO_CONFORMANCE_DIR. A corpus that
 * is missing, or a selection that grades no case, fails the run (exit 2): it never passes empty.
 */
import { CorpusMissingError, requireCorpus } from './corpus.js';
import { runDirectory } from './runner.js';

function main(argv: string[]): number {
  const args = [...argv];
  const flag = (name: string): boolean => {
    const i = args.indexOf(name);
    if (i < 0) return false;
    args.splice(i, 1);
    return true;
  };
  const option = (name: string): string | undefined => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const json = flag('--json');
  const verbose = flag('--verbose');
  const filter = option('--filter');
  const folder = option('--folder');
  const dir = args[0] ?? process.env.REGO_CONFORMANCE_DIR;
  if (!dir) {
    process.stderr.write(
      'usage: rego:conformance DIR [--json] [--verbose] [--filter TEXT] [--folder NAME] (or set REGO_CONFORMANCE_DIR)\n',
    );
    return 2;
  }
  try {
    requireCorpus(dir);
  } catch (e) {
    if (!(e instanceof CorpusMissingError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  const { cases, folders } = runDirectory(dir, { ...(filter ? { filter } : {}), ...(folder ? { folder } : {}) });
  if (cases.length === 0) {
    process.stderr.write(`no conformance case in ${dir} matched the selection\n`);
    return 2;
  }
  const passed = cases.filter((c) => c.pass).length;
  const failed = cases.length - passed;
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ passed, failed, folders, failures: cases.filter((c) => !c.pass) }, null, 2)}\n`,
    );
    return failed === 0 ? 0 : 1;
  }
  for (const f of folders) process.stdout.write(`${f.folder} ${f.passed}/${f.total}\n`);
  if (verbose) {
    for (const c of cases.filter((x) => !x.pass))
      process.stdout.write(`FAIL ${c.folder} :: ${c.note}\n  ${(c.detail ?? '').split('\n').join('\n  ')}\n`);
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
