/**
 * Go's `strings` package semantics on JS strings. Go works on UTF-8 runes; these helpers work on
 * code points so that results match for every valid string (JS strings are UTF-16).
 */

/** Number of code points (Go's utf8.RuneCountInString). */
export function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const SURROGATE = /[\ud800-\udfff]/;

/** True when UTF-16 indices and code-point indices coincide. */
export function isBMPOnly(s: string): boolean {
  return !SURROGATE.test(s);
}

/** UTF-16 index → code-point index. */
export function runeIndex(s: string, utf16Index: number): number {
  return utf16Index === 0 ? 0 : runeCount(s.slice(0, utf16Index));
}

const ASCII = /^[\x00-\x7f]*$/;
const lowerCache = new Map<number, string>();
const upperCache = new Map<number, string>();

// NB: JS case mapping is the full (possibly multi-character, context-sensitive) mapping; Go's
// unicode.ToLower/ToUpper are the simple one-rune mappings. Map rune by rune and keep runes whose
// only mapping is a multi-rune one (ß stays ß in Go's ToUpper).
function mapRunes(s: string, cache: Map<number, string>, upper: boolean): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    let m = cache.get(cp);
    if (m === undefined) {
      if (!upper && cp === 0x130) m = 'i';
      else {
        const full = upper ? ch.toUpperCase() : ch.toLowerCase();
        m = runeCount(full) === 1 ? full : ch;
      }
      if (cache.size < 4096) cache.set(cp, m);
    }
    out += m;
  }
  return out;
}

/**
 * Last argument and result of toLower/toUpper. Policies lower the same prompt once per rule
 * (`contains(lower(t), …)`), and the mapping is pure, so one entry removes nearly all the repeats.
 * NB: the same string object compares in O(1); only texts up to LAST_MAX are kept, so the cache never
 * pins a huge input.
 */
const LAST_MAX = 1 << 16;
let lastLowerIn = '';
let lastLowerOut = '';
let lastUpperIn = '';
let lastUpperOut = '';

/** strings.ToLower */
export function toLower(s: string): string {
  if (s === lastLowerIn) return lastLowerOut;
  const r = ASCII.test(s) ? s.toLowerCase() : mapRunes(s, lowerCache, false);
  if (s.length <= LAST_MAX) {
    lastLowerIn = s;
    lastLowerOut = r;
  }
  return r;
}

/** strings.ToUpper */
export function toUpper(s: string): string {
  if (s === lastUpperIn) return lastUpperOut;
  const r = ASCII.test(s) ? s.toUpperCase() : mapRunes(s, upperCache, true);
  if (s.length <= LAST_MAX) {
    lastUpperIn = s;
    lastUpperOut = r;
  }
  return r;
}

/** unicode.IsSpace */
export function isSpace(cp: number): boolean {
  if (cp <= 0xff) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || cp === 0x85 || cp === 0xa0;
  return (
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

function codePointBefore(s: string, end: number): number {
  const c = s.charCodeAt(end - 1);
  if (c >= 0xdc00 && c <= 0xdfff && end >= 2) {
    const h = s.charCodeAt(end - 2);
    if (h >= 0xd800 && h <= 0xdbff) return s.codePointAt(end - 2)!;
  }
  return c;
}

function trimIndices(s: string, left: boolean, right: boolean, drop: (cp: number) => boolean): string {
  let start = 0;
  let end = s.length;
  if (left) {
    while (start < end) {
      const cp = s.codePointAt(start)!;
      if (!drop(cp)) break;
      start += cp > 0xffff ? 2 : 1;
    }
  }
  if (right) {
    while (end > start) {
      const cp = codePointBefore(s, end);
      if (!drop(cp)) break;
      end -= cp > 0xffff ? 2 : 1;
    }
  }
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

function cutsetPredicate(cutset: string): (cp: number) => boolean {
  if (cutset.length === 1) {
    const c = cutset.charCodeAt(0);
    return (cp) => cp === c;
  }
  const set = new Set<number>();
  for (const ch of cutset) set.add(ch.codePointAt(0)!);
  return (cp) => set.has(cp);
}

/** strings.Trim / TrimLeft / TrimRight: drop leading/trailing runes contained in cutset. */
export function trimCutset(s: string, cutset: string, left: boolean, right: boolean): string {
  if (s === '' || cutset === '') return s;
  return trimIndices(s, left, right, cutsetPredicate(cutset));
}

/** strings.TrimSpace */
export function trimSpace(s: string): string {
  return trimIndices(s, true, true, isSpace);
}

/** strings.Split: an empty separator splits into runes. */
export function split(s: string, sep: string): string[] {
  return sep === '' ? Array.from(s) : s.split(sep);
}

/** strings.Count: an empty substring counts rune boundaries (runes + 1). */
export function count(s: string, sub: string): number {
  if (sub === '') return runeCount(s) + 1;
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

interface Pair {
  readonly old: string;
  readonly new: string;
}

/**
 * strings.NewReplacer(old1, new1, old2, new2, …).Replace(s): one left-to-right pass without
 * overlapping matches; where several olds match at a position the earliest pair wins (Go's
 * priority), and an empty old matches at every rune boundary not right after an empty match.
 */
export class GoReplacer {
  private readonly byFirst = new Map<number, Pair[]>();
  private readonly emptyPair: Pair | undefined;
  private readonly emptyRank: number;
  private readonly rank = new Map<Pair, number>();

  constructor(pairs: readonly (readonly [string, string])[]) {
    let empty: Pair | undefined;
    let emptyRank = Infinity;
    pairs.forEach(([o, n], i) => {
      const p: Pair = { old: o, new: n };
      if (o === '') {
        if (empty === undefined) {
          empty = p;
          emptyRank = i;
        }
        return;
      }
      const k = o.charCodeAt(0);
      let list = this.byFirst.get(k);
      if (list === undefined) this.byFirst.set(k, (list = []));
      if (!list.some((q) => q.old === o)) {
        list.push(p);
        this.rank.set(p, i);
      }
    });
    this.emptyPair = empty;
    this.emptyRank = emptyRank;
  }

  replace(s: string, onStep?: () => void): string {
    if (this.emptyPair === undefined && this.byFirst.size === 1) {
      const [only] = this.byFirst.values();
      if (only!.length === 1) return s.split(only![0]!.old).join(only![0]!.new);
    }
    let out = '';
    let last = 0;
    let prevMatchEmpty = false;
    for (let i = 0; i <= s.length;) {
      if ((i & 0xfff) === 0 && onStep) onStep();
      let best: Pair | undefined;
      let bestRank = Infinity;
      if (i < s.length) {
        const list = this.byFirst.get(s.charCodeAt(i));
        if (list !== undefined) {
          for (const p of list) {
            const r = this.rank.get(p)!;
            if (r < bestRank && s.startsWith(p.old, i)) {
              best = p;
              bestRank = r;
            }
          }
        }
      }
      if (this.emptyPair !== undefined && !prevMatchEmpty && this.emptyRank < bestRank) best = this.emptyPair;
      prevMatchEmpty = best !== undefined && best.old === '';
      if (best !== undefined) {
        out += s.slice(last, i) + best.new;
        i += best.old.length;
        last = i;
        continue;
      }
      const c = s.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    }
    if (last < s.length) out += s.slice(last);
    return out;
  }
}
