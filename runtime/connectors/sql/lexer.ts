/**
 * A small SQL lexer per dialect, run before the parser. It knows exactly where strings, quoted
 * identifiers and comments start and end in the server's own rules, so it can (1) find every top-level
 * `;` (stacked queries), (2) find MySQL executable comments, and (3) rewrite `$n` placeholders to `?`
 * for mysql2. NB: it exists because parsers and servers disagree: node-sql-parser reads `'a\'` as an
 * escaped quote in PostgreSQL, where standard_conforming_strings makes the backslash literal and the
 * string end there; MySQL runs `/*! ... *\/` comments as code, the parser skips them.
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

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
const isIdentStart = (c: string) => /[A-Za-z_\u0080-\uffff]/.test(c);
const isIdentPart = (c: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(c);

export function lexSql(text: string, dialect: SqlDialect): LexResult {
  const out: LexResult = { separators: [], contentEnd: 0, unterminated: false, executableComment: false, placeholders: [], tokens: 0 };
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
  while (i < n) {
    const c = text[i]!;
    const next = text[i + 1];
    if (isSpace(c)) {
      i++;
      continue;
    }
    // line comments
    if (c === '-' && next === '-' && (dialect === 'postgresql' || i + 2 >= n || isSpace(text[i + 2]!) || text.charCodeAt(i + 2) < 32)) {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '#' && dialect === 'mysql') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    // block comments: nested in PostgreSQL, not in MySQL
    if (c === '/' && next === '*') {
      if (dialect === 'mysql' && (text[i + 2] === '!' || (text[i + 2] === 'M' && text[i + 3] === '!'))) out.executableComment = true;
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
      // MySQL: backslash escapes by default. PostgreSQL: only in E'' strings (handled below).
      closeQuoted("'", dialect === 'mysql');
    } else if (c === '"') {
      i++;
      closeQuoted('"', dialect === 'mysql');
    } else if (c === '`' && dialect === 'mysql') {
      i++;
      closeQuoted('`', false);
    } else if (dialect === 'postgresql' && (c === 'E' || c === 'e') && next === "'") {
      i += 2;
      closeQuoted("'", true);
    } else if (c === '$') {
      i = dollar(text, i, dialect, out);
    } else if (isIdentStart(c)) {
      while (i < n && isIdentPart(text[i]!)) i++;
    } else i++;
    out.contentEnd = i > tokenStart ? i : out.contentEnd;
  }
  return out;
}

/** `$n` placeholder, or (PostgreSQL) a `$tag$ ... $tag$` dollar-quoted string. Returns the next offset. */
function dollar(text: string, i: number, dialect: SqlDialect, out: LexResult): number {
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
  return close + tag[0].length;
}

/**
 * Rewrites `$1 … $n` to `?` for drivers with positional `?` only (mysql2), reordering values: `$2, $1,
 * $2` becomes `?, ?, ?` with values `[p2, p1, p2]`. Placeholders inside strings and comments are left.
 */
export function toQuestionMarks(text: string, params: readonly unknown[], lex: LexResult): { text: string; values: unknown[] } {
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
