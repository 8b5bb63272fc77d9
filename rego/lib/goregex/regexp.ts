/**
 * Go's regexp API (MatchString, FindAllStringSubmatchIndex, Split, Expand) on re2js,
 * which is RE2 — the same syntax and linear-time automata as Go's regexp package. The loops that
 * turn single matches into "all matches" are Go's own (empty matches abutting a previous match are
 * skipped, the scan steps a whole code point past an empty match), so results agree with Go's.
 * Positions are UTF-16 indices into the JS string.
 * Matching runs on V8's own RegExp instead whenever native.ts proves that equivalent and
 * linear-time safe; callers cannot tell the difference except by speed.
 */
import type { RE2JS, Matcher } from 're2js';
import { compileNative, nativeAffordable, nativeInput, type NativeRegex } from './native.js';

function containsAll(s: string, texts: readonly string[], from: number): boolean {
  for (let i = 0; i < texts.length; i++) if (s.indexOf(texts[i]!, from) < 0) return false;
  return true;
}

/** One search over one text: the first match at or after a position, and its groups. */
interface Search {
  find(pos: number): boolean;
  start: number;
  end: number;
  /** The text of group i in the last match; undefined when it did not take part. */
  group(i: number): string | undefined;
}

class Re2Search implements Search {
  start = 0;
  end = 0;
  private readonly m: Matcher;
  constructor(re: RE2JS, s: string) {
    this.m = re.matcher(s);
  }
  find(pos: number): boolean {
    if (!this.m.find(pos)) return false;
    this.start = this.m.start(0);
    this.end = this.m.end(0);
    return true;
  }
  group(i: number): string | undefined {
    return this.m.group(i) ?? undefined;
  }
}

class NativeSearch implements Search {
  start = 0;
  end = 0;
  private m: RegExpExecArray | null = null;
  constructor(
    private readonly re: RegExp,
    private readonly required: readonly string[],
    private readonly s: string,
  ) {}
  find(pos: number): boolean {
    if (!containsAll(this.s, this.required, pos)) return false;
    this.re.lastIndex = pos;
    const m = this.re.exec(this.s);
    this.m = m;
    if (m === null) return false;
    this.start = m.index;
    this.end = m.index + m[0].length;
    return true;
  }
  group(i: number): string | undefined {
    return this.m![i];
  }
}

/** A compiled pattern. Construct via compileRegexp (compile.ts, cached). */
export class GoRegexp {
  readonly numSubexp: number;
  private readonly names: Record<string, number>;
  /**
   * @param nat the native form: undefined (default) to translate on first use, null for re2js
   *   only; tests pass one explicitly (e.g. compiled for V8's linear engine).
   */
  constructor(
    readonly pattern: string,
    private readonly re: RE2JS,
    private nat?: NativeRegex | null,
  ) {
    this.numSubexp = re.groupCount();
    this.names = re.namedGroups();
  }

  /** Whether text s is matched natively (else on re2js); for tests and diagnostics. */
  isNative(s: string, needGroups = false): boolean {
    return this.native(s, needGroups) !== undefined;
  }

  /** The translation, if any; made on first use, not at compile. */
  private translation(): NativeRegex | null {
    if (this.nat === undefined) this.nat = compileNative(this.pattern) ?? null;
    return this.nat;
  }

  /**
   * The native regexp to use on text s, if any: only when the translation exists, the text is
   * well-formed, and the worst case of a native run on it is bounded (nativeAffordable).
   */
  private native(s: string, needGroups: boolean): NativeRegex | undefined {
    const n = this.translation();
    if (n === null || (needGroups && !n.groupsExact) || !nativeAffordable(n, s.length) || !nativeInput(s))
      return undefined;
    return n;
  }

  private search(s: string, needGroups: boolean): Search {
    const n = this.native(s, needGroups);
    return n !== undefined ? new NativeSearch(n.re, n.required, s) : new Re2Search(this.re, s);
  }

  matchString(s: string): boolean {
    // The required texts hold whichever engine runs (they come from the pattern).
    const t = this.translation();
    if (t !== null && !containsAll(s, t.required, 0)) return false;
    const n = this.native(s, false);
    if (n === undefined) return this.re.test(s);
    n.re.lastIndex = 0;
    return n.re.test(s);
  }

  /**
   * Go's FindAll loop over successive non-overlapping matches, at most n (n < 0: all); calls
   * visit for each reported match while the search holds it.
   */
  private scan(s: string, n: number, srch: Search, visit: (m: Search) => void, onStep?: () => void): void {
    const limit = n < 0 ? Infinity : n;
    const end = s.length;
    let prevMatchEnd = -1;
    for (let pos = 0, count = 0; count < limit && pos <= end;) {
      if (!srch.find(pos)) break;
      const a = srch.start;
      const b = srch.end;
      let accept = true;
      if (b === pos) {
        // An empty match right after the previous match is not reported.
        if (a === prevMatchEnd) accept = false;
        pos += pos < end ? codePointWidth(s, pos) : 1;
      } else pos = b;
      prevMatchEnd = b;
      if (accept) {
        visit(srch);
        count++;
        if (onStep && (count & 0xff) === 0) onStep();
      }
    }
  }

