/**
 * RE2 (Go regexp, Perl flags) pattern → equivalent JS RegExp source for V8's backtracking engine,
 * used only when the translation provably keeps RE2's results; otherwise `Untranslatable` and the
 * caller stays on re2js. The pattern must already have been accepted by re2js.
 *
 * The output uses no JS flags at all (not `u`, `i`, `s`, `m`): V8's linear-time fallback engine
 * handles none of them, and without it a hostile pattern could backtrack exponentially. So:
 * - code points: classes and astral literals are spelled as code units and surrogate pairs
 *   (charset.ts); inputs with lone surrogates never reach the native regex;
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
import { emitSet, Untranslatable, type Emitted } from './charset.js';
import { INF, Parser, type Node } from './parse.js';

export { Untranslatable };

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

/** At most this many required texts are checked per match attempt. */
const MAX_REQUIRED = 3;

/**
 * Literal texts every match must contain (runs of single-code-point atoms, zero-width assertions
 * aside), longest first: a text lacking one of them is rejected by an indexOf. Matching itself
 * cannot tell: irregexp tries every start position, and on a hostile pattern each try may cost
 * up to the backtrack limit before V8 switches engines.
 */
function requiredLiterals(n: Node): string[] {
  const found = new Set<string>();
  const walk = (x: Node): void => {
    if (x.t === 'group') walk(x.body);
    else if (x.t === 'rep' && x.min >= 1) walk(x.body);
    else if (x.t === 'set') {
      const lit = literalText(x);
      if (lit !== undefined) found.add(lit);
    } else if (x.t === 'cat') {
      let run = '';
      for (const y of x.xs) {
        const lit = literalText(y);
        if (lit !== undefined) run += lit;
        else if (y.t !== 'assert') {
          if (run !== '') found.add(run);
          run = '';
          walk(y);
        }
      }
      if (run !== '') found.add(run);
    }
  };
  walk(n);
  return [...found].sort((a, b) => b.length - a.length).slice(0, MAX_REQUIRED);
}

export interface Translation {
  /** JS RegExp source, to be compiled with no flags but `g`. */
  readonly source: string;
  /** The same with counted repetitions unrolled, for V8's linear engine; undefined when identical. */
  readonly unrolled: string | undefined;
  /** false when capture values may differ from RE2's (captures inside a repeating quantifier). */
  readonly groupsExact: boolean;
  /** Texts every match contains (maybe none): a cheap pre-check before matching. */
  readonly required: readonly string[];
}

/** Translates an RE2 pattern already accepted by re2js; throws Untranslatable when unsure. */
export function translate(pattern: string): Translation {
  const ast = new Parser(pattern).parse();
  const { groupsExact } = check(ast);
  const source = new Emitter(false).emit(ast).src;
  const unrolled = new Emitter(true).emit(ast).src;
  return { source, unrolled: unrolled === source ? undefined : unrolled, groupsExact, required: requiredLiterals(ast) };
}
