/**
 * The glob syntax of github.com/gobwas/glob v0.2.3 (OPA's glob.match): lexer and parser, with the
 * library's quirks kept — one range or one character list per `[...]`, `[!...]` negation, `{a,b}`
 * alternatives that need no closing brace at the end of input, `}` and `,` literal outside braces,
 * a trailing lone `\` dropped. Error messages are the library's.
 */

export type GlobNode =
  | { readonly kind: 'pattern'; readonly children: GlobNode[] }
  | { readonly kind: 'anyOf'; readonly children: GlobNode[] }
  | { readonly kind: 'text'; readonly runes: readonly number[] }
  | { readonly kind: 'any' } // `*`: any run of non-separators
  | { readonly kind: 'super' } // `**`: any run
  | { readonly kind: 'single' } // `?`: one non-separator
  | { readonly kind: 'list'; readonly chars: readonly number[]; readonly not: boolean }
  | { readonly kind: 'range'; readonly lo: number; readonly hi: number; readonly not: boolean };

const enum Tok {
  EOF,
  Error,
  Text,
  Any,
  Super,
  Single,
  Not,
  Separator,
  RangeOpen,
  RangeClose,
  RangeLo,
  RangeBetween,
  RangeHi,
  TermsOpen,
  TermsClose,
}

interface Token {
  readonly t: Tok;
  readonly runes: readonly number[];
}

const EOF = 0; // NB: like the library, a NUL character ends the pattern.
const TEXT_BREAKERS = [0x3f, 0x2a, 0x5b, 0x7b]; // ? * [ {
const TERMS_BREAKERS = [...TEXT_BREAKERS, 0x7d, 0x2c]; // } ,

class Lexer {
  private pos = 0;
  private err: string | undefined;
  private readonly queue: Token[] = [];
  private termsLevel = 0;
  private lastSize = 0;
  private readonly data: readonly number[];

  constructor(source: string) {
    this.data = Array.from(source, (c) => c.codePointAt(0)!);
  }

  next(): Token {
    for (;;) {
      if (this.err !== undefined) return { t: Tok.Error, runes: [] };
      const t = this.queue.shift();
      if (t !== undefined) return t;
      this.fetchItem();
    }
  }

  get error(): string {
    return this.err ?? '';
  }

  private peek(): number {
    if (this.pos >= this.data.length) return EOF;
    const r = this.data[this.pos]!;
    // The library rejects U+FFFD (its decoder's error rune) even when it is spelled out.
    if (r === 0xfffd || (r >= 0xd800 && r < 0xe000)) {
      this.err ??= 'could not read rune';
      return EOF;
    }
    return r;
  }

  private read(): number {
    const r = this.peek();
    // Reading at the end (or after an error) does not move, so unread must not either.
    this.lastSize = r === EOF ? 0 : 1;
    this.pos += this.lastSize;
    return r;
  }

  private unread(): void {
    this.pos -= this.lastSize;
    this.lastSize = 0;
  }

  private push(t: Tok, runes: readonly number[] = []): void {
    this.queue.push({ t, runes });
  }

  private fetchItem(): void {
    const r = this.read();
    if (r === EOF) this.push(Tok.EOF);
    else if (r === 0x7b) {
      this.termsLevel++;
      this.push(Tok.TermsOpen);
    } else if (r === 0x2c && this.termsLevel > 0) this.push(Tok.Separator);
    else if (r === 0x7d && this.termsLevel > 0) {
      this.push(Tok.TermsClose);
      this.termsLevel--;
    } else if (r === 0x5b) {
      this.push(Tok.RangeOpen);
      this.fetchRange();
    } else if (r === 0x3f) this.push(Tok.Single);
    else if (r === 0x2a) {
      if (this.read() === 0x2a) this.push(Tok.Super);
      else {
        this.unread();
        this.push(Tok.Any);
      }
    } else {
      this.unread();
      this.fetchText(this.termsLevel > 0 ? TERMS_BREAKERS : TEXT_BREAKERS);
    }
  }

