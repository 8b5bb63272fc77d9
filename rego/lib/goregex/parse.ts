/**
 * RE2 (Go regexp, Perl flags) syntax → a small AST whose leaves are code-point sets, for the
 * JS translation in translate.ts. It follows Go's regexp/syntax parser rule for rule (flag
 * scoping, literal `{`, octal and \x{…} escapes, POSIX and Perl classes, (?i) folding as Go
 * applies it per class item) but only for patterns re2js has already accepted: anything it does
 * not know for certain throws Untranslatable rather than guessing.
 */
import {
  ANY,
  ANY_NOT_NL,
  complement,
  fold,
  normalize,
  PERL,
  POSIX,
  union,
  Untranslatable,
  type CharSet,
} from './charset.js';

export type Node =
  | { readonly t: 'set'; readonly set: CharSet }
  | { readonly t: 'assert'; readonly src: string }
  | { readonly t: 'group'; readonly capture: boolean; readonly body: Node }
  | { readonly t: 'cat'; readonly xs: readonly Node[] }
  | { readonly t: 'alt'; readonly xs: readonly Node[] }
  | { readonly t: 'rep'; readonly min: number; readonly max: number; readonly greedy: boolean; readonly body: Node };

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
  U: boolean;
}

/** max of an unbounded repetition */
export const INF = -1;

const isOctal = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '7';
const isAlnum = (c: string): boolean => /^[0-9A-Za-z]$/.test(c);

