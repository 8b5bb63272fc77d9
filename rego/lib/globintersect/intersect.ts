/**
 * The semantics of github.com/yashtewari/glob-intersection (NonEmpty), which OPA's regex.globs_match
 * delegates to. Globs are sequences of atoms — a character, `.` (any character) or a `[...]`
 * set with `-` ranges — each optionally followed by `*` or `+`; `\` escapes the next character.
 *
 * NB: the library's intersection is a greedy token-matching heuristic, not an automaton product,
 * and OPA's answers follow it (e.g. `abc.*` vs `abc` is false). It is reproduced as written, but
 * every recursive step is memoized on (function, glob offsets), which keeps the worst case
 * polynomial where the original is exponential in the number of flags.
 */
import { normalize } from '../goregex/charset.js';

const enum Kind {
  Char,
  Dot,
  Set,
}
const enum Flag {
  None,
  Plus,
  Star,
}

interface Token {
  readonly kind: Kind;
  /** Kind.Char: the code point. */
  readonly rune: number;
  /** Kind.Set: sorted, merged, inclusive code-point ranges [lo0, hi0, lo1, hi1, …]. */
  readonly ranges: readonly number[];
  flag: Flag;
}

/** A glob the library rejects (with its message), or one too long to intersect. */
export class GlobIntersectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobIntersectionError';
  }
}

function invalid(input: readonly string[], pos: number, msg: string): GlobIntersectionError {
  return new GlobIntersectionError(`input:${input.join('')}, pos:${pos}, ${msg}: the input provided is invalid`);
}

interface RuneRead {
  next: number;
  r: number;
  escaped: boolean;
}

/** nextRune: undefined at end of input. */
function nextRune(input: readonly string[], index: number): RuneRead | undefined {
  if (index >= input.length) return undefined;
  if (input[index] === '\\') {
    if (index === input.length - 1) throw invalid(input, index, 'input ends with a \\ (escape) character');
    return { next: index + 2, r: input[index + 1]!.codePointAt(0)!, escaped: true };
  }
  return { next: index + 1, r: input[index]!.codePointAt(0)!, escaped: false };
}

function readSet(input: readonly string[], start: number): [Token, number] {
  const pairs: number[] = [];
  let prev = 0;
  let prevExists = false;
  let index = start;
  for (let rd = nextRune(input, index); rd !== undefined; rd = nextRune(input, index)) {
    index = rd.next;
    if (!rd.escaped && rd.r === 0x2d /* - */) {
      if (!prevExists) throw invalid(input, index, "range character '-' must be preceded by a Unicode character");
      if (index >= input.length - 1)
        throw invalid(input, index, "range character '-' must be followed by a Unicode character");
      let hi: RuneRead;
      try {
        hi = nextRune(input, index)!;
      } catch {
        // NB: the library ignores this error and goes on with rune 0, which is out of order.
        hi = { next: index, r: 0, escaped: false };
      }
      index = hi.next;
      if (!hi.escaped && (hi.r === 0x5d || hi.r === 0x2d)) {
        throw invalid(input, index, "range character '-' cannot be followed by a special symbol");
      }
      if (hi.r < prev) {
        const show = (c: number): string => String.fromCodePoint(c);
        throw invalid(input, index, `range is out of order: '${show(hi.r)}' comes before '${show(prev)}' in Unicode`);
      }
      pairs.push(prev, hi.r);
      prevExists = false;
    } else if (!rd.escaped && rd.r === 0x5d /* ] */) {
      return [{ kind: Kind.Set, rune: -1, ranges: normalize(pairs), flag: Flag.None }, index];
    } else {
      pairs.push(rd.r, rd.r);
      prev = rd.r;
      prevExists = true;
    }
  }
  throw invalid(input, index, 'found [ without matching ]');
}

