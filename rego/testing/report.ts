/**
 * The reporters of `opa test`, over any TestResult: the pretty one (failures only, or every test with `verbose`,
 * grouped under their file, then `PASS: n/m` and the other counts) and the JSON one (an array, OPA's fields, the
 * duration in nanoseconds).
 */
import { countResults, formatDuration, type TestOutcome, type TestResult } from './result.js';

const OUTCOME: Record<TestOutcome, string> = { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIPPED' };
const RULE = '-'.repeat(80);

export interface PrettyOptions {
  /** Every test, not only those that failed or errored. @default false */
  verbose?: boolean;
}

/** One line per test: `data.pkg.test_x: FAIL (1.2ms)`. */
export function resultLine(r: TestResult): string {
  const time = r.outcome === 'skip' ? '' : ` (${formatDuration(r.durationMs)})`;
  return `${r.fullName}: ${OUTCOME[r.outcome]}${time}`;
}

/** The report `opa test` prints, ending with a newline. */
export function formatPretty(results: readonly TestResult[], options: PrettyOptions = {}): string {
  const lines: string[] = [];
  let lastFile: string | undefined;
  for (const r of results) {
    const failed = r.outcome === 'fail' || r.outcome === 'error';
    if (!options.verbose && !failed) continue;
    if (r.location && r.location.file !== lastFile) {
      if (lines.length) lines.push('');
      lines.push(`${r.location.file}:`);
      lastFile = r.location.file;
    }
    lines.push(resultLine(r));
    lines.push(...details(r));
  }
  if (lines.length) lines.push(RULE);
  const c = countResults(results);
  if (c.pass) lines.push(`PASS: ${c.pass}/${c.total}`);
  if (c.fail) lines.push(`FAIL: ${c.fail}/${c.total}`);
  if (c.skip) lines.push(`SKIPPED: ${c.skip}/${c.total}`);
  if (c.error) lines.push(`ERROR: ${c.error}/${c.total}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Under a FAIL its rule's place and why; under an ERROR the error; then what print() wrote. */
function details(r: TestResult): string[] {
  const out: string[] = [];
  if (r.outcome === 'fail') {
    const at = r.location ? `${r.location.file}:${r.location.row}: ` : '';
    out.push(`  ${at}${r.message ?? 'not true'}`);
  }
  if (r.outcome === 'error' && r.error) out.push(...r.error.message.split('\n').map((l) => `  ${l}`));
  for (const line of r.output ?? []) out.push(...line.split('\n').map((l) => `    ${l}`));
  return out;
}

/** OPA's `--format json`: one object per test (`fail`, `skip`, `error` only when set; `duration` in ns). */
export function formatJson(results: readonly TestResult[]): string {
  const out = results.map((r) => ({
    ...(r.location ? { location: r.location } : {}),
    package: r.package,
    name: r.name,
    ...(r.outcome === 'fail' ? { fail: true } : {}),
    ...(r.outcome === 'skip' ? { skip: true } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.message ? { message: r.message } : {}),
    duration: Math.max(0, Math.round(r.durationMs * 1e6)),
    ...(r.output?.length ? { output: r.output.join('\n') } : {}),
  }));
  return `${JSON.stringify(out, null, 2)}\n`;
}
