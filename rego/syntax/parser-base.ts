/**
 * Parser state shared by the term and statement parsers: the current token, OPA-style save/restore
 * for backtracking (errors recorded during a failed attempt are dropped with it) and error helpers.
 */
import { diagnostic, type Diagnostic, type Location } from '../errors.js';
import type { Comment } from './ast.js';
import { Scanner, type ScannerState } from './lexer.js';
import { FUTURE_KEYWORDS, type Tok } from './tokens.js';

/** Max nesting of terms/bodies; deeper input is rejected instead of overflowing the JS stack. */
export const MAX_DEPTH = 1000;

export interface ParserState {
  sc: ScannerState;
  tok: Tok;
  lit: string;
  row: number;
  col: number;
  offset: number;
  tokEnd: number;
  lastEnd: number;
  skippedNL: boolean;
  wildcard: number;
  errors: readonly Diagnostic[];
  comments: readonly Comment[];
  hints: readonly string[];
}

export class ParserBase {
  protected readonly sc: Scanner;
  protected s: ParserState;
  protected depth = 0;
  /** parsed-term cache keyed by offset: avoids exponential re-parsing on backtracking */
  protected readonly termCache = new Map<number, { term: unknown; post: ParserState }>();

  constructor(
    readonly file: string,
    readonly src: string,
    keywords: Iterable<string>,
  ) {
    this.sc = new Scanner(src, keywords);
    this.s = {
      sc: this.sc.save(),
      tok: 'EOF',
      lit: '',
      row: 1,
      col: 1,
      offset: 0,
      tokEnd: 0,
      lastEnd: 0,
      skippedNL: false,
      wildcard: 0,
      errors: [],
      comments: [],
      hints: [],
    };
  }

  protected get comments(): readonly Comment[] {
    return this.s.comments;
  }

  get errors(): readonly Diagnostic[] {
    return this.s.errors;
  }

  /** The current token (a method so that TS does not narrow it across scans). */
  protected t(): Tok {
    return this.s.tok;
  }

  protected save(): ParserState {
    return { ...this.s, sc: this.sc.save() };
  }

  protected restore(st: ParserState): void {
    this.s = { ...st };
    this.sc.restore(st.sc);
  }

  protected loc(): Location {
    return { file: this.file, row: this.s.row, col: this.s.col, offset: this.s.offset };
  }

  protected text(from: number, to: number): string {
    return this.src.slice(from, to);
  }

  /** Advances to the next token, skipping whitespace (and always comments). */
  protected scan(): void {
    this.doScan(true);
  }

  /** Advances to the next token without skipping whitespace. */
  protected scanWS(): void {
    this.doScan(false);
  }

  protected doScan(skipws: boolean, template?: 'raw' | 'quoted'): void {
    if (this.t() !== 'WS') {
      this.s.lastEnd = this.s.tokEnd;
      this.s.skippedNL = false;
    }
    this.sc.restore(this.s.sc);
    let mode = template;
    for (;;) {
      const before = this.sc.errors.length;
      const t = this.sc.scan(mode);
      mode = undefined;
      this.s.tok = t.tok;
      this.s.lit = t.lit;
      this.s.row = t.row;
      this.s.col = t.col;
      this.s.offset = t.offset;
      this.s.tokEnd = t.end;
      if (this.sc.errors.length > before) {
        for (const e of this.sc.errors.slice(before)) {
          this.addError(e.message, { file: this.file, row: e.row, col: e.col, offset: e.offset });
        }
        this.sc.errors.length = before;
        this.s.tok = 'ILLEGAL';
      }
      if (t.tok === 'WS') {
        if (t.lit === '\n') this.s.skippedNL = true;
        if (skipws) continue;
      }
      if (this.t() !== 'COMMENT') break;
      this.s.comments = [
        ...this.s.comments,
        { text: t.lit, loc: { file: this.file, row: t.row, col: t.col, offset: t.offset } },
      ];
    }
    this.s.sc = this.sc.save();
  }

  protected addError(message: string, loc: Location): void {
    let msg = message;
    if (this.s.hints.length === 1) msg += ` (hint: ${this.s.hints[0]})`;
    else if (this.s.hints.length > 1) msg += ` (hints: ${this.s.hints.join(', ')})`;
    this.s.hints = [];
    this.s.errors = [...this.s.errors, diagnostic('rego_parse_error', msg, loc, this.src)];
  }

  protected hint(h: string): void {
    this.s.hints = [...this.s.hints, h];
  }

  protected isKeywordTok(t: Tok): boolean {
    return this.sc.keywords.has(t) || FUTURE_KEYWORDS.includes(t);
  }

  /** `unexpected <tok> token[: note]` at the current token, as OPA words it. */
  protected illegal(note = ''): void {
    if (this.t() === 'ILLEGAL') {
      this.addError('illegal token', this.loc());
      return;
    }
    const name = tokName(this.t(), this.s.lit);
    const kind = this.sc.keywords.has(this.t()) || FUTURE_KEYWORDS.includes(this.t()) ? 'keyword' : 'token';
    this.addError(note ? `unexpected ${name} ${kind}: ${note}` : `unexpected ${name} ${kind}`, this.loc());
  }

  protected enter(): boolean {
    if (++this.depth > MAX_DEPTH) {
      this.depth--;
      if (!this.s.errors.some((e) => e.message === 'max parsing recursion depth exceeded')) {
        this.addError('max parsing recursion depth exceeded', this.loc());
      }
      return false;
    }
    return true;
  }

  protected leave(): void {
    this.depth--;
  }

  /** Is the current keyword token usable as the first term of a ref (`not.x`, `default[0]`)? */
  protected isRefKeyword(t: Tok): boolean {
    return this.isKeywordTok(t) && t !== 'IDENT';
  }

  /** If the current token is a keyword directly followed by `.` or `[`, treat it as an identifier. */
  protected scanAheadRef(): boolean {
    if (!this.isRefKeyword(this.t())) return false;
    const st = this.save();
    this.scanWS();
    const next = this.t();
    this.restore(st);
    if (next === '.' || next === '[') {
      this.s.tok = 'IDENT';
      return true;
    }
    return false;
  }
}

/** OPA's token names in messages (`unexpected } token`, `unexpected ident token`, `unexpected eof token`). */
export function tokName(t: Tok, lit: string): string {
  switch (t) {
    case 'EOF':
      return 'eof';
    case 'IDENT':
      return 'ident';
    case 'NUMBER':
      return 'number';
    case 'STRING':
      return 'string';
    case 'WS':
      return 'whitespace';
    case 'COMMENT':
      return 'comment';
    case 'TPL_PART':
    case 'TPL_END':
    case 'RAW_TPL_PART':
    case 'RAW_TPL_END':
      return 'template-string';
    case 'ILLEGAL':
      return 'illegal';
    default:
      return t || lit;
  }
}