function tokenize(glob: string): Token[] {
  const input = Array.from(glob);
  const tokens: Token[] = [];
  let index = 0;
  for (let rd = nextRune(input, index); rd !== undefined; rd = nextRune(input, index)) {
    index = rd.next;
    let tok: Token;
    if (rd.escaped) tok = { kind: Kind.Char, rune: rd.r, ranges: [], flag: Flag.None };
    else if (rd.r === 0x2e /* . */) tok = { kind: Kind.Dot, rune: -1, ranges: [], flag: Flag.None };
    else if (rd.r === 0x5b /* [ */) [tok, index] = readSet(input, index);
    else if (rd.r === 0x5d) throw invalid(input, index, "set-close ']' with no preceding '['");
    else if (rd.r === 0x2b || rd.r === 0x2a) {
      throw invalid(input, index, `flag '${String.fromCodePoint(rd.r)}' must be preceded by a non-flag`);
    } else tok = { kind: Kind.Char, rune: rd.r, ranges: [], flag: Flag.None };
    const fl = nextRune(input, index);
    if (fl !== undefined && !fl.escaped && (fl.r === 0x2b || fl.r === 0x2a)) {
      tok.flag = fl.r === 0x2b ? Flag.Plus : Flag.Star;
      index = fl.next;
    }
    tokens.push(tok);
  }
  return tokens;
}

function sameAtom(a: Token, b: Token): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === Kind.Char) return a.rune === b.rune;
  if (a.kind === Kind.Set) return a.ranges.length === b.ranges.length && a.ranges.every((x, i) => x === b.ranges[i]);
  return true;
}

/** Merges neighbouring flagged copies of one atom: t*t+ == t+, t*t* == t*. */
function simplify(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    const last = out[out.length - 1];
    if (last !== undefined && t.flag !== Flag.None && last.flag !== Flag.None && sameAtom(t, last)) {
      last.flag = t.flag === Flag.Plus || last.flag === Flag.Plus ? Flag.Plus : Flag.Star;
    } else out.push({ ...t });
  }
  return out;
}

