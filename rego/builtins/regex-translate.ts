/**
 * RE2 (Go regexp, Perl flags) pattern → equivalent JS RegExp source for V8's backtracking engine,
 * used only when the translation provably keeps RE2's results; otherwise `Untranslatable` and the
 * caller stays on re2js. The pattern must already have been accepted by re2js.
 *
 * The output uses no JS flags at all (not `u`, `i`, `s`, `m`): V8's linear-time fallback engine
 * handles none of them, and without it a hostile pattern could backtrack exponentially. So:
 * - code points: classes and astral literals are spelled as code units and surrogate pairs
 *   (regex-charset.ts); inputs with lone surrogates never reach the native regex;
 * - (?i): folded explicitly into classes (ASCII, K, ſ and caseless symbols only);
 * - (?s): `.` becomes an explicit class, so flag groups can appear anywhere, as in RE2;
 * - `^` `$` `\A` `\z` are input anchors (no `m` flag); (?m)^ / (?m)$ would need lookarounds → re2js;
 * - (?U) swaps greediness; named groups become plain groups (names come from re2js).
 * Semantic gaps between RE2 and JS backtracking, all sent to re2js:
 * - a repeated sub-expression that can match empty (`(a*)*`, `(|a)?`): JS rejects empty
 *   iterations where RE2 does not, and the overall match differs;
 * - `\B`: true between the two halves of a surrogate pair for a code-unit engine;
 * - `\pL` `\p{Greek}` …: no Unicode tables here that provably equal re2js's.
 * Capture groups inside a quantifier that can repeat (`(?:(a)|b)+`) keep their last value in RE2
 * but are reset per iteration in JS: such patterns match natively but report submatches via re2js.
 */
import {
  ANY,
  ANY_NOT_NL,
  complement,
  emitSet,
  fold,
  normalize,
  PERL,
  POSIX,
  union,
  Untranslatable,
  type CharSet,
  type Emitted,
} from './regex-charset.js';

export { Untranslatable };

type Node =
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

const INF = -1;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isOctal = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '7';
const isAlnum = (c: string): boolean => /^[0-9A-Za-z]$/.test(c);

class Parser {
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

function nullable(n: Node): boolean {
  switch (n.t) {
    case 'set':
      return false;
    case 'assert':
      return true;
    case 'group':
      return nullable(n.body);
    case 'cat':
      return n.xs.every(nullable);
    case 'alt':
      return n.xs.some(nullable);
    case 'rep':
      return n.min === 0 || nullable(n.body);
  }
}

function hasCapture(n: Node): boolean {
  switch (n.t) {
    case 'group':
      return n.capture || hasCapture(n.body);
    case 'cat':
    case 'alt':
      return n.xs.some(hasCapture);
    case 'rep':
      return hasCapture(n.body);
    default:
      return false;
  }
}

/** Rejects repeated nullable bodies; reports whether JS's capture values equal RE2's. */
function check(n: Node): { groupsExact: boolean } {
  let groupsExact = true;
  const walk = (x: Node): void => {
    switch (x.t) {
      case 'group':
        walk(x.body);
        break;
      case 'cat':
      case 'alt':
        x.xs.forEach(walk);
        break;
      case 'rep':
        if (nullable(x.body)) throw new Untranslatable('repeated sub-expression can match empty');
        if (x.max !== 1 && hasCapture(x.body)) groupsExact = false;
        walk(x.body);
        break;
      default:
    }
  };
  walk(n);
  return { groupsExact };
}

/** Source budget for unrolled bounded repetitions (`.{0,200}`), so a pattern cannot balloon. */
const MAX_UNROLLED_SOURCE = 32 * 1024;

class Emitter {
  constructor(private readonly unroll: boolean) {}

