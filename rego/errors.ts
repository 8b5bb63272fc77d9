/**
 * Typed errors of the Rego engine. Codes are OPA's, so callers (and the conformance runner) can
 * branch on `code`; `message` follows OPA's text so that users who know OPA recognise it.
 */
import { typeName, type Value } from './value.js';

/** A source position. Rows and columns are 1-based; offset is 0-based in UTF-16 units. */
export interface Location {
  readonly file: string;
  readonly row: number;
  readonly col: number;
  readonly offset: number;
}

export type RegoErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'rego_type_error'
  | 'eval_conflict_error'
  | 'eval_type_error'
  | 'eval_builtin_error'
  | 'eval_cancel_error'
  | 'eval_invalid_input'
  | 'eval_limit_error';

/** OPA's one-line form: `file:row: code: message` (or `row:col:` when the file has no name). */
export function opaErrorLine(code: string, message: string, loc?: Location): string {
  const m = `${code}: ${message}`;
  if (!loc) return m;
  return loc.file ? `${loc.file}:${loc.row}: ${m}` : `${loc.row}:${loc.col}: ${m}`;
}

/** `policy.rego:3:7: msg`, then the source line and a caret under the column. */
export function renderAt(message: string, loc: Location | undefined, source: string | undefined): string {
  if (!loc) return message;
  let out = `${loc.file || '<query>'}:${loc.row}:${loc.col}: ${message}`;
  if (source !== undefined) {
    const line = source.split('\n')[loc.row - 1];
    if (line !== undefined) {
      const text = line.replace(/\r$/, '');
      // Keep tabs so the caret lines up under tab-indented code.
      const pad = text.slice(0, Math.max(0, loc.col - 1)).replace(/[^\t]/g, ' ');
      out += `\n${text}\n${pad}^`;
    }
  }
  return out;
}

export abstract class RegoError extends Error {
  abstract readonly code: RegoErrorCode;
}

/** One diagnostic of a parse or compile failure. */
export interface Diagnostic {
  readonly code: RegoErrorCode;
  readonly message: string;
  readonly file: string;
  readonly row: number;
  readonly col: number;
  /** `policy.rego:3:7: msg\n<line>\n      ^` */
  readonly rendered: string;
  /** OPA's detail lines (a type error's `have: …` / `want: …`), printed after the message */
  readonly details?: readonly string[];
}

export function diagnostic(
  code: RegoErrorCode,
  message: string,
  loc: Location,
  source?: string,
  details?: readonly string[],
): Diagnostic {
  const d = { code, message, file: loc.file, row: loc.row, col: loc.col, rendered: renderAt(message, loc, source) };
  if (!details || details.length === 0) return d;
  return { ...d, details, rendered: d.rendered + details.map((x) => `\n\t${x}`).join('') };
}

function opaMulti(errors: readonly Diagnostic[]): string {
  const lines = errors.map(
    (e) =>
      opaErrorLine(e.code, e.message, { file: e.file, row: e.row, col: e.col, offset: 0 }) +
      (e.details ?? []).map((d) => `\n\t${d}`).join(''),
  );
  if (lines.length === 1) return `1 error occurred: ${lines[0]}`;
  return `${lines.length} errors occurred:\n${lines.join('\n')}`;
}

/** The source does not parse. Thrown by the lexer/parser with at least one positioned diagnostic. */
export class RegoParseError extends RegoError {
  readonly code = 'rego_parse_error' as const;
  constructor(readonly errors: readonly Diagnostic[]) {
    super(opaMulti(errors));
    this.name = 'RegoParseError';
  }
  get rendered(): string {
    return this.errors.map((e) => e.rendered).join('\n');
  }
}

/** Compilation failed (parse errors included): every diagnostic carries its own code. */
export class RegoCompileError extends RegoError {
  readonly code: RegoErrorCode;
  constructor(readonly errors: readonly Diagnostic[]) {
    super(opaMulti(errors));
    this.name = 'RegoCompileError';
    this.code = errors[0]?.code ?? 'rego_compile_error';
  }
  get rendered(): string {
    return this.errors.map((e) => e.rendered).join('\n');
  }
}

/** A runtime error of evaluation (conflicts, type errors, builtin errors in strict mode). */
export class RegoEvalError extends RegoError {
  constructor(
    readonly code: RegoErrorCode,
    readonly detail: string,
    readonly location?: Location,
    options?: { cause?: unknown },
  ) {
    super(opaErrorLine(code, detail, location), options);
    this.name = 'RegoEvalError';
  }
}

/** deadline (ms), step budget, or the size of one builtin's result (elements or characters, see builtins/limits.ts). */
export type LimitKind = 'deadline' | 'steps' | 'size';

function limitMessage(kind: LimitKind, limit: number, unit: string): string {
  if (kind === 'deadline') return `evaluation exceeded its deadline of ${limit} ms`;
  if (kind === 'steps') return `evaluation exceeded ${limit} steps`;
  return `builtin result exceeded the limit of ${limit} ${unit}`;
}

/** Evaluation stopped by its deadline, its step budget, or a builtin result past the size limits. */
export class RegoLimitError extends RegoError {
  readonly code = 'eval_cancel_error' as const;
  constructor(
    readonly kind: LimitKind,
    readonly limit: number,
    /** what `limit` counts when kind is 'size': 'elements' or 'characters' */
    readonly unit = kind === 'deadline' ? 'ms' : kind === 'steps' ? 'steps' : 'elements',
  ) {
    super(limitMessage(kind, limit, unit));
    this.name = 'RegoLimitError';
  }
}

/**
 * Thrown by a builtin implementation: becomes OPA's `eval_builtin_error` with message `<name>: <message>`
 * (the evaluator adds the name and location). Undefined result unless strict mode.
 */
export class BuiltinError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BuiltinError';
  }
}

/** Wrong operand type: becomes OPA's `eval_type_error` `<name>: operand <i> must be <expected> but got <type>`. */
export class OperandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperandError';
  }
}

/**
 * `operand 1 must be string but got number`; with several expected types
 * `operand 1 must be one of {array, set} but got number`. `i` is 1-based, as in OPA.
 */
export function operandError(i: number, expected: string | readonly string[], got: Value): OperandError {
  const exp = typeof expected === 'string' ? [expected] : expected;
  const want = exp.length === 1 ? exp[0]! : `one of {${exp.join(', ')}}`;
  return new OperandError(`operand ${i} must be ${want} but got ${typeName(got)}`);
}

/** A free-form operand error: `operand <i> <text>` (e.g. `must be integer number but got floating-point number`). */
export function operandErrorText(i: number, text: string): OperandError {
  return new OperandError(`operand ${i} ${text}`);
}

/** `operand 1 must be array of strings but got array containing number` (OPA's element error). */
export function operandElementError(
  i: number,
  composite: Value,
  got: Value,
  expected: string | readonly string[],
): OperandError {
  const tpe = typeName(composite);
  const exp = typeof expected === 'string' ? [expected] : expected;
  const want = exp.length === 1 ? `${tpe} of ${exp[0]}s` : `${tpe} of (any of) {${exp.join(', ')}}`;
  return new OperandError(`operand ${i} must be ${want} but got ${tpe} containing ${typeName(got)}`);
}
