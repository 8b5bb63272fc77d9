/**
 * `steward policy test` and `steward policy eval` (docs/policy-testing.md). Each command returns what to print and
 * its exit code; `emit` writes them (the CLI), tests read them.
 */
export { policyTest, type PolicyTestOptions, type TestFormat } from './test-command.js';
export { policyEval, type EvalDecision, type PolicyEvalOptions } from './eval-command.js';
export { PolicyCliError, type CommandOutput } from './errors.js';
export { SUITE_SUFFIX } from './files.js';

import type { CommandOutput } from './errors.js';

/** Prints a command's output and sets the process's exit code (it ends once the output is written). */
export function emit(out: CommandOutput): void {
  if (out.stdout) process.stdout.write(out.stdout);
  if (out.stderr) process.stderr.write(out.stderr);
  process.exitCode = out.exitCode;
}