  emit(n: Node): Emitted {
    switch (n.t) {
      case 'set':
        return emitSet(n.set);
      case 'assert':
        return { src: n.src, atomic: false };
      case 'group':
        return { src: `${n.capture ? '(' : '(?:'}${this.emit(n.body).src})`, atomic: true };
      case 'cat': {
        const parts = n.xs.map((x) => this.emit(x));
        if (parts.length === 1) return parts[0]!;
        return { src: parts.map((p) => p.src).join(''), atomic: false };
      }
      case 'alt':
        return { src: n.xs.map((x) => this.emit(x).src).join('|'), atomic: false };
      case 'rep':
        return this.rep(n);
    }
  }

  private rep(n: Extract<Node, { t: 'rep' }>): Emitted {
    const body = this.emit(n.body);
    const atom = body.atomic ? body.src : `(?:${body.src})`;
    const lazy = n.greedy ? '' : '?';
    // V8's linear engine refuses counted repetition beyond 16 copies; unrolling a capture-free
    // body into copies and nested optionals is equivalent and stays within its limits.
    if (this.unroll && !hasCapture(n.body) && (n.min > 1 || n.max > 1)) {
      let src = atom.repeat(n.min);
      if (n.max === INF) src += `${atom}*${lazy}`;
      else {
        let tail = '';
        for (let k = n.max - n.min; k > 0; k--) tail = `(?:${atom}${tail})?${lazy}`;
        src += tail;
      }
      if (src.length > MAX_UNROLLED_SOURCE) throw new Untranslatable('unrolled repetition too large');
      return { src: `(?:${src})`, atomic: true };
    }
    let q: string;
    if (n.min === 0 && n.max === INF) q = '*';
    else if (n.min === 1 && n.max === INF) q = '+';
    else if (n.min === 0 && n.max === 1) q = '?';
    else if (n.max === INF) q = `{${n.min},}`;
    else q = n.min === n.max ? `{${n.min}}` : `{${n.min},${n.max}}`;
    return { src: atom + q + lazy, atomic: false };
  }
}

/** UTF-16 text of a one-code-point set, or undefined. */
function literalText(n: Node): string | undefined {
  return n.t === 'set' && n.set.length === 2 && n.set[0] === n.set[1] ? String.fromCodePoint(n.set[0]!) : undefined;
}

/**
 * The longest literal text every match must contain (found as a run of single-code-point atoms,
 * zero-width assertions aside), so a text lacking it is rejected by one indexOf.
 */
function requiredLiteral(n: Node): string {
  switch (n.t) {
    case 'set':
      return literalText(n) ?? '';
    case 'group':
      return requiredLiteral(n.body);
    case 'rep':
      return n.min >= 1 ? requiredLiteral(n.body) : '';
    case 'cat': {
      let best = '';
      let run = '';
      for (const x of n.xs) {
        const lit = literalText(x);
        if (lit !== undefined) run += lit;
        else if (x.t !== 'assert') {
          if (run.length > best.length) best = run;
          run = '';
          const inner = requiredLiteral(x);
          if (inner.length > best.length) best = inner;
        }
      }
      return run.length > best.length ? run : best;
    }
    default:
      return '';
  }
}

export interface Translation {
  /** JS RegExp source, to be compiled with no flags but `g`. */
  readonly source: string;
  /** The same with counted repetitions unrolled, for V8's linear engine; undefined when identical. */
  readonly unrolled: string | undefined;
  /** false when capture values may differ from RE2's (captures inside a repeating quantifier). */
  readonly groupsExact: boolean;
  /** Text every match contains ('' if none is known): a cheap pre-check before matching. */
  readonly required: string;
}

/** Translates an RE2 pattern already accepted by re2js; throws Untranslatable when unsure. */
export function translate(pattern: string): Translation {
  const ast = new Parser(pattern).parse();
  const { groupsExact } = check(ast);
  const source = new Emitter(false).emit(ast).src;
  const unrolled = new Emitter(true).emit(ast).src;
  return { source, unrolled: unrolled === source ? undefined : unrolled, groupsExact, required: requiredLiteral(ast) };
}
