/**
 * A small SQL lexer per dialect, run before the parser. It knows exactly where strings, quoted
 * identifiers and comments start and end in the server's own rules, so it can (1) find every top-level
 * `;` (stacked queries), (2) find MySQL executable comments, (3) rewrite `$n` placeholders to `?`
 * for mysql2, and (4) give the parser a view of the text in which it cannot disagree with the server.
 * NB: it exists because parsers and servers disagree: node-sql-parser reads `'a\'` as an escaped quote
 * in PostgreSQL, where standard_conforming_strings makes the backslash literal and the string end there;
 * it reads MySQL `--(` as a comment, where MySQL needs a space or a control character after `--`; MySQL
 * runs `/*! ... *\/` comments as code, the parser skips them; PostgreSQL continues a string on the next
 * line (`E'a'⏎'b'` is one literal, read with the first segment's escapes).
 *
 * The rules are the server's with the session settings the connectors pin on every connection
 * (kinds/postgres.ts, kinds/mysql.ts): PostgreSQL standard_conforming_strings=on; MySQL without
 * NO_BACKSLASH_ESCAPES and ANSI_QUOTES (backslash escapes in strings, `"` quotes strings).
 */
export type SqlDialect = 'postgresql' | 'mysql';

export interface Placeholder {
  start: number;
  end: number;
  /** 1-based `$n`. */
  index: number;
}

export interface LexResult {
  /** Offsets of `;` outside strings and comments. */
  separators: number[];
  /** Offset where the last meaningful token ends (trailing comments, `;` and space excluded). */
  contentEnd: number;
  /** A string, identifier or comment was not closed. */
  unterminated: boolean;
  /** `/*!`, `/*M!` (MySQL and MariaDB run their content). */
  executableComment: boolean;
  placeholders: Placeholder[];
  /** Tokens outside comments (strings count one each): the parser's cost grows with it. */
  tokens: number;
}

/** A change from the text to its view: spaces, `0`s, or ASCII letters lower-cased. */
type Edit = readonly [start: number, end: number, how: 'blank' | 'fill' | 'fold'];

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
/**
 * MySQL and MariaDB start a `--` comment only when the next byte is a space or a control character
 * (`my_isspace || my_iscntrl` in sql_lex.cc), or at the end. NB: control means DEL (0x7f) too: checked
 * against MariaDB byte by byte (test/mysql.test.ts), 0x01–0x20 and 0x7f start one (0x00 too, and ends it
 * at once); bytes over 0x7f do not (they are letters in utf8mb4's table).
 */
const mysqlDashComment = (text: string, i: number): boolean => {
  const code = text.charCodeAt(i + 2);
  return Number.isNaN(code) || code <= 0x20 || code === 0x7f;
};
const isIdentStart = (c: string) => /[A-Za-z_\u0080-\uffff]/.test(c);
const isIdentPart = (c: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);

export function lexSql(text: string, dialect: SqlDialect): LexResult;
/**
 * With `view`, also the text the guard parses: as long as the original (offsets and line numbers hold), with
 * every comment blanked, every string's content replaced by `0`s (quotes and `$tag$`s kept), MySQL's `--`
 * that is not a comment made one `-`, and in PostgreSQL every unquoted word lower-cased as the server folds
 * it. The parser then sees the statement's structure as the lexer (so the server) does, and a quoted
 * PostgreSQL name keeps its case while an unquoted one folds.
 */