/** Go's regexp/syntax parser (Perl flags) for patterns re2js accepted, down to code-point sets. */
export class Parser {
  private pos = 0;
  private flags: Flags = { i: false, s: false, m: false, U: false };

  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw new Untranslatable(`unexpected ${this.src[this.pos]}`);
    return node;
  }

  private peek(k = 0): string | undefined {
    return this.src[this.pos + k];
  }

  private alternation(): Node {
    // NB: flags set by (?i) inside a group outlive `|` and end at the group's `)`, as in Go.
    const xs = [this.concatenation()];
    while (this.peek() === '|') {
      this.pos++;
      xs.push(this.concatenation());
    }
    return xs.length === 1 ? xs[0]! : { t: 'alt', xs };
  }

  private concatenation(): Node {
    const xs: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') break;
      const atom = this.atom();
      if (atom !== undefined) xs.push(this.quantified(atom));
    }
    return xs.length === 1 ? xs[0]! : { t: 'cat', xs };
  }

  private quantified(atom: Node): Node {
    let node = atom;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, INF];
      else if (c === '+') [min, max] = [1, INF];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const rep = this.repeatBounds();
        if (rep === undefined) return node;
        [min, max] = rep;
      } else return node;
      if (c !== '{') this.pos++;
      let greedy = true;
      if (this.peek() === '?') {
        this.pos++;
        greedy = false;
      }
      if (node !== atom) throw new Untranslatable('stacked repetition');
      node = { t: 'rep', min, max, greedy: greedy !== this.flags.U, body: atom };
    }
  }

  /** Go's parseRepeat: `{n}`, `{n,}`, `{n,m}` without leading zeros; anything else is a literal `{`. */
  private repeatBounds(): [number, number] | undefined {
    const m = /^\{(0|[1-9][0-9]*)(?:(,)(0|[1-9][0-9]*)?)?\}/.exec(this.src.slice(this.pos));
    if (m === null) return undefined;
    this.pos += m[0].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === undefined ? INF : Number(m[3]);
    return [min, max];
  }

  private lit(cp: number): Node {
    if (cp >= 0xd800 && cp <= 0xdfff) throw new Untranslatable('surrogate literal');
    const set = [cp, cp];
    return { t: 'set', set: this.flags.i ? fold(set) : set };
  }

  /** One atom, or undefined for a flag group like (?i) that only changes state. */
  private atom(): Node | undefined {
    const c = this.peek()!;
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return { t: 'set', set: this.charClass() };
      case '.':
        this.pos++;
        return { t: 'set', set: this.flags.s ? ANY : ANY_NOT_NL };
      case '^':
      case '$':
        if (this.flags.m) throw new Untranslatable('multi-line anchor');
        this.pos++;
        return { t: 'assert', src: c };
      case '\\':
        return this.escapeAtom();
      case '*':
      case '+':
      case '?':
        throw new Untranslatable('missing repetition argument');
      default: {
        const cp = this.src.codePointAt(this.pos)!;
        this.pos += cp > 0xffff ? 2 : 1;
        return this.lit(cp);
      }
    }
  }

  private group(): Node | undefined {
    const rest = this.src.slice(this.pos);
    const named = /^\(\?P?<\w+>/.exec(rest);
    const saved = { ...this.flags };
    let capture = true;
    if (named !== null) this.pos += named[0].length;
    else if (rest.startsWith('(?')) {
      const m = /^\(\?([imsU]*)(?:-([imsU]*))?([:)])/.exec(rest);
      if (m === null) throw new Untranslatable('unknown group syntax');
      this.pos += m[0].length;
      for (const f of m[1]!) this.flags[f as keyof Flags] = true;
      for (const f of m[2] ?? '') this.flags[f as keyof Flags] = false;
      if (m[3] === ')') return undefined; // (?flags): lasts to the end of the enclosing group
      capture = false;
    } else this.pos++;
    const body = this.alternation();
    if (this.peek() !== ')') throw new Untranslatable('missing )');
    this.pos++;
    this.flags = saved;
    return { t: 'group', capture, body };
  }

  private escapeAtom(): Node {
    const e = this.peek(1);
    switch (e) {
      case 'A':
        this.pos += 2;
        return { t: 'assert', src: '^' };
      case 'z':
        this.pos += 2;
        return { t: 'assert', src: '$' };
      case 'b':
        this.pos += 2;
        return { t: 'assert', src: '\\b' };
      case 'Q': {
        const end = this.src.indexOf('\\E', this.pos + 2);
        const text = this.src.slice(this.pos + 2, end < 0 ? undefined : end);
        this.pos = end < 0 ? this.src.length : end + 2;
        const xs = [...text].map((ch) => this.lit(ch.codePointAt(0)!));
        // A quantifier after \Q…\E applies to its last character, as in Go.
        if (xs.length === 0) return { t: 'cat', xs };
        const last = this.quantified(xs.pop()!);
        return xs.length === 0 ? last : { t: 'cat', xs: [...xs, last] };
      }
      default: {
        const perl = this.perlClass();
        if (perl !== undefined) return { t: 'set', set: perl };
        return this.lit(this.escapeChar());
      }
    }
  }

  /** \d \D \s \S \w \W with Go's folding: a negated class is the complement of the folded one. */
  private perlClass(): CharSet | undefined {
    const e = this.peek(1);
    if (e === undefined || !'dDsSwW'.includes(e)) return undefined;
    this.pos += 2;
    const base = PERL[e.toLowerCase()]!;
    const folded = this.flags.i ? fold(base) : base;
    return e === e.toUpperCase() ? complement(folded) : folded;
  }

  /** Go's parseEscape: the code point of a single-character escape at pos (which is `\`). */
  private escapeChar(): number {
    const c = this.peek(1);
    if (c === undefined) throw new Untranslatable('trailing backslash');
    if (c === 'x') {
      const m = /^\\x(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{2}))/.exec(this.src.slice(this.pos));
      if (m === null) throw new Untranslatable('bad hex escape');
      this.pos += m[0].length;
      const v = parseInt(m[1] ?? m[2]!, 16);
      if (v > 0x10ffff) throw new Untranslatable('hex escape out of range');
      return v;
    }
    if (isOctal(c) && (c === '0' || isOctal(this.peek(2)))) {
      let digits = c;
      this.pos += 2;
      while (digits.length < 3 && isOctal(this.peek())) digits += this.src[this.pos++];
      return parseInt(digits, 8);
    }
    const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
    const s = simple[c];
    if (s !== undefined || (c.charCodeAt(0) < 0x80 && !isAlnum(c))) {
      this.pos += 2;
      return s ?? c.charCodeAt(0);
    }
    // \p, \P, \B, \C, back-references and anything else.
    throw new Untranslatable(`escape \\${c}`);
  }

  /** Go's parseClass; returns the class's code-point set with folding and negation applied. */
  private charClass(): CharSet {
    this.pos++;
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.pos++;
    }
    let acc: number[] = [];
    const add = (set: CharSet, positive: boolean): void => {
      const folded = this.flags.i ? fold(set) : set;
      acc = union(acc, positive ? folded : complement(folded));
    };
    for (let first = true; first || this.peek() !== ']'; first = false) {
      if (this.peek() === undefined) throw new Untranslatable('missing ]');
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos));
      if (posix !== null) {
        const set = POSIX[posix[2]!];
        if (set === undefined) throw new Untranslatable('unknown POSIX class');
        this.pos += posix[0].length;
        add(set, posix[1] === '');
        continue;
      }
      if (this.peek() === '\\') {
        const e = this.peek(1);
        if (e !== undefined && 'dDsSwW'.includes(e)) {
          this.pos += 2;
          add(PERL[e.toLowerCase()]!, e !== e.toUpperCase());
          continue;
        }
      }
      const lo = this.classChar();
      let hi = lo;
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.pos++;
        hi = this.classChar();
        if (hi < lo) throw new Untranslatable('bad range');
      }
      add([lo, hi], true);
    }
    this.pos++;
    const set = normalize(acc);
    return negated ? complement(set) : set;
  }

  private classChar(): number {
    if (this.peek() === '\\') return this.escapeChar();
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }
}
