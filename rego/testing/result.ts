/**
 * What a test run reports, whatever ran the test: a Rego `test_*` rule (run.ts) or a case of a policy fixture
 * suite (the CLI's `*.policytest` files). The reporters (report.ts, junit.ts) read only this.
 */

/** OPA's four outcomes: PASS, FAIL (undefined or not true), ERROR (evaluation failed), SKIPPED (`todo_test_*`). */
export type TestOutcome = 'pass' | 'fail' | 'error' | 'skip';

/** 1-based row and column in `file`. */
export interface TestLocation {
  file: string;
  row: number;
  col: number;
}

export interface TestResult {
  /** `data.authz_test` for a Rego test; the suite file for a fixture case. */
  package: string;
  /** `test_post_allowed`, `test_post_allowed#01` for its second definition, or a fixture case's name. */
  name: string;
  /** What `--run` matches and the output names: `data.authz_test.test_post_allowed`. */
  fullName: string;
  location?: TestLocation;
  outcome: TestOutcome;
  durationMs: number;
  /** Why a test failed: the rule was undefined, false or not `true`; an expectation of a case was not met. */
  message?: string;
  /** The error of an ERROR outcome: OPA's code (`eval_conflict_error`, `eval_cancel_error`, …) and text. */
  error?: { code: string; message: string };
  /** What `print()` wrote during the test, one entry per call. */
  output?: string[];
}

export interface TestCounts {
  total: number;
  pass: number;
  fail: number;
  error: number;
  skip: number;
}

export function countResults(results: readonly TestResult[]): TestCounts {
  const counts: TestCounts = { total: results.length, pass: 0, fail: 0, error: 0, skip: 0 };
  for (const r of results) counts[r.outcome] += 1;
  return counts;
}

/** Whether a run succeeded: nothing failed or errored (skipped tests do not fail a run). */
export function passed(results: readonly TestResult[]): boolean {
  return results.every((r) => r.outcome === 'pass' || r.outcome === 'skip');
}

/**
 * A duration as Go's `time.Duration` prints it, which is what `opa test` shows: `607ns`, `1.417µs`, `9.109334ms`,
 * `1.2s` (nanosecond precision, trailing zeros dropped).
 */
export function formatDuration(ms: number): string {
  const ns = Math.max(0, Math.round(ms * 1e6));
  if (ns < 1e3) return `${ns}ns`;
  if (ns < 1e6) return `${trimmed(ns / 1e3, 3)}µs`;
  if (ns < 1e9) return `${trimmed(ns / 1e6, 6)}ms`;
  return `${trimmed(ns / 1e9, 9)}s`;
}

function trimmed(x: number, digits: number): string {
  return x.toFixed(digits).replace(/\.?0+$/, '');
}
