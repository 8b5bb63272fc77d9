/**
 * Matching with a parsed gobwas/glob pattern: the glob is compiled to a Thompson NFA and run as a
 * state set, so matching is O(len(pattern) × len(input)) whatever the pattern — no backtracking on
 * `*` or `**`. Separators are code points that `*` does not cross (`**` does).
 */
import { LRU } from '../lru/index.js';
import { GlobError, parseGlob, type GlobNode } from './syntax.js';

const MAX_NESTING = 1000;

const enum Op {
  Char, // consume arg
  NonSep, // consume any rune that is not a separator
  AnyRune, // consume any rune
  Class, // consume a rune in / not in classes[arg]
  Split, // epsilon to out and out2
  Jump, // epsilon to out
  Match,
}

interface CharClass {
  readonly chars: ReadonlySet<number> | undefined;
  readonly lo: number;
  readonly hi: number;
  readonly not: boolean;
}

/** A compiled glob. */
export class GlobMatcher {
  private readonly op: Op[] = [];
  private readonly arg: number[] = [];
  private readonly out: number[] = [];
  private readonly out2: number[] = [];
  private readonly classes: CharClass[] = [];
  private readonly start: number;
  /** Set when the whole glob is literal text: matching is a string comparison. */
  private readonly literal: string | undefined;

  constructor(
    root: GlobNode,
    private readonly separators: ReadonlySet<number>,
  ) {
    this.literal = literalOf(root);
    const match = this.add(Op.Match, 0, -1);
    this.start = this.compile(root, match);
  }

  private add(op: Op, arg: number, out: number, out2 = -1): number {
    this.op.push(op);
    this.arg.push(arg);
    this.out.push(out);
    this.out2.push(out2);
    return this.op.length - 1;
  }

  /** Compiles node so that it continues at `next`; returns its entry state. */
  private compile(node: GlobNode, next: number, depth = 0): number {
    // NB: gobwas recurses without limit in Go; JS stacks are small, so refuse absurd nesting.
    if (depth > MAX_NESTING) throw new GlobError(`glob nesting deeper than ${MAX_NESTING} levels is not supported`);
    switch (node.kind) {
      case 'pattern': {
        let s = next;
        for (let i = node.children.length - 1; i >= 0; i--) s = this.compile(node.children[i]!, s, depth + 1);
        return s;
      }
      case 'anyOf': {
        if (node.children.length === 0) return next;
        let s = this.compile(node.children[node.children.length - 1]!, next, depth + 1);
        for (let i = node.children.length - 2; i >= 0; i--)
          s = this.add(Op.Split, 0, this.compile(node.children[i]!, next, depth + 1), s);
        return s;
      }
      case 'text': {
        let s = next;
        for (let i = node.runes.length - 1; i >= 0; i--) s = this.add(Op.Char, node.runes[i]!, s);
        return s;
      }
      case 'single':
        return this.add(Op.NonSep, 0, next);
      case 'any':
      case 'super': {
        // loop: split(consume → loop, next)
        const loop = this.add(Op.Split, 0, -1, next);
        const consume = this.add(node.kind === 'any' ? Op.NonSep : Op.AnyRune, 0, loop);
        this.out[loop] = consume;
        return loop;
      }
      case 'list':
      case 'range': {
        this.classes.push(
          node.kind === 'list'
            ? { chars: new Set(node.chars), lo: 0, hi: -1, not: node.not }
            : { chars: undefined, lo: node.lo, hi: node.hi, not: node.not },
        );
        return this.add(Op.Class, this.classes.length - 1, next);
      }
    }
  }

  private consumes(state: number, r: number): boolean {
    switch (this.op[state]) {
      case Op.Char:
        return this.arg[state] === r;
      case Op.NonSep:
        return !this.separators.has(r);
      case Op.AnyRune:
        return true;
      case Op.Class: {
        const c = this.classes[this.arg[state]!]!;
        const inside = c.chars !== undefined ? c.chars.has(r) : r >= c.lo && r <= c.hi;
        return inside !== c.not;
      }
      default:
        return false;
    }
  }

  match(s: string): boolean {
    if (this.literal !== undefined) return s === this.literal;
    const n = this.op.length;
    const mark = new Int32Array(n).fill(-1);
    let cur: number[] = [];
    let nxt: number[] = [];
    const stack: number[] = [];
    let gen = 0;
    const addClosure = (list: number[], s0: number): void => {
      stack.push(s0);
      while (stack.length > 0) {
        const s = stack.pop()!;
        if (s < 0 || mark[s] === gen) continue;
        mark[s] = gen;
        const op = this.op[s];
        if (op === Op.Split) {
          stack.push(this.out2[s]!, this.out[s]!);
        } else if (op === Op.Jump) stack.push(this.out[s]!);
        else list.push(s);
      }
    };
    addClosure(cur, this.start);
    for (const ch of s) {
      if (cur.length === 0) return false;
      const r = ch.codePointAt(0)!;
      gen++;
      nxt.length = 0;
      for (const st of cur) if (this.consumes(st, r)) addClosure(nxt, this.out[st]!);
      [cur, nxt] = [nxt, cur];
    }
    return cur.some((st) => this.op[st] === Op.Match);
  }
}

function literalOf(root: GlobNode): string | undefined {
  if (root.kind !== 'pattern') return undefined;
  let s = '';
  for (const c of root.children) {
    if (c.kind !== 'text') return undefined;
    s += String.fromCodePoint(...c.runes);
  }
  return s;
}

const cache = new LRU<GlobMatcher>(256);
const MAX_CACHED_PATTERN = 4096;

/** Compiles (or fetches from the cache) a glob with the given separator runes. */
export function compileGlob(pattern: string, delimiters: readonly number[]): GlobMatcher {
  const key = `${pattern}-${String.fromCodePoint(...delimiters)}`;
  let m = cache.get(key);
  if (m === undefined) {
    m = new GlobMatcher(parseGlob(pattern), new Set(delimiters));
    if (pattern.length <= MAX_CACHED_PATTERN) cache.set(key, m);
  }
  return m;
}
