import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import {
  ANY,
  CASELESS,
  MAX_CP,
  PERL,
  POSIX,
  Untranslatable,
  complement,
  emitSet,
  fold,
  intersect,
  normalize,
  union,
} from './charset.js';

/** Every code point but the surrogates, as one string; [string index] → code point via codePointAt. */
const ALL = (() => {
  const parts: string[] = [];
  for (let cp = 0; cp <= MAX_CP; cp++) if (cp < 0xd800 || cp > 0xdfff) parts.push(String.fromCodePoint(cp));
  return parts.join('');
})();

/** The code points re2js matches with a one-code-point pattern, as ranges (surrogates excluded). */
function re2Set(pattern: string): number[] {
  const m = RE2JS.compile(`(?:${pattern})+`).matcher(ALL);
  const out: number[] = [];
  for (let pos = 0; m.find(pos); pos = m.end(0)) {
    const last = ALL.codePointAt(m.end(0) - 1)!;
    out.push(ALL.codePointAt(m.start(0))!, last >= 0xdc00 && last <= 0xdfff ? ALL.codePointAt(m.end(0) - 2)! : last);
  }
  return normalize(out);
}

const noSurrogates = (set: readonly number[]): number[] => intersect(set, [0, 0xd7ff, 0xe000, MAX_CP]);
const re2Class = (set: readonly number[]): string => {
  let s = '[';
  for (let i = 0; i < set.length; i += 2) s += `\\x{${set[i]!.toString(16)}}-\\x{${set[i + 1]!.toString(16)}}`;
  return `${s}]`;
};

describe('RE2 named classes', () => {
  const named: [string, readonly number[]][] = [
    ['\\d', PERL.d!],
    ['\\s', PERL.s!],
    ['\\w', PERL.w!],
    ...Object.entries(POSIX).map(([name, set]): [string, readonly number[]] => [`[[:${name}:]]`, set]),
  ];
  it.each(named)('%s is the same set as in re2js', (pattern, set) => {
    expect(re2Set(pattern)).toEqual(noSurrogates(set));
  });
});

describe('case folding', () => {
  const candidates = [...Array(128).keys(), 0x17f, 0x212a];
  const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];
  it.each(letters)('the orbit of %s equals re2js’s among ASCII, ſ and K', (letter) => {
    const cp = letter.codePointAt(0)!;
    const re = RE2JS.compile(`(?i)^${letter}$`);
    const want = candidates.filter((c) => re.test(String.fromCodePoint(c)));
    const got = candidates.filter((c) => intersect(fold([cp, cp]), [c, c]).length > 0);
    expect(got).toEqual(want);
  });

  it('adds no code point outside ASCII, ſ and K to any ASCII letter (whole code space)', () => {
    expect(re2Set('(?i)[A-Za-z]')).toEqual(fold([0x41, 0x5a, 0x61, 0x7a]));
  });

  it('leaves the caseless ranges alone, as re2js does (whole code space)', () => {
    expect(fold(CASELESS)).toEqual(CASELESS);
    expect(re2Set(`(?i)${re2Class(CASELESS)}`)).toEqual(noSurrogates(CASELESS));
    // …and nothing else outside ASCII, ſ and K passes fold() unrefused.
    const proved = union(CASELESS, [0, 0x7f, 0x17f, 0x17f, 0x212a, 0x212a]);
    const outside = complement(proved);
    for (let i = 0; i < outside.length; i += 2) {
      expect(() => fold([outside[i]!, outside[i]!])).toThrow(Untranslatable);
      expect(() => fold([outside[i + 1]!, outside[i + 1]!])).toThrow(Untranslatable);
    }
  });

  it('refuses to fold cased non-ASCII letters', () => {
    expect(() => fold([0xe9, 0xe9])).toThrow(Untranslatable); // é
    expect(() => fold([0xb5, 0xb5])).toThrow(Untranslatable); // µ ~ μ ~ Μ
    expect(() => fold(ANY)).toThrow(Untranslatable);
  });
});

describe('emitSet', () => {
  const range = fc
    .tuple(fc.integer({ min: 0, max: MAX_CP }), fc.integer({ min: 0, max: 0x3000 }))
    .map(([lo, len]) => [lo, Math.min(MAX_CP, lo + len)]);
  const set = fc.array(range, { maxLength: 6 }).map((rs) => normalize(rs.flat()));

  it('matches exactly one code point of the set, never half a surrogate pair', () => {
    fc.assert(
      fc.property(set, fc.boolean(), (s, negate) => {
        const members = negate ? complement(s) : s;
        const re = new RegExp(`^(?:${emitSet(members).src})$`);
        const probes = new Set<number>([0, 0xffff, 0x10000, MAX_CP, 0xe000, 0xd7ff]);
        for (let i = 0; i < members.length; i++) for (const d of [-1, 0, 1]) probes.add(members[i]! + d);
        for (const cp of probes) {
          if (cp < 0 || cp > MAX_CP || (cp >= 0xd800 && cp <= 0xdfff)) continue;
          const inSet = intersect(members, [cp, cp]).length > 0;
          expect(re.test(String.fromCodePoint(cp))).toBe(inSet);
        }
        expect(re.test('\ud83d')).toBe(false);
        expect(re.test('\ude00')).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('is a single atom when the set is BMP-only', () => {
    expect(emitSet(union(PERL.d!, PERL.s!))).toEqual({ src: '[\\x09\\x0a\\x0c\\x0d\\x200-9]', atomic: true });
    expect(emitSet([0x61, 0x61]).src).toBe('a');
    expect(emitSet([]).src).toBe('[]');
  });
});