  private fetchRange(): void {
    let wantHi = false;
    let wantClose = false;
    let seenNot = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) {
        this.err ??= 'unexpected end of input';
        return;
      }
      if (wantClose) {
        if (r !== 0x5d) this.err ??= 'expected close range character';
        else this.push(Tok.RangeClose);
        return;
      }
      if (wantHi) {
        this.push(Tok.RangeHi, [r]);
        wantClose = true;
        continue;
      }
      if (!seenNot && r === 0x21) {
        this.push(Tok.Not);
        seenNot = true;
        continue;
      }
      if (this.peek() === 0x2d) {
        this.pos++;
        this.push(Tok.RangeLo, [r]);
        this.push(Tok.RangeBetween);
        wantHi = true;
        continue;
      }
      this.unread();
      this.fetchText([0x5d]);
      wantClose = true;
    }
  }

  private fetchText(breakers: readonly number[]): void {
    const data: number[] = [];
    let escaped = false;
    for (;;) {
      const r = this.read();
      if (r === EOF) break;
      if (!escaped) {
        if (r === 0x5c) {
          escaped = true;
          continue;
        }
        if (breakers.includes(r)) {
          this.unread();
          break;
        }
      }
      escaped = false;
      data.push(r);
    }
    if (data.length > 0) this.push(Tok.Text, data);
  }
}

/** A pattern gobwas/glob rejects (with its message), or one nested too deeply to compile. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobError';
  }
}

function fail(msg: string): never {
  throw new GlobError(msg);
}

function parseRange(lex: Lexer, tree: GlobNode & { kind: 'pattern' }): void {
  let not = false;
  let lo = 0;
  let hi = 0;
  let chars: readonly number[] = [];
  for (;;) {
    const tok = lex.next();
    switch (tok.t) {
      case Tok.EOF:
        fail('unexpected end');
      // falls through (fail never returns)
      case Tok.Error:
        fail(lex.error);
      // falls through
      case Tok.Not:
        not = true;
        break;
      case Tok.RangeLo:
        lo = tok.runes[0]!;
        break;
      case Tok.RangeHi:
        hi = tok.runes[0]!;
        if (hi < lo) {
          fail(`hi character '${String.fromCodePoint(hi)}' should be greater than lo '${String.fromCodePoint(lo)}'`);
        }
        break;
      case Tok.Text:
        chars = tok.runes;
        break;
      case Tok.RangeClose: {
        const isRange = lo !== 0 && hi !== 0;
        const isChars = chars.length > 0;
        if (isChars === isRange) fail('could not parse range');
        tree.children.push(isRange ? { kind: 'range', lo, hi, not } : { kind: 'list', chars, not });
        return;
      }
      default:
        break;
    }
  }
}

/** Parses a glob; syntax errors throw GlobError with gobwas/glob's message. */
export function parseGlob(pattern: string): GlobNode {
  const lex = new Lexer(pattern);
  const root: GlobNode & { kind: 'pattern' } = { kind: 'pattern', children: [] };
  // The parser's position: the pattern being filled and its enclosing anyOf/pattern chain.
  type P = GlobNode & { kind: 'pattern' };
  type A = GlobNode & { kind: 'anyOf' };
  const parents = new Map<GlobNode, GlobNode>();
  let tree: P = root;
  for (;;) {
    const tok = lex.next();
    switch (tok.t) {
      case Tok.EOF:
        return root;
      case Tok.Error:
        fail(lex.error);
      // falls through
      case Tok.Text:
        tree.children.push({ kind: 'text', runes: tok.runes });
        break;
      case Tok.Any:
        tree.children.push({ kind: 'any' });
        break;
      case Tok.Super:
        tree.children.push({ kind: 'super' });
        break;
      case Tok.Single:
        tree.children.push({ kind: 'single' });
        break;
      case Tok.RangeOpen:
        parseRange(lex, tree);
        break;
      case Tok.TermsOpen: {
        const a: A = { kind: 'anyOf', children: [] };
        const p: P = { kind: 'pattern', children: [] };
        tree.children.push(a);
        parents.set(a, tree);
        a.children.push(p);
        parents.set(p, a);
        tree = p;
        break;
      }
      case Tok.Separator: {
        const a = parents.get(tree) as A;
        const p: P = { kind: 'pattern', children: [] };
        a.children.push(p);
        parents.set(p, a);
        tree = p;
        break;
      }
      case Tok.TermsClose:
        tree = parents.get(parents.get(tree)!) as P;
        break;
      default:
        fail('unexpected token');
    }
  }
}

const SPECIALS = /[*?\\[\]{}]/g;

/** glob.QuoteMeta: escapes the characters the lexer treats as special. */
export function globQuoteMeta(s: string): string {
  return s.replace(SPECIALS, '\\$&');
}
