/**
 * Runs a fixture suite: the suite's Policies under the gateway's engine (engine.ts), each case's input evaluated as
 * the pre-check evaluates it, and the decision, policies, reason and warnings compared with the case's `expect`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TestResult } from '../../rego/testing/index.js';
import type { PolicyEvaluation } from '../../runtime/policy/types.js';
import { manifestFolders } from '../../runtime/source/index.js';
import { openEngine, type EngineLimits, type OpenEngine } from './engine.js';
import { PolicyCliError } from './errors.js';
import { decisionWord, listOrNone, policyInputOf } from './input.js';
import type { Suite, SuiteCase, SuiteExpectation } from './suite.js';

export interface SuiteRunOptions {
  filter?: (fullName: string) => boolean;
  limits: EngineLimits;
  /** The clock of the durations (ms). @default performance.now */
  now?: () => number;
}

/** The results of the suite's cases that the filter selects; nothing is loaded when it selects none. */
export async function runSuite(suite: Suite, options: SuiteRunOptions): Promise<TestResult[]> {
  const chosen = suite.cases.filter((c) => !options.filter || options.filter(caseName(suite, c)));
  if (!chosen.length) return [];
  const inlineDir = suite.inline.length ? await writeInline(suite.inline) : undefined;
  let open: OpenEngine | undefined;
  try {
    const base = dirname(suite.file);
    const dirs = [...suite.paths.map((p) => resolve(base, p)), ...(inlineDir ? [inlineDir] : [])];
    open = await openEngine(manifestFolders(dirs, { enabled: suite.builtinPack }), options.limits);
    if (open.problems.length)
      throw new PolicyCliError(`${suite.file}: the suite's policies do not all load:\n  ${open.problems.join('\n  ')}`);
    const results: TestResult[] = [];
    for (const c of chosen) results.push(await runCase(open, suite, c, options.now ?? (() => performance.now())));
    return results;
  } finally {
    await open?.close();
    if (inlineDir) await rm(inlineDir, { recursive: true, force: true });
  }
}

/** `config/policies/tests/pack.policytest#an SSN is blocked`: what `--run` matches. */
export const caseName = (suite: Suite, c: SuiteCase) => `${suite.file}#${c.name}`;

/** Inline manifests as one multi-document file of a temporary folder (JSON is YAML), read like any other. */
async function writeInline(docs: readonly Record<string, unknown>[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'steward-policytest-'));
  await writeFile(join(dir, 'inline.yaml'), docs.map((d) => JSON.stringify(d)).join('\n---\n'));
  return dir;
}

async function runCase(open: OpenEngine, suite: Suite, c: SuiteCase, now: () => number): Promise<TestResult> {
  const identity = {
    package: suite.file,
    name: c.name,
    fullName: caseName(suite, c),
    location: { file: suite.file, row: c.line, col: 1 },
  };
  const { input, scope } = policyInputOf(c.input, c.scope ?? {}, `${suite.file}:${c.line}`);
  const t0 = now();
  let evaluation: PolicyEvaluation;
  try {
    evaluation = await open.engine.evaluate(input, scope);
  } catch (err) {
    // NB: evaluate fails closed for a policy's own failure; what throws is an input over the size limit.
    const error = { code: (err as Error).name, message: (err as Error).message };
    return { ...identity, outcome: 'error', durationMs: now() - t0, error };
  }
  const durationMs = now() - t0;
  const mismatches = judge(c.expect, evaluation);
  if (!mismatches.length) return { ...identity, outcome: 'pass', durationMs };
  return { ...identity, outcome: 'fail', durationMs, message: mismatches.join('; ') };
}

/** What the evaluation got wrong, one text per expectation not met. */
export function judge(
  expect: SuiteExpectation,
  e: Pick<PolicyEvaluation, 'approved' | 'triggered' | 'blockReason' | 'warnings'>,
): string[] {
  const out: string[] = [];
  const got = decisionWord(e);
  if (got !== expect.decision) {
    const why = e.approved ? `warnings: ${listOrNone(e.warnings)}` : `reason: ${e.blockReason ?? 'none'}`;
    out.push(`expected ${expect.decision}, got ${got} (policies: ${listOrNone(e.triggered)}; ${why})`);
  }
  if (expect.policies) {
    const want = [...new Set(expect.policies)].sort();
    const have = [...new Set(e.triggered)].sort();
    if (want.join('\n') !== have.join('\n')) out.push(`expected policies ${listOrNone(want)}, got ${listOrNone(have)}`);
  }
  if (expect.reason !== undefined && !(e.blockReason ?? '').includes(expect.reason))
    out.push(`expected a block reason containing "${expect.reason}", got ${JSON.stringify(e.blockReason ?? null)}`);
  for (const w of expect.warnings ?? []) {
    if (!e.warnings.some((x) => x.includes(w)))
      out.push(`expected a warning containing "${w}", got ${listOrNone(e.warnings)}`);
  }
  return out;
}
