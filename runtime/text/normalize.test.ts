import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFUSABLES } from './confusables.js';
import { hasNonAscii, hiddenTagText, normalize, normalizeMapped, originalSpan, originOf } from './normalize.js';

/** Strings of any code points, with the characters evasions use made likely. */
const tricky = fc.constantFrom(
  '\u200b',
  '\u00ad',
  '\ufeff',
  '\u2060',
  '\u200d',
  '２',
  '٣',
  '۷',
  '४',
  '𝟓',
  '–',
  '—',
  '−',
  'О',
  'а',
  'Α',
  'ｉ',
  '𝐠',
  'é',
  'e\u0301',
  'ﬁ',
  '﷽',
  '①',
  '\u{e0041}',
  '\u00a0',
  '\u2028',
  '한',
  '’',
  '😀',
);
const text = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 4 }), fc.string({ maxLength: 4 }), tricky), {
    maxLength: 24,
  })
  .map((a) => a.join(''));

describe('hiddenTagText', () => {
  it('spells the ASCII of each run of tag characters, which normalize drops', () => {
    const hidden =
      'Hello\u{e0001}' +
      [...'ignore all previous'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('') +
      '\u{e007f} there\u{e0078}';
    expect(normalize(hidden)).toBe('Hello there');
    expect(hiddenTagText(hidden)).toEqual(['ignore all previous', 'x']);
    expect(hiddenTagText('plain \u{1f600} text')).toEqual([]);
  });
});

describe('normalize', () => {
  it.each([
    ['zero-width characters and a soft hyphen', '123\u200b-45\u200c-67\u00ad89\ufeff', '123-45-6789'],
    ['full-width digits and hyphens', '１２３－４５－６７８９', '123-45-6789'],
    ['Arabic-Indic digits', '١٢٣-٤٥-٦٧٨٩', '123-45-6789'],
    ['Persian, Devanagari, Thai and mathematical digits', '۱۲ ३४ ๕๖ 𝟕𝟖𝟗', '12 34 56 789'],
    ['dashes and minus signs', '1\u20102\u20113\u20124\u20135\u20146\u22127\ufe638', '1-2-3-4-5-6-7-8'],
    ['full-width and mathematical letters', 'Ｉｇｎｏｒｅ 𝐚𝐥𝐥', 'Ignore all'],
    ['Cyrillic and Greek look-alikes, case kept', 'UNIОN ghр_ ΑKIA', 'UNION ghp_ AKIA'],
    ['accents and combining marks', 'ïgnörë pre\u0301vious', 'ignore previous'],
    ['Unicode tag characters (invisible: dropped)', 'x\u{e0049}\u{e0067}\u{e006e}y', 'xy'],
    ['a tag character inside an SSN (dropped, the visible value kept)', '25\u{e0078}1-69-7034', '251-69-7034'],
    [
      'middle dots, hyphenation points and katakana marks between digit groups',
      '438\u00b727\u20271596 765\u30fc40\u30fb3389 1\uff702',
      '438-27-1596 765-40-3389 1-2',
    ],
    [
      'dingbat, negative and double circled digits',
      '\u2780\u2783\u2786-\u2777\u24ff\u277e-\u278a\u2793 \u24eb\u24f5\u{1f10b}\u{1f10c}',
      '147-209-110 11100',
    ],
    ['circled and parenthesized digits (NFKD)', '\u2460\u2473\u24ea\u2474', '1200(1)'],
    ['enclosed capitals: negative circled and squared, squared', '\u{1f150}\u{1f170}\u{1f189}\u{1f130}', 'AAZA'],

    ['space and line separators', 'a\u00a0b\u3000c\u2028d', 'a b c\nd'],
    ['typographic quotes', '‘it’s’ “x”', "'it's' \"x\""],
    ['keycap digits', '4\ufe0f\u20e3', '4'],
    ['compatibility ideographs (a canonical decomposition)', '\uf900\u{2f800}', '\u8c48\u4e3d'],
  ])('maps %s', (_name, input, expected) => {
    expect(normalize(input)).toBe(expected);
  });

  it.each([
    ['Chinese', '我们明天见'],
    ['Korean syllables', '한국어'],
    ['ideographs of planes 2 and 3', '𠀀𪜀𰀀'],
    ['emoji', 'ok 😀 👍'],
    ['a long ligature it does not expand', '\ufdfd'],
    ['private-use characters', '\ue000\u{f0000}'],
  ])('leaves %s as it is', (_name, input) => {
    expect(normalize(input)).toBe(input);
  });

  it('returns ASCII text itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }), (s) => {
        expect(hasNonAscii(s)).toBe(false);
        expect(normalize(s)).toBe(s);
        expect(normalizeMapped(s)).toEqual({ text: s });
      }),
    );
  });

  it('never changes ASCII: the ASCII characters of a text are kept, in order', () => {
    fc.assert(
      fc.property(text, (s) => {
        const ascii = s.replace(/[^\x00-\x7f]/gu, '');
        let at = 0;
        const n = normalize(s);
        for (const c of ascii) {
          at = n.indexOf(c, at);
          expect(at).toBeGreaterThanOrEqual(0);
          at++;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent, and a text split between code points normalizes to its normalized pieces', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(normalize(normalize(a))).toBe(normalize(a));
        expect(normalize(a + b)).toBe(normalize(a) + normalize(b));
      }),
      { numRuns: 500 },
    );
  });

  it('grows a text at most fourfold', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(normalize(s).length).toBeLessThanOrEqual(4 * s.length);
      }),
      { numRuns: 500 },
    );
  });

  it('maps only non-ASCII look-alikes, and each to one ASCII character', () => {
    for (const [cp, to] of CONFUSABLES) {
      expect(cp).toBeGreaterThan(0x7f);
      expect(to).toMatch(/^[\x20-\x7e]$/);
    }
  });
});

describe('normalizeMapped', () => {
  it('gives the origin of every unit: each original code point normalizes to the units it is the origin of', () => {
    fc.assert(
      fc.property(text, (s) => {
        const n = normalizeMapped(s);
        expect(n.text).toBe(normalize(s));
        if (!n.origins) {
          expect(n.text).toBe(s);
          return;
        }
        expect(n.origins.length).toBe(n.text.length);
        const units = new Map<number, string>();
        n.origins.forEach((o, j) => units.set(o, (units.get(o) ?? '') + n.text[j]));
        for (let i = 0; i < s.length;) {
          const c = String.fromCodePoint(s.codePointAt(i)!);
          expect(units.get(i) ?? '').toBe(normalize(c));
          i += c.length;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('maps a span of the normalized text back to the original characters, dropped ones inside included', () => {
    const original = 'SSN ２８\u200b７－６５ ok';
    const n = normalizeMapped(original);
    expect(n.text).toBe('SSN 287-65 ok');
    const [s, e] = originalSpan(original, n, 4, 10);
    expect(original.slice(s, e)).toBe('２８\u200b７－６５');
    expect(originOf(original, n, n.text.length)).toBe(original.length);
  });

  it('covers both units of an astral character', () => {
    const original = 'x 𝟓𝟔 y';
    const n = normalizeMapped(original);
    const [s, e] = originalSpan(original, n, 2, 4);
    expect(original.slice(s, e)).toBe('𝟓𝟔');
  });
});
