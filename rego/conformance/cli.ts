/**
 * `npm run rego:conformance -- DIR [--json] [--verbose] [--filter TEXT] [--folder NAME]`
 * Prints `folder passed/total` per folder and a final `N passed, M failed` line; `--json` prints
 * one machine-readable JSON document instead.
 */
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
  const dir = args[0];
  if (!dir) {
    process.stderr.write('usage: rego:conformance DIR [--json] [--verbose] [--filter TEXT] [--folder NAME]\n');
    return 2;
  }
  const { cases, folders } = runDirectory(dir, { ...(filter ? { filter } : {}), ...(folder ? { folder } : {}) });
  const passed = cases.filter((c) => c.pass).length;
  const failed = cases.length - passed;
  if (json) {
    process.stdout.write(`${JSON.stringify({ passed, failed, folders, failures: cases.filter((c) => !c.pass) }, null, 2)}\n`);
    return failed === 0 ? 0 : 1;
  }
  for (const f of folders) process.stdout.write(`${f.folder} ${f.passed}/${f.total}\n`);
  if (verbose) {
    for (const c of cases.filter((x) => !x.pass)) process.stdout.write(`FAIL ${c.folder} :: ${c.note}\n  ${(c.detail ?? '').split('\n').join('\n  ')}\n`);
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
