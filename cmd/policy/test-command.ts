/**
 * `steward policy test [PATH…]`: `opa test` on Steward's engine (rego/testing), plus the fixture suites
 * (`*.policytest`) under the gateway's decision. Exit 0 when nothing failed or errored, 1 when something did, 2
 * when the files cannot be read, parsed or compiled (the message names `file:row:col`).
 */
import { readFile } from 'node:fs/promises';
import { RegoCompileError } from '../../rego/index.js';
import { RegexpSyntaxError } from '../../rego/lib/goregex/index.js';
import {
  formatJson,
  formatJunit,
  formatPretty,
  passed,
  runTests,
  testFilter,
  type TestResult,
} from '../../rego/testing/index.js';
import { DEFAULT_MAX_STEPS } from './engine.js';
import { PolicyCliError, renderCompileError, usageFailure, type CommandOutput } from './errors.js';
import { collectFiles } from './files.js';
import { readModules, type PolicyModules } from './modules.js';
import { runSuite } from './suite-run.js';
import { parseSuite } from './suite.js';
import { parseDuration } from './duration.js';

export type TestFormat = 'pretty' | 'json' | 'junit';

export interface PolicyTestOptions {
  /** Print every test, not only failures. @default false */
  verbose?: boolean;
  /** @default pretty */
  format?: TestFormat;
  /** Only tests (and cases) whose full name matches this Go regexp. */
  run?: string;
  /** One test's (or case's) wall-clock budget, e.g. `5s`, `500ms`. @default 5s */
  timeout?: string;
  /** Parse `.rego` files as Rego v0. @default false */
  v0Compatible?: boolean;
}

export async function policyTest(paths: readonly string[], options: PolicyTestOptions = {}): Promise<CommandOutput> {
  try {
    const filter = options.run === undefined ? undefined : regexFilter(options.run);
    const timeoutMs = parseDuration(options.timeout ?? '5s', '--timeout');
    const files = await collectFiles(paths.length ? paths : ['.']);
    const modules = await readModules(files.rego, files.manifests, { v0Compatible: options.v0Compatible === true });
    const results = modules.modules.length ? regoTests(modules, { filter, timeoutMs }) : [];
    for (const file of files.suites) {
      const suite = parseSuite(file, await readFile(file, 'utf8'));
      results.push(
        ...(await runSuite(suite, { filter, limits: { deadlineMs: timeoutMs, maxSteps: DEFAULT_MAX_STEPS } })),
      );
    }
    return report(results, options);
  } catch (err) {
    if (err instanceof PolicyCliError) return usageFailure(err.message);
    throw err;
  }
}

function regexFilter(pattern: string): (name: string) => boolean {
  try {
    return testFilter(pattern);
  } catch (err) {
    if (err instanceof RegexpSyntaxError) throw new PolicyCliError(`--run: ${err.message}`);
    throw err;
  }
}

/** The Rego tests, their places in the files the person wrote (a Policy's lines in its manifest). */
function regoTests(
  modules: PolicyModules,
  options: { filter: ((name: string) => boolean) | undefined; timeoutMs: number },
): TestResult[] {
  let results: TestResult[];
  try {
    results = runTests(modules.modules, {
      ...(options.filter ? { filter: options.filter } : {}),
      timeoutMs: options.timeoutMs,
    });
  } catch (err) {
    if (err instanceof RegoCompileError) throw new PolicyCliError(renderCompileError(err, modules.place, modules.text));
    throw err;
  }
  return results.map((r) => ({
    ...r,
    ...(r.location ? { location: modules.place(r.location) } : {}),
    ...(r.error ? { error: { ...r.error, message: modules.placeText(r.error.message) } } : {}),
  }));
}

function report(results: readonly TestResult[], options: PolicyTestOptions): CommandOutput {
  const exitCode = passed(results) ? 0 : 1;
  const format = options.format ?? 'pretty';
  if (format === 'json') return { stdout: formatJson(results), stderr: '', exitCode };
  if (format === 'junit') return { stdout: formatJunit(results), stderr: '', exitCode };
  const stderr = results.length ? '' : 'no tests found\n';
  return { stdout: formatPretty(results, { verbose: options.verbose === true }), stderr, exitCode };
}
