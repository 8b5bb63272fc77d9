/**
 * The compile-error corpus (v1/test/compilecases): each case lists the errors the compiler must
 * report (code, row, col, message); `exhaustive` means no other errors may be reported.
 */
import { compile } from '../engine.js';
import { RegoCompileError, type Diagnostic } from '../errors.js';
import type { Outcome } from './grade.js';

export interface WantError {
  code: string;
  row: number;
  col: number;
  message: string;
}

export interface CompileCase {
  note: string;
  modules: string[];
  want_errors: WantError[];
  exhaustive?: boolean;
  rego_version?: 'v0' | 'v1';
}

export function gradeCompileCase(c: CompileCase, folderVersion: 'v0' | 'v1'): Outcome {
  const version = c.rego_version ?? folderVersion;
  let errors: readonly Diagnostic[] = [];
  try {
    // NB: OPA compiles this corpus without experimental keywords, which the engine accepts by default.
    compile(
      c.modules.map((source, i) => ({ name: `test-${i}.rego`, source, regoVersion: version })),
      { experimentalKeywords: false },
    );
  } catch (e) {
    if (!(e instanceof RegoCompileError)) return { pass: false, detail: `crash: ${(e as Error).message}` };
    errors = e.errors;
  }
  const got = errors.map((e) => `${e.code} ${e.row}:${e.col} ${e.message}`);
  const missing = c.want_errors.filter(
    (w) => !errors.some((e) => e.code === w.code && e.row === w.row && e.col === w.col && e.message === w.message),
  );
  if (missing.length > 0) {
    return {
      pass: false,
      detail: `missing: ${missing.map((w) => `${w.code} ${w.row}:${w.col} ${w.message}`).join('; ')}\n got: ${got.join('; ')}`,
    };
  }
  if (c.exhaustive && errors.length !== c.want_errors.length)
    return { pass: false, detail: `extra errors: ${got.join('; ')}` };
  return { pass: true };
}
