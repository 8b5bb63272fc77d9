/**
 * String builtins (OPA v1/topdown/strings.go). Indices and lengths count code points, as OPA counts
 * runes; case mapping, trimming and replacing follow Go's `strings` package (lib/gostrings).
 */
import { BuiltinError, operandElementError, operandError, operandErrorText } from '../../errors.js';
import { T, type Type } from '../../types.js';
import { NumLit, RObject, RSet, type Value } from '../../value.js';
import { int, num, obj, str } from '../args.js';
import type { BuiltinContext, BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';
import { MAX_RESULT_CHARS, chargeChars, textUnits } from '../limits.js';
import { renderTemplateValue } from './render-template.js';
import {
  GoReplacer,
  count,
  isBMPOnly,
  runeCount,
  runeIndex,
  split,
  toLower,
  toUpper,
  trimCutset,
  trimSpace,
} from '../../lib/gostrings/index.js';

const S = T.string;
const stringOrCollection = T.anyOf(S, T.set(S), T.array(S));

const decls: Record<string, Omit<BuiltinDecl, 'name'>> = {
  concat: { args: [S, T.anyOf(T.set(S), T.array(S))], result: S },
  contains: { args: [S, S], result: T.boolean },
  startswith: { args: [S, S], result: T.boolean },
  endswith: { args: [S, S], result: T.boolean },
  format_int: { args: [T.number, T.number], result: S },
  indexof: { args: [S, S], result: T.number },
  indexof_n: { args: [S, S], result: T.array(T.number) },
  lower: { args: [S], result: S },
  upper: { args: [S], result: S },
  replace: { args: [S, S, S], result: S },
  split: { args: [S, S], result: T.array(S) },
  'strings.split_n': { args: [S, S, T.number], result: T.array(S) },
  substring: { args: [S, T.number, T.number], result: S },
  trim: { args: [S, S], result: S },
  trim_left: { args: [S, S], result: S },
  trim_right: { args: [S, S], result: S },
  trim_prefix: { args: [S, S], result: S },
  trim_suffix: { args: [S, S], result: S },
  trim_space: { args: [S], result: S },
  'strings.any_prefix_match': { args: [stringOrCollection, stringOrCollection], result: T.boolean },
  'strings.any_suffix_match': { args: [stringOrCollection, stringOrCollection], result: T.boolean },
  'strings.count': { args: [S, S], result: T.number },
  'strings.replace_n': { args: [T.object(S, S), S], result: S },
  'strings.reverse': { args: [S], result: S },
  'strings.render_template': { args: [S, T.object(S, T.any)], result: S },
};

/** A string, or the strings of an array/set (OPA's operand handling in any_prefix_match). */
function stringList(args: readonly Value[], i: number): string[] {
  const v = args[i]!;
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) || v instanceof RSet) {
    const items = Array.isArray(v) ? v : v.values();
    return items.map((x) => {
      if (typeof x !== 'string') throw operandElementError(i + 1, v, x, 'string');
      return x;
    });
  }
  throw operandError(i + 1, ['string', 'set', 'array'], v);
}

function codePoints(s: string): string[] {
  return Array.from(s);
}

const concat: BuiltinImpl = (args, ctx) => {
  const sep = str(args, 0);
  const coll = args[1]!;
  if (!Array.isArray(coll) && !(coll instanceof RSet)) throw operandError(2, ['set', 'array'], coll);
  const items = Array.isArray(coll) ? coll : coll.values();
  let chars = 0;
  for (const x of items) {
    if (typeof x !== 'string') throw operandElementError(2, coll, x, 'string');
    chars += x.length + sep.length;
  }
  chargeChars(ctx, chars - sep.length);
  return (items as string[]).join(sep);
};

const formatInt: BuiltinImpl = (args) => {
  const x = num(args, 0);
  const base = num(args, 1);
  // NB: OPA matches the base by its text, so `16.0` is not a base.
  const radix = typeof base === 'number' && !(args[1] instanceof NumLit) ? base : Number.NaN;
  if (radix !== 2 && radix !== 8 && radix !== 10 && radix !== 16) {
    throw operandErrorText(2, 'must be one of {2, 8, 10, 16}');
  }
  // NB: OPA truncates toward zero (big.Float.Int), so format_int(-1.5, 10) is "-1".
  const i = typeof x === 'bigint' ? x : BigInt(Math.trunc(x));
  return i.toString(radix);
};

function indexOfRunes(args: readonly Value[]): [string, string] {
  const s = str(args, 0);
  const search = str(args, 1);
  if (search === '') throw new BuiltinError('empty search character');
  return [s, search];
}

const indexof: BuiltinImpl = (args) => {
  const [s, search] = indexOfRunes(args);
  const i = s.indexOf(search);
  return i < 0 ? -1 : runeIndex(s, i);
};

const indexofN: BuiltinImpl = (args, ctx) => {
  const [s, search] = indexOfRunes(args);
  const out: number[] = [];
  let runes = 0;
  let from = 0;
  for (let i = s.indexOf(search); i >= 0; i = s.indexOf(search, i + 1)) {
    runes += runeCount(s.slice(from, i));
    from = i;
    out.push(runes);
    if ((out.length & 0x3ff) === 0) ctx.checkDeadline();
  }
  return out;
};

