/**
 * `opa test` on Steward's engine: compiles the modules (policies and tests together, as one set), discovers the
 * tests (discover.ts) and evaluates each one alone. A test passes when its rule is `true`; undefined, `false` or
 * any other value is a FAIL; an evaluation error (a conflict, a strict builtin error, the timeout) is an ERROR.
 * `with input as …` and `with data.x as …` inside tests are the engine's own `with`.
 */
import { compile, type ModuleSource, type PreparedPolicy } from '../engine.js';
import { RegoError } from '../errors.js';
import { compileRegexp } from '../lib/goregex/index.js';
import { toJSONText } from '../value.js';
import { applyRenames, discoverTests, type TestCase } from './discover.js';
import type { TestResult } from './result.js';

export interface RunTestsOptions {
  /** Which tests run, by full name (`data.pkg.test_x`); skipped tests are filtered too. @default all */
  filter?: (fullName: string) => boolean;
  /** Wall-clock budget of one test; past it the test is an ERROR (`eval_cancel_error`). @default 5000 ms, as OPA */
  timeoutMs?: number;
  /** Expression budget of one test. @default none */
  maxSteps?: number;
  /** Accept OPA's experimental keywords (see `CompileOptions`). @default true */
  experimentalKeywords?: boolean;
  /** The clock of the durations (ms). @default performance.now */
  now?: () => number;
}

export const DEFAULT_TEST_TIMEOUT_MS = 5000;

/**
 * Runs every test of the modules. Throws the engine's `RegoCompileError` when the modules do not compile (each
 * diagnostic has file, row and column); never throws for a test's own failure or error.
 */
export function runTests(modules: readonly ModuleSource[], options: RunTestsOptions = {}): TestResult[] {
  const compileOptions = { experimentalKeywords: options.experimentalKeywords !== false };
  let prepared = compile(modules, compileOptions);
  const { tests, renames } = discoverTests(prepared.plan.modules);
  // NB: only a test defined twice needs a second compile; the first one reported the errors at their true columns.
  if (renames.length) prepared = compile(applyRenames(modules, renames), compileOptions);
  const chosen = options.filter ? tests.filter((t) => options.filter!(t.fullName)) : tests;
  return chosen.map((t) => (t.skip ? skipped(t) : runOne(prepared, t, options)));
}

/** A `--run` pattern as OPA reads it (Go's regexp syntax), unanchored; throws `RegexpSyntaxError` with Go's text. */
export function testFilter(pattern: string): (fullName: string) => boolean {
  const re = compileRegexp(pattern);
  return (name) => re.matchString(name);
}

function skipped(t: TestCase): TestResult {
  return { ...identity(t), outcome: 'skip', durationMs: 0 };
}

function identity(t: TestCase): Pick<TestResult, 'package' | 'name' | 'fullName' | 'location'> {
  return { package: t.package, name: t.name, fullName: t.fullName, location: t.location };
}

function runOne(prepared: PreparedPolicy, t: TestCase, options: RunTestsOptions): TestResult {
  const now = options.now ?? (() => performance.now());
  if (t.ref === undefined) {
    const message = `${t.fullName}: a package path with "." in a part cannot be run`;
    return { ...identity(t), outcome: 'error', durationMs: 0, error: { code: 'internal_error', message } };
  }
  const output: string[] = [];
  const t0 = now();
  let outcome: Pick<TestResult, 'outcome' | 'message' | 'error'>;
  try {
    const value = prepared.evalRef(t.ref, {
      deadlineMs: options.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS,
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      print: (message) => output.push(message),
    });
    outcome =
      value === true
        ? { outcome: 'pass' }
        : {
            outcome: 'fail',
            message: value === undefined ? `${t.name} is undefined` : `${t.name} is ${toJSONText(value)}, not true`,
          };
  } catch (err) {
    const error =
      err instanceof RegoError
        ? { code: err.code, message: err.message }
        : { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
    outcome = { outcome: 'error', error };
  }
  return { ...identity(t), ...outcome, durationMs: now() - t0, ...(output.length ? { output } : {}) };
}
