/**
 * `steward audit verify` and `steward audit export` (docs/audit-evidence.md). Each command returns what to print and
 * its exit code; `emit` writes them (the CLI), tests read them.
 */
export { auditVerify, type AuditVerifyOptions, type CommandOutput } from './verify-command.js';
export { auditExport, type AuditExportOptions } from './export-command.js';
export { AuditCliError } from './source.js';

import type { CommandOutput } from './verify-command.js';

/** Prints a command's output and sets the process's exit code (it ends once the output is written). */
export function emit(out: CommandOutput): void {
  if (out.stdout) process.stdout.write(out.stdout);
  if (out.stderr) process.stderr.write(out.stderr);
  process.exitCode = out.exitCode;
}