const substring: BuiltinImpl = (args) => {
  const s = str(args, 0);
  const start = int(args, 1);
  const length = int(args, 2);
  if (start < 0) throw new BuiltinError('negative offset');
  if (isBMPOnly(s)) {
    if (start >= s.length) return '';
    return length < 0 ? s.slice(start) : s.slice(start, start + length);
  }
  const runes = codePoints(s);
  if (start >= runes.length) return '';
  return (length < 0 ? runes.slice(start) : runes.slice(start, start + length)).join('');
};

const splitImpl: BuiltinImpl = (args) => {
  const s = str(args, 0);
  const sep = str(args, 1);
  if (!s.includes(sep)) return [s];
  return split(s, sep);
};

/**
 * strings.split_n (OPA 1.20): the first n parts of the split for n > 0, the last |n| for n < 0,
 * none for 0; all parts when |n| exceeds their number. Unlike Go's SplitN no part keeps the
 * unsplit remainder. An empty delimiter splits into runes, as split does.
 */
const splitN: BuiltinImpl = (args) => {
  const s = str(args, 0);
  const sep = str(args, 1);
  const n = int(args, 2);
  if (n === 0) return [];
  if (n > 0) return sep === '' ? Array.from(s).slice(0, n) : s.split(sep, Math.min(n, 0xffff_ffff));
  const parts = split(s, sep);
  return parts.slice(Math.max(parts.length + n, 0));
};

const replace: BuiltinImpl = (args, ctx) => {
  const s = str(args, 0);
  const old = str(args, 1);
  const rep = str(args, 2);
  if (old === '') {
    if (s === '') return rep;
    const cps = codePoints(s);
    chargeChars(ctx, s.length + (cps.length + 1) * rep.length);
    return rep + cps.join(rep) + rep;
  }
  const parts = s.split(old);
  chargeChars(ctx, s.length + (parts.length - 1) * (rep.length - old.length));
  return parts.join(rep);
};

const replaceN: BuiltinImpl = (args, ctx) => {
  const patterns = obj(args, 0);
  const s = str(args, 1);
  const pairs: [string, string][] = [];
  for (const [k, v] of patterns.entries()) {
    if (typeof k !== 'string') throw operandErrorText(1, 'non-string key found in pattern object');
    if (typeof v !== 'string') throw operandErrorText(1, 'non-string value found in pattern object');
    pairs.push([k, v]);
  }
  // NB: a bound past the limit is not refused (few keys may occur); the result is checked instead.
  const bound = replacedBound(pairs, s.length);
  if (bound <= MAX_RESULT_CHARS) ctx.charge(textUnits(bound));
  return new GoReplacer(pairs).replace(s, () => ctx.checkDeadline());
};

/**
 * The longest result strings.replace_n can build from a text of n characters: every position
 * (an empty key matches between all of them) or every shortest key replaced by the longest value.
 */
function replacedBound(pairs: readonly [string, string][], n: number): number {
  let minKey = Infinity;
  let maxValue = 0;
  for (const [k, v] of pairs) {
    minKey = Math.min(minKey, k.length);
    maxValue = Math.max(maxValue, v.length);
  }
  if (pairs.length === 0 || maxValue <= minKey) return n;
  return n + (Math.floor(n / Math.max(1, minKey)) + 1) * maxValue;
}

function anyMatch(args: readonly Value[], suffix: boolean): boolean {
  const strs = stringList(args, 0);
  const fixes = stringList(args, 1);
  for (const f of fixes) {
    for (const s of strs) if (suffix ? s.endsWith(f) : s.startsWith(f)) return true;
  }
  return false;
}

const twoStrings =
  (fn: (a: string, b: string) => Value): BuiltinImpl =>
  (args) =>
    fn(str(args, 0), str(args, 1));

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  concat,
  contains: twoStrings((a, b) => a.includes(b)),
  startswith: twoStrings((a, b) => a.startsWith(b)),
  endswith: twoStrings((a, b) => a.endsWith(b)),
  format_int: formatInt,
  indexof,
  indexof_n: indexofN,
  lower: (args) => toLower(str(args, 0)),
  upper: (args) => toUpper(str(args, 0)),
  replace,
  split: splitImpl,
  'strings.split_n': splitN,
  substring,
  trim: twoStrings((s, c) => trimCutset(s, c, true, true)),
  trim_left: twoStrings((s, c) => trimCutset(s, c, true, false)),
  trim_right: twoStrings((s, c) => trimCutset(s, c, false, true)),
  trim_prefix: twoStrings((s, p) => (s.startsWith(p) ? s.slice(p.length) : s)),
  trim_suffix: twoStrings((s, p) => (p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s)),
  trim_space: (args) => trimSpace(str(args, 0)),
  'strings.any_prefix_match': (args) => anyMatch(args, false),
  'strings.any_suffix_match': (args) => anyMatch(args, true),
  'strings.count': twoStrings(count),
  'strings.replace_n': replaceN,
  'strings.reverse': (args) => codePoints(str(args, 0)).reverse().join(''),
  'strings.render_template': (args: readonly Value[], ctx: BuiltinContext) => {
    const tpl = str(args, 0);
    const vars: RObject = obj(args, 1);
    return renderTemplateValue(tpl, vars, () => ctx.checkDeadline());
  },
};

export function register(r: BuiltinRegistry): void {
  for (const [name, d] of Object.entries(decls) as [keyof typeof decls, { args: Type[]; result: Type }][]) {
    r.add({ name, ...d }, impls[name]);
  }
}
