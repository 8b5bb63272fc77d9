/**
 * On-demand scanner for Rego source, modelled on OPA's: whitespace is a token of its own (a ref
 * continues only when `.`/`[`/`(` follows with no whitespace), and the parser decides what to skip.
 * Template strings are scanned in pieces: the parser asks to continue one after each `{expr}`.
 */
import type { Location } from '../errors.js';
import type { ScanError, Tok, Token } from './tokens.js';

export interface ScannerState {
  i: number;
  row: number;
  col: number;
}

const isLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isDecimal = (c: number): boolean => c >= 48 && c <= 57;
const UNICODE_DIGIT = /\p{Nd}/u;

export class Scanner {
  private i = 0;
  private row = 1;
  private col = 1;
  readonly keywords: Set<string>;
  errors: ScanError[] = [];

  constructor(
    readonly src: string,
    keywords: Iterable<string>,
  ) {
    this.keywords = new Set(keywords);
    if (src.charCodeAt(0) === 0xfeff) this.advance(1);
  }

  save(): ScannerState {
    return { i: this.i, row: this.row, col: this.col };
  }

  restore(s: ScannerState): void {
    this.i = s.i;
    this.row = s.row;
    this.col = s.col;
  }

  location(file: string, t: { offset: number; row: number; col: number }): Location {
    return { file, row: t.row, col: t.col, offset: t.offset };
  }

  private advance(n: number): void {
    const s = this.src;
    for (let k = 0; k < n && this.i < s.length; k++) {
      const c = s.charCodeAt(this.i);
      if (c === 10) {
        this.row++;
        this.col = 1;
        this.i++;
      } else if (c >= 0xd800 && c < 0xdc00 && this.i + 1 < s.length) {
        // a surrogate pair is one column (Go counts runes)
        this.i += 2;
        this.col++;
      } else {
        this.i++;
        this.col++;
      }
    }
  }

  private err(message: string): void {
    this.errors.push({ message, offset: this.i, row: this.row, col: this.col });
  }

  private cur(): number {
    return this.i < this.src.length ? this.src.charCodeAt(this.i) : -1;
  }