  /** FindAllStringIndex: match bounds as a flat list [start0, end0, start1, end1, …]. */
  findAllIndex(s: string, n: number, onStep?: () => void): number[] {
    const out: number[] = [];
    this.scan(s, n, this.search(s, false), (m) => out.push(m.start, m.end), onStep);
    return out;
  }

  /** FindAllStringSubmatch: each match's group texts, '' for groups that did not take part. */
  findAllSubmatch(s: string, n: number, onStep?: () => void): string[][] {
    const out: string[][] = [];
    const visit = (m: Search): void => {
      const groups: string[] = [];
      for (let i = 0; i <= this.numSubexp; i++) groups.push(m.group(i) ?? '');
      out.push(groups);
    };
    this.scan(s, n, this.search(s, true), visit, onStep);
    return out;
  }

  /** regexp.Split(s, n) */
  split(s: string, n: number): string[] {
    if (n === 0) return [];
    if (this.pattern.length > 0 && s.length === 0) return [''];
    const parts: string[] = [];
    let beg = 0;
    let endPos = 0;
    const bounds = this.findAllIndex(s, n);
    for (let i = 0; i < bounds.length; i += 2) {
      if (n > 0 && parts.length === n - 1) break;
      endPos = bounds[i]!;
      if (bounds[i + 1] !== 0) parts.push(s.slice(beg, endPos));
      beg = bounds[i + 1]!;
    }
    if (endPos !== s.length) parts.push(s.slice(beg));
    return parts;
  }

  /**
   * regex.replace as OPA 1.20 runs it: find the first match in the text not yet consumed, copy
   * what precedes it, append the expanded replacement, continue after the match. Because each
   * search starts a fresh text, `^` and `\b` see the remainder's start as the text's start (so
   * `^a` replaces every leading "a" of "aaa"), unlike Go's ReplaceAllString.
   * NB: OPA never advances past an empty match and spins until the query is cancelled; here an
   * empty match moves on by one code point instead, as ReplaceAllString does.
   */
  replaceOPA(src: string, repl: string, onStep?: () => void): string {
    // Remainders are cut at code-point boundaries, so one check of src covers them all.
    const needGroups = repl.includes('$');
    const nat = this.native(src, needGroups);
    let out = '';
    let start = 0;
    let afterMatch = false;
    for (let steps = 1; ; steps++) {
      if (onStep && (steps & 0xff) === 0) onStep();
      const rest = start === 0 ? src : src.slice(start);
      const m: Search = nat !== undefined ? new NativeSearch(nat.re, nat.required, rest) : new Re2Search(this.re, rest);
      if (!m.find(0)) return out + rest;
      if (m.end > 0) {
        out += rest.slice(0, m.start) + this.expand(repl, m);
        start += m.end;
        afterMatch = true;
        continue;
      }
      // An empty match at the very start: replace it unless it is where the last match ended.
      if (!afterMatch) out += this.expand(repl, m);
      afterMatch = false;
      if (rest.length === 0) return out;
      const w = codePointWidth(rest, 0);
      out += rest.slice(0, w);
      start += w;
    }
  }

  /** regexp.Expand for a string template, with the groups of the search's current match. */
  private expand(template: string, match: Search): string {
    if (!template.includes('$')) return template;
    let out = '';
    let t = template;
    for (;;) {
      const i = t.indexOf('$');
      if (i < 0) break;
      out += t.slice(0, i);
      t = t.slice(i + 1);
      if (t.startsWith('$')) {
        out += '$';
        t = t.slice(1);
        continue;
      }
      const ref = extractRef(t);
      if (ref === undefined) {
        out += '$'; // malformed: the $ stays as text
        continue;
      }
      t = ref.rest;
      let group = ref.num;
      if (group < 0) group = this.names[ref.name] ?? -1;
      if (group >= 0 && group <= this.numSubexp) out += match.group(group) ?? '';
    }
    return out + t;
  }
}

function codePointWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

const NAME_CHAR = /[\p{L}\p{Nd}_]/u;

/** Go's regexp extract: `name` or `{name}` after a `$`; num is the group number or -1. */
function extractRef(t: string): { name: string; num: number; rest: string } | undefined {
  if (t === '') return undefined;
  const brace = t[0] === '{';
  const body = brace ? t.slice(1) : t;
  let i = 0;
  for (const ch of body) {
    if (!NAME_CHAR.test(ch)) break;
    i += ch.length;
  }
  if (i === 0) return undefined;
  const name = body.slice(0, i);
  if (brace) {
    if (body[i] !== '}') return undefined;
    i++;
  }
  let num = 0;
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 48 || c > 57 || num >= 1e8) {
      num = -1;
      break;
    }
    num = num * 10 + (c - 48);
  }
  if (name[0] === '0' && name.length > 1) num = -1;
  return { name, num, rest: body.slice(i) };
}