export function lexSql(text: string, dialect: SqlDialect, options: { view: true }): LexResult & { view: string };
export function lexSql(text: string, dialect: SqlDialect, options?: { view: boolean }): LexResult & { view?: string } {
  const out: LexResult = {
    separators: [],
    contentEnd: 0,
    unterminated: false,
    executableComment: false,
    placeholders: [],
    tokens: 0,
  };
  // NB: edits are only gathered for the guard; the mysql kind lexes every statement again for `?`
  const edits: Edit[] | undefined = options?.view ? [] : undefined;
  const n = text.length;
  let i = 0;
  const closeQuoted = (quote: string, backslash: boolean): void => {
    // i points just after the opening quote
    while (i < n) {
      const c = text[i]!;
      if (backslash && c === '\\') {
        i += 2;
        continue;
      }
      if (c === quote) {
        if (text[i + 1] === quote) {
          i += 2;
          continue;
        }
        i++;
        return;
      }
      i++;
    }
    out.unterminated = true;
  };
  /**
   * PostgreSQL: a string followed by whitespace with a newline and another quote goes on in that quote, with the
   * first segment's rules (scan.l's `quotecontinue` returns to the state before the stop). NB: so after `E'x'⏎`
   * the segment `'\''` has an escaped quote; read as a new standard string it would end one quote early and
   * shift every later string. The view fills the segments and what lies between as one string, as the server reads it.
   */
  const continueString = (backslash: boolean): void => {
    for (let q = continuation(text, i); q >= 0; q = continuation(text, i)) {
      i = q + 1;
      closeQuoted("'", backslash);
    }
  };
  while (i < n) {
    const c = text[i]!;
    const next = text[i + 1];
    if (isSpace(c)) {
      i++;
      continue;
    }
    // line comments
    const dashes = c === '-' && next === '-' && (dialect === 'postgresql' || mysqlDashComment(text, i));
    if (dashes || (c === '#' && dialect === 'mysql')) {
      const start = i;
      i = lineCommentEnd(text, i, dialect);
      edits?.push([start, i, 'blank']);
      continue;
    }
    // block comments: nested in PostgreSQL, not in MySQL
    if (c === '/' && next === '*') {
      if (dialect === 'mysql' && (text[i + 2] === '!' || (text[i + 2] === 'M' && text[i + 3] === '!')))
        out.executableComment = true;
      const start = i;
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (text[i] === '*' && text[i + 1] === '/') {
          depth--;
          i += 2;
        } else if (dialect === 'postgresql' && text[i] === '/' && text[i + 1] === '*') {
          depth++;
          i += 2;
        } else i++;
      }
      if (depth > 0) out.unterminated = true;
      edits?.push([start, i, 'blank']);
      continue;
    }
    const tokenStart = i;
    out.tokens++;
    if (c === ';') {
      out.separators.push(i);
      i++;
      continue;
    }
    if (c === "'") {
      i++;
      // MySQL: backslash escapes (NO_BACKSLASH_ESCAPES is pinned off). PostgreSQL: only in E'' strings (below).
      closeQuoted("'", dialect === 'mysql');
      if (dialect === 'postgresql') continueString(false);
      edits?.push([tokenStart + 1, i - 1, 'fill']);
    } else if (c === '"') {
      i++;
      // MySQL: a string (ANSI_QUOTES is pinned off). PostgreSQL: an identifier, kept for the parser.
      closeQuoted('"', dialect === 'mysql');
      if (dialect === 'mysql') edits?.push([tokenStart + 1, i - 1, 'fill']);
    } else if (c === '`' && dialect === 'mysql') {
      i++;
      closeQuoted('`', false);
    } else if (dialect === 'postgresql' && (c === 'E' || c === 'e') && next === "'") {
      i += 2;
      closeQuoted("'", true);
      continueString(true);
      edits?.push([tokenStart + 2, i - 1, 'fill']);
    } else if (c === '$') {
      i = dollar(text, i, dialect, out, edits);
    } else if (isIdentStart(c)) {
      while (i < n && isIdentPart(text[i]!)) i++;
      if (dialect === 'postgresql') edits?.push([tokenStart, i, 'fold']);
    } else if (c === '-' && next === '-') {
      // MySQL `--(`: two minus signs for the server, a comment for the parser; one is enough to read its operands
      edits?.push([i, i + 1, 'blank']);
      i++;
    } else i++;
    out.contentEnd = i > tokenStart ? i : out.contentEnd;
  }
  return edits ? { ...out, view: applyEdits(text, edits) } : out;
}

/** Where a line comment starting at `i` ends: at the newline; in MySQL also at a NUL (sql_lex.cc stops there too). */
function lineCommentEnd(text: string, i: number, dialect: SqlDialect): number {
  while (i < text.length && text[i] !== '\n' && !(dialect === 'mysql' && text[i] === '\0')) i++;
  return i;
}

/**
 * After a string's closing quote at `i - 1`: the offset of the quote that continues it, or -1. PostgreSQL's rule
 * (scan.l `quotecontinue`): horizontal space and `--` comments, at least one newline (`\n` or `\r`), then any
 * space and `--` comments, then the quote. A block comment ends the string. NB: a scan, not a regular
 * expression: `(space | --comment)*` backtracks exponentially on text that then fails to match.
 * `\v` counts as space as from PostgreSQL 16; earlier servers refuse the `\v` outside a string anyway.
 */
function continuation(text: string, i: number): number {
  let newline = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n' || c === '\r') newline = true;
    else if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    } else if (!isSpace(c)) break;
    i++;
  }
  return newline && text[i] === "'" ? i : -1;
}

/** NB: an unterminated token's edit may end past the text; the guard refuses such input before parsing. */
function applyEdits(text: string, edits: readonly Edit[]): string {
  let view = '';
  let last = 0;
  for (const [start, end, how] of edits) {
    const span = text.slice(start, Math.max(start, end));
    view += text.slice(last, start);
    // newlines are kept so that the parser's line numbers stay right
    if (how === 'fold') view += span.replace(/[A-Z]+/g, (w) => w.toLowerCase());
    else view += span.replace(/[^\n]/g, how === 'blank' ? ' ' : '0');
    last = Math.max(start, end);
  }
  return view + text.slice(last);
}

/** `$n` placeholder, or (PostgreSQL) a `$tag$ ... $tag$` dollar-quoted string. Returns the next offset. */
function dollar(text: string, i: number, dialect: SqlDialect, out: LexResult, edits: Edit[] | undefined): number {
  const digits = /^\$([0-9]+)/.exec(text.slice(i, i + 12));
  if (digits) {
    out.placeholders.push({ start: i, end: i + digits[0].length, index: Number(digits[1]) });
    return i + digits[0].length;
  }
  if (dialect !== 'postgresql') return i + 1;
  const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(text.slice(i, i + 70));
  if (!tag) return i + 1;
  const close = text.indexOf(tag[0], i + tag[0].length);
  if (close < 0) {
    out.unterminated = true;
    return text.length;
  }
  edits?.push([i + tag[0].length, close, 'fill']);
  return close + tag[0].length;
}

/**
 * Rewrites `$1 … $n` to `?` for drivers with positional `?` only (mysql2), reordering values: `$2, $1,
 * $2` becomes `?, ?, ?` with values `[p2, p1, p2]`. Placeholders inside strings and comments are left.
 */
export function toQuestionMarks(
  text: string,
  params: readonly unknown[],
  lex: LexResult,
): { text: string; values: unknown[] } {
  if (lex.placeholders.length === 0) return { text, values: [...params] };
  let sql = '';
  let last = 0;
  const values: unknown[] = [];
  for (const p of lex.placeholders) {
    sql += text.slice(last, p.start) + '?';
    last = p.end;
    values.push(params[p.index - 1]);
  }
  return { text: sql + text.slice(last), values };
}