function setHas(ranges: readonly number[], r: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (r < ranges[2 * mid]!) hi = mid - 1;
    else if (r > ranges[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

function setsIntersect(a: readonly number[], b: readonly number[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1]! < b[j]!) i += 2;
    else if (b[j + 1]! < a[i]!) j += 2;
    else return true;
  }
  return false;
}

/** Whether two atoms (flags ignored) can match a common character. */
function match(a: Token, b: Token): boolean {
  if (a.kind === Kind.Dot || b.kind === Kind.Dot) return true;
  if (a.kind === Kind.Char && b.kind === Kind.Char) return a.rune === b.rune;
  if (a.kind === Kind.Char) return setHas(b.ranges, a.rune);
  if (b.kind === Kind.Char) return setHas(a.ranges, b.rune);
  return setsIntersect(a.ranges, b.ranges);
}

/** The library's recursion over suffixes g[x:] of the two (trimmed) globs, memoized. */
class Intersector {
  private readonly memo = new Map<number, boolean>();
  private steps = 0;

  constructor(
    private readonly globs: readonly [readonly Token[], readonly Token[]],
    private readonly onStep: () => void,
  ) {}

  private key(fn: number, first: 0 | 1, x: number, y: number): number {
    // fn < 4, first < 2, offsets < 2^20 (globs are bounded by MAX_GLOB_RUNES).
    return ((fn * 2 + first) * 0x100000 + x) * 0x100000 + y;
  }

  private cached(fn: number, first: 0 | 1, x: number, y: number, compute: () => boolean): boolean {
    const k = this.key(fn, first, x, y);
    const hit = this.memo.get(k);
    if (hit !== undefined) return hit;
    if ((++this.steps & 0x3ff) === 0) this.onStep();
    const r = compute();
    this.memo.set(k, r);
    return r;
  }

  /** intersectNormal(G[first][x:], G[1-first][y:]) */
  normal(first: 0 | 1, x: number, y: number): boolean {
    return this.cached(0, first, x, y, () => {
      const g1 = this.globs[first];
      const g2 = this.globs[1 - first]!;
      let i = x;
      let j = y;
      for (; i < g1.length && j < g2.length; i++, j++) {
        if (g1[i]!.flag === Flag.None && g2[j]!.flag === Flag.None) {
          if (!match(g1[i]!, g2[j]!)) return false;
        } else return this.special(first, i, j);
      }
      return i === g1.length && j === g2.length;
    });
  }

  private special(first: 0 | 1, x: number, y: number): boolean {
    const g1 = this.globs[first];
    const other = (1 - first) as 0 | 1;
    const g2 = this.globs[other];
    if (g1[x]!.flag !== Flag.None) return g1[x]!.flag === Flag.Plus ? this.plus(first, x, y) : this.star(first, x, y);
    return g2[y]!.flag === Flag.Plus ? this.plus(other, y, x) : this.star(other, y, x);
  }

  /** intersectPlus(G[first][x:] (flagged +), G[1-first][y:]) */
  private plus(first: 0 | 1, x: number, y: number): boolean {
    return this.cached(1, first, x, y, () => {
      const plussed = this.globs[first];
      const other = this.globs[1 - first]!;
      if (!match(plussed[x]!, other[y]!)) return false;
      if (this.star(first, x, y + 1)) return true;
      return other[y]!.flag !== Flag.None && this.normal(first, x + 1, y);
    });
  }

  /** intersectStar(G[first][x:] (flagged), G[1-first][y:]) */
  private star(first: 0 | 1, x: number, y: number): boolean {
    return this.cached(2, first, x, y, () => {
      const starred = this.globs[first];
      const other = this.globs[1 - first]!;
      const starTok = starred[x]!;
      const nextTok = starred[x + 1];
      for (let i = y; i < other.length; i++) {
        const t = other[i]!;
        if (nextTok !== undefined && match(t, nextTok)) {
          if (this.normal(first, x + 1, i)) return true;
          if (!match(t, starTok)) return false;
        } else if (!match(t, starTok)) return false;
      }
      return nextTok === undefined;
    });
  }
}

/** trimGlobs: drops the matching unflagged prefix and suffix, keeping one token of each. */
function trimGlobs(g1: Token[], g2: Token[]): [Token[], Token[]] | undefined {
  let l = 0;
  for (; l < g1.length && l < g2.length && g1[l]!.flag === Flag.None && g2[l]!.flag === Flag.None; l++) {
    if (!match(g1[l]!, g2[l]!)) return undefined;
  }
  if (l > 0) l--;
  let r1 = g1.length - 1;
  let r2 = g2.length - 1;
  for (
    ;
    r1 >= 0 && r1 >= l && r2 >= 0 && r2 >= l && g1[r1]!.flag === Flag.None && g2[r2]!.flag === Flag.None;
    r1--, r2--
  ) {
    if (!match(g1[r1]!, g2[r2]!)) return undefined;
  }
  if (r1 < g1.length - 1) {
    r1++;
    r2++;
  }
  return [g1.slice(l, r1 + 1), g2.slice(l, r2 + 1)];
}

// Offsets are packed into the memo key with 20 bits each.
const MAX_GLOB_RUNES = 0xfffff;

/** gintersect.NonEmpty(lhs, rhs); syntax errors throw GlobIntersectionError with the library's text. */
export function globsIntersect(lhs: string, rhs: string, onStep: () => void = () => {}): boolean {
  if (lhs.length > MAX_GLOB_RUNES || rhs.length > MAX_GLOB_RUNES)
    throw new GlobIntersectionError('glob too long to intersect');
  const g1 = simplify(tokenize(lhs));
  const g2 = simplify(tokenize(rhs));
  const trimmed = trimGlobs(g1, g2);
  if (trimmed === undefined) return false;
  return new Intersector(trimmed, onStep).normal(0, 0, 0);
}
