/**
 * The libyaml emitter's output side: a writer that tracks the column, and scalars written in the
 * style libyaml picks (plain, single- or double-quoted, literal block), folded at 80 columns.
 */
import { analyze, isBreak, isPrintable, selectStyle } from './scalar.js';

/** libyaml's preferred line width and indentation. */
export const BEST_WIDTH = 80;
export const BEST_INDENT = 2;

// ---------------------------------------------------------------------------------------------
// The writer: tracks the column so long scalars fold as libyaml folds them.

export class Writer {
  out = '';
  column = 0;
  /** Whether the last thing written was whitespace (libyaml's emitter->whitespace). */
  whitespace = true;
  indention = true;

  put(s: string): void {
    for (const c of s) {
      this.out += c;
      this.column = c === '\n' ? 0 : this.column + 1;
    }
    this.whitespace = false;
    this.indention = false;
  }

  /** libyaml's write_indicator: a separating space if needed; `indention` says if we stay in it. */
  indicator(s: string, needSpace: boolean, indention: boolean): void {
    if (needSpace && !this.whitespace) this.put(' ');
    const keep = this.indention && indention;
    this.put(s);
    this.indention = keep;
  }

  newline(): void {
    this.out += '\n';
    this.column = 0;
  }

  /** libyaml's write_indent: a line break unless at the indentation already, then spaces. */
  indent(n: number): void {
    if (!this.indention || this.column > n || (this.column === n && !this.whitespace)) this.newline();
    while (this.column < n) {
      this.out += ' ';
      this.column++;
    }
    this.whitespace = true;
    this.indention = true;
  }
}

const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\x0b': 'v',
  '\f': 'f',
  '\r': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\u0085': 'N',
  '\u00a0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

function escapeChar(c: string): string {
  const named = ESCAPES[c];
  if (named !== undefined) return `\\${named}`;
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

export function writeScalar(w: Writer, s: string, indent: number, simpleKey: boolean): void {
  const a = analyze(s);
  const style = selectStyle(s, a, simpleKey);
  const breaks = !simpleKey;
  const cs = [...s];
  if (!w.whitespace) w.put(' ');
  switch (style) {
    case 'plain': {
      let spaces = false;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c === ' ') {
          if (breaks && !spaces && w.column > BEST_WIDTH && cs[i + 1] !== ' ') w.indent(indent);
          else w.put(c);
          spaces = true;
        } else {
          w.put(c);
          spaces = false;
        }
      }
      return;
    }
    case 'single': {
      w.put("'");
      let spaces = false;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c === ' ') {
          if (breaks && !spaces && w.column > BEST_WIDTH && i !== 0 && i !== cs.length - 1 && cs[i + 1] !== ' ') {
            w.indent(indent);
          } else w.put(c);
          spaces = true;
        } else {
          w.put(c === "'" ? "''" : c);
          spaces = false;
        }
      }
      w.put("'");
      return;
    }
    case 'double': {
      w.put('"');
      let spaces = false;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (!isPrintable(c) || c === '\ufeff' || isBreak(c) || c === '"' || c === '\\') {
          w.put(escapeChar(c));
          spaces = false;
        } else if (c === ' ') {
          if (breaks && !spaces && w.column > BEST_WIDTH && i !== 0 && i !== cs.length - 1) {
            w.indent(indent);
            if (cs[i + 1] === ' ') w.put('\\');
          } else w.put(c);
          spaces = true;
        } else {
          w.put(c);
          spaces = false;
        }
      }
      w.put('"');
      return;
    }
    default:
      writeLiteral(w, cs, indent);
  }
}

function writeLiteral(w: Writer, cs: string[], indent: number): void {
  let hints = '|';
  if (cs[0] === ' ' || isBreak(cs[0])) hints += String(BEST_INDENT);
  const lastIsBreak = isBreak(cs[cs.length - 1]);
  if (!lastIsBreak) hints += '-';
  else if (cs.length === 1 || isBreak(cs[cs.length - 2])) hints += '+';
  w.put(hints);
  w.newline();
  w.indention = true;
  w.whitespace = true;
  let pendingBreak = true;
  for (const c of cs) {
    if (isBreak(c)) {
      w.newline();
      w.indention = true;
      pendingBreak = true;
    } else {
      if (pendingBreak) w.indent(indent);
      w.put(c);
      pendingBreak = false;
    }
  }
}
