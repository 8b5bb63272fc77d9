import type { RegoCompileError } from '../../rego/index.js';

/**
 * Something the person running `steward policy …` fixes: a path that does not exist, a suite or a Policy manifest
 * that does not parse, a compile error, a flag value. Exit code 2; the message is printed as it is.
 */
export class PolicyCliError extends Error {
  override name = 'PolicyCliError';
}

/** The output of a `steward policy` command: what to print where, and the exit code. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const usageFailure = (message: string): CommandOutput => ({
  stdout: '',
  stderr: message.endsWith('\n') ? message : `${message}\n`,
  exitCode: 2,
});

/** A place in a file the person can open: `file:row:col`, and the text of that file to quote its line. */
export interface SourcePlace {
  file: string;
  row: number;
  col: number;
}

/**
 * A compile error as `file:row:col: code: message`, the source line and a caret, then OPA's detail lines. `place`
 * maps an engine position (a module) to the file the person wrote (a `.rego` file, or the line of a Policy manifest
 * that holds it); `text` gives a file's text for the quoted line.
 */
export function renderCompileError(
  err: RegoCompileError,
  place: (p: SourcePlace) => SourcePlace,
  text: (file: string) => string | undefined,
): string {
  return err.errors
    .map((d) => {
      const at = place({ file: d.file, row: d.row, col: d.col });
      let out = `${at.file}:${at.row}:${at.col}: ${d.code}: ${d.message}`;
      const line = text(at.file)?.split('\n')[at.row - 1]?.replace(/\r$/, '');
      if (line !== undefined) out += `\n${line}\n${line.slice(0, Math.max(0, at.col - 1)).replace(/[^\t]/g, ' ')}^`;
      for (const detail of d.details ?? []) out += `\n\t${detail}`;
      return out;
    })
    .join('\n');
}
