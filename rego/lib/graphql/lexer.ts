/**
 * GraphQL lexer with the token positions and error texts of github.com/vektah/gqlparser/v2 (which
 * OPA's graphql.* builtins use). Lines are 1-based; columns count code points, 1-based.
 */

export const enum Tok {
  Invalid,
  EOF,
  Bang,
  Dollar,
  Amp,
  ParenL,
  ParenR,
  Spread,
  Colon,
  Equals,
  At,
  BracketL,
  BracketR,
  BraceL,
  BraceR,
  Pipe,
  Name,
  Int,
  Float,
  String,
  BlockString,
}

const KIND_TEXT = [
  '<Invalid>',
  '<EOF>',
  '!',
  '$',
  '&',
  '(',
  ')',
  '...',
  ':',
  '=',
  '@',
  '[',
  ']',
  '{',
  '}',
  '|',
  'Name',
  'Int',
  'Float',
  'String',
  'BlockString',
];

export function kindText(k: Tok): string {
  return KIND_TEXT[k]!;
}

export interface Pos {
  readonly line: number;
  readonly col: number;
}

export interface Token extends Pos {
  readonly kind: Tok;
  readonly value: string;
  /** Set on Invalid tokens: the lexer's error, reported when the parser consumes the token. */
  readonly err?: string;
}

/** Go's lexer.Token.String(): the kind, then the quoted value when there is one. */
export function tokenText(t: Token, quote: (s: string) => string): string {
  return t.value !== '' ? `${kindText(t.kind)} ${quote(t.value)}` : kindText(t.kind);
}

function pad4(n: number): string {
  return String(n).padStart(4, '0');
}

const PUNCT: Record<string, Tok> = {
  '!': Tok.Bang,
  $: Tok.Dollar,
  '&': Tok.Amp,
  '(': Tok.ParenL,
  ')': Tok.ParenR,
  ':': Tok.Colon,
  '=': Tok.Equals,
  '@': Tok.At,
  '[': Tok.BracketL,
  ']': Tok.BracketR,
  '{': Tok.BraceL,
  '}': Tok.BraceR,
  '|': Tok.Pipe,
};

function isNameStart(c: number): boolean {
  return c === 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}

/** The first UTF-8 byte of the character at i, as Go's string(byte) renders it. */
function firstByteChar(s: string, i: number): string {
  const cp = s.codePointAt(i)!;
  if (cp < 0x80) return String.fromCharCode(cp);
  const lead = cp < 0x800 ? 0xc0 | (cp >> 6) : cp < 0x10000 ? 0xe0 | (cp >> 12) : 0xf0 | (cp >> 18);
  return String.fromCharCode(lead);
}

/** GraphQL's block string dedent (spec: BlockStringValue). */
export function blockStringValue(raw: string): string {
  const lines = raw.split(/\r\n|\n|\r/);
  let common = Infinity;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.replace(/^[ \t]+/, '').length;
    if (indent < line.length && indent < common) common = indent;
  }
  if (common !== Infinity) {
    for (let i = 1; i < lines.length; i++) lines[i] = lines[i]!.length < common ? '' : lines[i]!.slice(common);
  }
  const blank = (l: string): boolean => /^[ \t]*$/.test(l);
  let start = 0;
  let end = lines.length;
  while (start < end && blank(lines[start]!)) start++;
  while (start < end && blank(lines[end - 1]!)) end--;
  return lines.slice(start, end).join('\n');
}

export class Lexer {
  private end = 0;
  private endRunes = 0;
  private start = 0;
  private startRunes = 0;
  private line = 1;
  private lineStartRunes = 0;

  constructor(private readonly input: string) {}

  private code(i: number): number {
    return i < this.input.length ? this.input.charCodeAt(i) : -1;
  }

  /** Advances one code point. */
  private step(): void {
    const c = this.input.charCodeAt(this.end);
    this.end += c >= 0xd800 && c <= 0xdbff && this.end + 1 < this.input.length ? 2 : 1;
    this.endRunes++;
  }