  scan(continueTemplate?: 'raw' | 'quoted'): Token {
    const start = { offset: this.i, row: this.row, col: this.col };
    const mk = (tok: Tok, lit: string): Token => ({ tok, lit, ...start, end: this.i });
    if (continueTemplate === 'raw') return mk(...this.rawTemplate());
    if (continueTemplate === 'quoted') return mk(...this.quotedTemplate());
    const c = this.cur();
    if (c === -1) return mk('EOF', '');
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      this.advance(1);
      return mk('WS', c === 10 ? '\n' : ' ');
    }
    if (c === 0) {
      this.err('illegal null character');
      this.advance(1);
      return mk('ILLEGAL', '\0');
    }
    if (isLetter(c)) {
      const b = this.i;
      while (isLetter(this.cur()) || this.isDigitAt()) this.advance(1);
      const lit = this.src.slice(b, this.i);
      return mk(this.keywords.has(lit) ? (lit as Tok) : 'IDENT', lit);
    }
    if (isDecimal(c)) return mk('NUMBER', this.number());
    this.advance(1);
    const n = this.cur();
    switch (String.fromCharCode(c)) {
      case '#': {
        const b = this.i;
        while (this.cur() !== 10 && this.cur() !== -1) this.advance(1);
        let e = this.i;
        if (e > b && this.src.charCodeAt(e - 1) === 13) e--;
        return mk('COMMENT', this.src.slice(b, e));
      }
      case '"':
        return mk('STRING', this.quoted(start.offset));
      case '`':
        return mk('STRING', this.raw(start.offset));
      case '[':
        return mk('[', '[');
      case ']':
        return mk(']', ']');
      case '{':
        return mk('{', '{');
      case '}':
        return mk('}', '}');
      case '(':
        return mk('(', '(');
      case ')':
        return mk(')', ')');
      case ',':
        return mk(',', ',');
      case ';':
        return mk(';', ';');
      case '.':
        return mk('.', '.');
      case '+':
        return mk('+', '+');
      case '-':
        return mk('-', '-');
      case '*':
        return mk('*', '*');
      case '/':
        return mk('/', '/');
      case '%':
        return mk('%', '%');
      case '&':
        return mk('&', '&');
      case '|':
        return mk('|', '|');
      case ':':
        if (n === 61) {
          this.advance(1);
          return mk(':=', ':=');
        }
        return mk(':', ':');
      case '=':
        if (n === 61) {
          this.advance(1);
          return mk('==', '==');
        }
        return mk('=', '=');
      case '>':
        if (n === 61) {
          this.advance(1);
          return mk('>=', '>=');
        }
        return mk('>', '>');
      case '<':
        if (n === 61) {
          this.advance(1);
          return mk('<=', '<=');
        }
        return mk('<', '<');
      case '!':
        if (n === 61) {
          this.advance(1);
          return mk('!=', '!=');
        }
        this.err('illegal ! character');
        return mk('ILLEGAL', '!');
      case '$':
        if (n === 96) {
          this.advance(1);
          return mk(...this.rawTemplate());
        }
        if (n === 34) {
          this.advance(1);
          return mk(...this.quotedTemplate());
        }
        this.err('illegal $ character');
        return mk('ILLEGAL', '$');
      default:
        this.err(`illegal character ${JSON.stringify(String.fromCodePoint(this.src.codePointAt(start.offset) ?? c))}`);
        return mk('ILLEGAL', String.fromCharCode(c));
    }
  }

  private isDigitAt(): boolean {
    const c = this.cur();
    if (isDecimal(c)) return true;
    if (c < 128 || c === -1) return false;
    const cp = this.src.codePointAt(this.i);
    return cp !== undefined && UNICODE_DIGIT.test(String.fromCodePoint(cp));
  }

  private number(): string {
    const b = this.i;
    while (isDecimal(this.cur())) this.advance(1);
    if (this.cur() === 46) {
      this.advance(1);
      let found = false;
      while (isDecimal(this.cur())) {
        this.advance(1);
        found = true;
      }
      if (!found) this.err('expected fraction');
    }
    if ((this.cur() | 0x20) === 101) {
      this.advance(1);
      if (this.cur() === 43 || this.cur() === 45) this.advance(1);
      let found = false;
      while (isDecimal(this.cur())) {
        this.advance(1);
        found = true;
      }
      if (!found) this.err('expected exponent');
    }
    if (isLetter(this.cur())) {
      this.err('illegal number format');
      while (isLetter(this.cur()) || this.isDigitAt()) this.advance(1);
    }
    return this.src.slice(b, this.i);
  }

  /** Scans a "…" string (opening quote consumed); returns the literal including quotes. */
  private quoted(begin: number): string {
    for (;;) {
      const c = this.cur();
      if (c === 10 || c === -1) {
        this.err('non-terminated string');
        break;
      }
      this.advance(1);
      if (c === 34) break;
      if (c === 92) this.escape(false);
    }
    return this.src.slice(begin, this.i);
  }

  private escape(template: boolean): void {
    const e = this.cur();
    switch (e) {
      case 92:
      case 34:
      case 47:
      case 98:
      case 102:
      case 110:
      case 114:
      case 116:
        this.advance(1);
        return;
      case 117:
        this.advance(5);
        return;
      case 123:
        if (template) {
          this.advance(1);
          return;
        }
        this.err('illegal escape sequence');
        return;
      default:
        this.err('illegal escape sequence');
    }
  }

  private raw(begin: number): string {
    for (;;) {
      const c = this.cur();
      if (c === -1) {
        this.err('non-terminated string');
        break;
      }
      this.advance(1);
      if (c === 96) break;
    }
    return this.src.slice(begin, this.i);
  }

  /** Scans template text up to `{` (part) or the closing quote (end). Literal keeps the delimiters. */
  private quotedTemplate(): [Tok, string] {
    const b = this.i;
    for (;;) {
      const c = this.cur();
      if (c === 10 || c === -1) {
        this.err('non-terminated string');
        return ['TPL_END', `"${this.src.slice(b, this.i)}"`];
      }
      this.advance(1);
      if (c === 34) return ['TPL_END', `"${this.src.slice(b, this.i)}`];
      if (c === 123) return ['TPL_PART', `"${this.src.slice(b, this.i)}`];
      if (c === 92) this.escape(true);
    }
  }

  private rawTemplate(): [Tok, string] {
    const b = this.i;
    for (;;) {
      const c = this.cur();
      if (c === -1) {
        this.err('non-terminated string');
        return ['RAW_TPL_END', `\`${this.src.slice(b, this.i)}\``];
      }
      this.advance(1);
      if (c === 96) return ['RAW_TPL_END', `\`${this.src.slice(b, this.i)}`];
      if (c === 123) return ['RAW_TPL_PART', `\`${this.src.slice(b, this.i)}`];
      if (c === 92 && this.cur() === 123) this.advance(1);
    }
  }
}
