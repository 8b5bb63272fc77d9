/**
 * Policy testing on Steward's engine, as `opa test` does it (docs/policy-testing.md): discover `test_*` rules, run
 * each alone, report PASS / FAIL / ERROR / SKIPPED in OPA's pretty, JSON or JUnit form. Pure: the caller reads the
 * files (cmd/policy/).
 *
 *   const results = runTests([{ name: 'authz.rego', source }, { name: 'authz_test.rego', source: tests }]);
 *   process.stdout.write(formatPretty(results, { verbose: true }));
 */
export { runTests, testFilter, DEFAULT_TEST_TIMEOUT_MS, type RunTestsOptions } from './run.js';
export { discoverTests, packageRef, TEST_PREFIX, TODO_PREFIX, type Discovery, type TestCase } from './discover.js';
export { formatJson, formatPretty, resultLine, type PrettyOptions } from './report.js';
export { escapeXml, formatJunit } from './junit.js';
export {
  countResults,
  formatDuration,
  passed,
  type TestCounts,
  type TestLocation,
  type TestOutcome,
  type TestResult,
} from './result.js';