  private token(kind: Tok, value: string): Token {
    return { kind, value, line: this.line, col: this.startRunes - this.lineStartRunes + 1 };
  }

  private error(message: string): Token {
    return {
      kind: Tok.Invalid,
      value: '',
      line: this.line,
      col: this.endRunes - this.lineStartRunes + 1,
      err: message,
    };
  }

  private ws(): void {
    for (;;) {
      const c = this.code(this.end);
      if (c === 0x09 || c === 0x20 || c === 0x2c || c === 0xfeff) {
        this.end++;
        this.endRunes++;
      } else if (c === 0x0a || c === 0x0d) {
        this.end++;
        this.endRunes++;
        if (c === 0x0d && this.code(this.end) === 0x0a) {
          this.end++;
          this.endRunes++;
        }
        this.line++;
        this.lineStartRunes = this.endRunes;
      } else return;
    }
  }

  next(): Token {
    for (;;) {
      this.ws();
      this.start = this.end;
      this.startRunes = this.endRunes;
      if (this.end >= this.input.length) return this.token(Tok.EOF, '');
      const ch = this.input[this.start]!;
      const c = ch.charCodeAt(0);
      if (c === 0x23 /* # */) {
        // Comments run to the end of the line and are skipped.
        while (this.end < this.input.length) {
          const d = this.input.codePointAt(this.end)!;
          if (d > 0x1f || d === 0x09) this.step();
          else break;
        }
        continue;
      }
      const punct = PUNCT[ch];
      if (punct !== undefined) {
        this.step();
        return this.token(punct, '');
      }
      if (ch === '.' && this.input.startsWith('...', this.start)) {
        this.end += 3;
        this.endRunes += 3;
        return this.token(Tok.Spread, '');
      }
      if (isNameStart(c)) return this.readName();
      if (c === 0x2d || (c >= 48 && c <= 57)) return this.readNumber();
      if (c === 0x22) return this.input.startsWith('"""', this.start) ? this.readBlockString() : this.readString();
      if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)
        return this.error(`Cannot contain the invalid character "\\u${pad4(c)}"`);
      if (c === 0x27)
        return this.error(`Unexpected single quote character ('), did you mean to use a double quote (")?`);
      return this.error(`Cannot parse the unexpected character "${firstByteChar(this.input, this.start)}".`);
    }
  }

  private readName(): Token {
    while (isNameChar(this.code(this.end))) {
      this.end++;
      this.endRunes++;
    }
    return this.token(Tok.Name, this.input.slice(this.start, this.end));
  }

  private digits(): number {
    let n = 0;
    for (let c = this.code(this.end); c >= 48 && c <= 57; c = this.code(this.end)) {
      this.end++;
      this.endRunes++;
      n++;
    }
    return n;
  }

  private accept(...chars: number[]): boolean {
    if (chars.includes(this.code(this.end))) {
      this.end++;
      this.endRunes++;
      return true;
    }
    return false;
  }

  private describeNext(): string {
    return this.end < this.input.length ? `"${firstByteChar(this.input, this.end)}"` : '<EOF>';
  }

  private readNumber(): Token {
    let float = false;
    this.accept(0x2d);
    if (this.accept(0x30)) {
      const consumed = this.digits();
      if (consumed !== 0) {
        this.end -= consumed;
        this.endRunes -= consumed;
        return this.error(`Invalid number, unexpected digit after 0: ${this.describeNext()}.`);
      }
    } else if (this.digits() === 0)
      return this.error(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    if (this.accept(0x2e)) {
      float = true;
      if (this.digits() === 0) return this.error(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    if (this.accept(0x65, 0x45)) {
      float = true;
      this.accept(0x2d, 0x2b);
      if (this.digits() === 0) return this.error(`Invalid number, expected digit but got: ${this.describeNext()}.`);
    }
    return this.token(float ? Tok.Float : Tok.Int, this.input.slice(this.start, this.end));
  }

  private readString(): Token {
    const input = this.input;
    this.end++; // opening quote
    this.endRunes++;
    const bodyStart = this.end;
    let buf: string | undefined;
    while (this.end < input.length) {
      const c = input.charCodeAt(this.end);
      if (c === 0x0a || c === 0x0d) break;
      if (c < 0x20 && c !== 0x09) return this.error(`Invalid character within String: "\\u${pad4(c)}".`);
      if (c === 0x22) {
        const value = buf ?? input.slice(bodyStart, this.end);
        this.end++;
        this.endRunes++;
        // NB: like gqlparser, the reported column is that of the first character after the quote.
        return { kind: Tok.String, value, line: this.line, col: this.startRunes + 1 - this.lineStartRunes + 1 };
      }
      if (c !== 0x5c) {
        const from = this.end;
        this.step();
        if (buf !== undefined) buf += input.slice(from, this.end);
        continue;
      }
      // Escape sequence.
      if (this.end + 1 >= input.length) {
        this.end++;
        this.endRunes++;
        return this.error('Invalid character escape sequence.');
      }
      buf ??= input.slice(bodyStart, this.end);
      const esc = input[this.end + 1]!;
      if (esc === 'u') {
        if (this.end + 6 >= input.length) {
          this.end++;
          this.endRunes++;
          return this.error(`Invalid character escape sequence: \\${input.slice(this.end)}.`);
        }
        const hex = input.slice(this.end + 2, this.end + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.end++;
          this.endRunes++;
          return this.error(`Invalid character escape sequence: \\${input.slice(this.end, this.end + 5)}.`);
        }
        const cp = parseInt(hex, 16);
        // NB: Go writes U+FFFD for a surrogate written as \uXXXX.
        buf += cp >= 0xd800 && cp < 0xe000 ? '\ufffd' : String.fromCharCode(cp);
        this.end += 6;
        this.endRunes += 6;
        continue;
      }
      const simple: Record<string, string> = {
        '"': '"',
        '/': '/',
        '\\': '\\',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      const rep = simple[esc];
      if (rep === undefined) {
        this.end++;
        this.endRunes++;
        return this.error(`Invalid character escape sequence: \\${esc}.`);
      }
      buf += rep;
      this.end += 2;
      this.endRunes += 2;
    }
    return this.error('Unterminated string.');
  }

  private readBlockString(): Token {
    const input = this.input;
    this.end += 3;
    this.endRunes += 3;
    let buf = '';
    while (this.end < input.length) {
      const c = input.charCodeAt(this.end);
      if (c === 0x22 && input.startsWith('"""', this.end)) {
        // NB: gqlparser reports the line where the string ends, with a column computed from that
        // line's start, even for a string spanning several lines.
        const col = this.startRunes + 3 - this.lineStartRunes + 1;
        this.end += 3;
        this.endRunes += 3;
        return { kind: Tok.BlockString, value: blockStringValue(buf), line: this.line, col };
      }
      if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)
        return this.error(`Invalid character within String: "\\u${pad4(c)}".`);
      if (c === 0x5c && input.startsWith('\\"""', this.end)) {
        buf += '"""';
        this.end += 4;
        this.endRunes += 4;
      } else if (c === 0x0d) {
        if (this.code(this.end + 1) === 0x0a) {
          this.end++;
          this.endRunes++;
        }
        buf += '\n';
        this.end++;
        this.endRunes++;
        this.line++;
        this.lineStartRunes = this.endRunes;
      } else {
        const from = this.end;
        this.step();
        buf += input.slice(from, this.end);
        if (c === 0x0a) {
          this.line++;
          this.lineStartRunes = this.endRunes;
        }
      }
    }
    return this.error('Unterminated string.');
  }
}
