import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileRegexp } from './compile.js';
import { GoRegexp } from './regexp.js';
import { NATIVE_MAX_WORK, nativeEnabled, nativePlan, type NativeRegex } from './native.js';

/** The same pattern three ways: re2js only, V8 backtracking, and V8's linear engine (`l`). */
function engines(pattern: string): { re2: GoRegexp; native: GoRegexp; linear: GoRegexp } | undefined {
  const plan = nativePlan(pattern);
  if (!plan.native) return undefined;
  const re = RE2JS.compile(pattern);
  const nat = (flags: string): NativeRegex => ({
    re: new RegExp(plan.source, flags),
    weight: 0, // always native: these tests compare the engines
    groupsExact: plan.groupsExact,
    required: plan.required,
  });
  return {
    re2: new GoRegexp(pattern, re, null),
    native: new GoRegexp(pattern, re, nat('g')),
    linear: new GoRegexp(pattern, re, nat('gl')),
  };
}

/** Every Go-API result the builtins expose, for one engine. */
function observe(g: GoRegexp, s: string): unknown {
  return {
    match: g.matchString(s),
    find: g.findAllIndex(s, -1),
    find2: g.findAllIndex(s, 2),
    submatch: g.findAllSubmatch(s, -1),
    split: g.split(s, -1),
    replace: g.replaceOPA(s, '<$0|$1>'),
    replaceNamed: g.replaceOPA(s, '${n1}$$'),
  };
}

describe('native regex setup', () => {
  it('has the linear-time fallback active on this Node', () => {
    expect(nativeEnabled).toBe(true);
  });
});

interface TranslationCase {
  name: string;
  pattern: string;
  /** JS source, or `fallback: <reason fragment>` */
  want: string;
  groupsExact?: boolean;
}

const translations: TranslationCase[] = [
  { name: 'keeps \\d and \\b ASCII', pattern: String.raw`\b\d{3}-\d{2}\b`, want: String.raw`\b[0-9]{3}\x2d[0-9]{2}\b` },
  {
    name: 'spells \\s as RE2 whitespace, without \\v',
    pattern: String.raw`\s`,
    want: String.raw`[\x09\x0a\x0c\x0d\x20]`,
  },
  { name: 'spells \\w as [0-9A-Za-z_]', pattern: String.raw`\w`, want: '[0-9A-Z_a-z]' },
  {
    name: 'spells \\S as every code point but RE2 whitespace, astral included',
    pattern: String.raw`\S`,
    want: String.raw`(?:[\x00-\x08\x0b\x0e-\x1f\x21-\ud7ff\ue000-\uffff]|[\ud800-\udbff][\udc00-\udfff])`,
  },
  {
    name: 'spells . as any code point except \\n',
    pattern: '.',
    want: String.raw`(?:[\x00-\x09\x0b-\ud7ff\ue000-\uffff]|[\ud800-\udbff][\udc00-\udfff])`,
  },
  {
    name: 'spells (?s). as any code point',
    pattern: '(?s).',
    want: String.raw`(?:[\x00-\ud7ff\ue000-\uffff]|[\ud800-\udbff][\udc00-\udfff])`,
  },
  {
    name: 'folds (?i) letters explicitly, with Kelvin and long s',
    pattern: '(?i)ks',
    want: String.raw`[Kk\u212a][Ss\u017f]`,
  },
  { name: 'scopes (?i:…) to its group', pattern: '(?i:a)b', want: '(?:[Aa])b' },
  { name: 'keeps (?i) set mid-group until the group ends, across |', pattern: '(a(?i)b|c)d', want: '(a[Bb]|[Cc])d' },
  { name: 'turns (?-i) off again', pattern: '(?i)a(?-i)b', want: '[Aa]b' },
  { name: 'turns named groups into plain groups', pattern: '(?P<x>a)(?<y>b)', want: '(a)(b)' },
  { name: 'maps \\A and \\z to input anchors', pattern: String.raw`\Aa\z`, want: '^a$' },
  { name: 'reads \\x{…} and octal escapes', pattern: String.raw`\x{41}\101\x41`, want: 'AAA' },
  {
    name: 'escapes punctuation RE2 allows escaped but JS u-mode would not',
    pattern: String.raw`\-\!\_\#`,
    want: String.raw`\x2d\x21_\x23`,
  },
  { name: 'writes an astral literal as a surrogate pair group', pattern: '😀+', want: String.raw`(?:\ud83d\ude00)+` },
  {
    name: 'writes an astral range as pair alternatives',
    pattern: String.raw`[\x{1F600}-\x{1F64F}a]`,
    want: String.raw`(?:a|\ud83d[\ude00-\ude4f])`,
  },
  { name: 'translates POSIX classes', pattern: '[[:alpha:][:digit:]]', want: '[0-9A-Za-z]' },
  { name: 'takes ] first in a class as a literal', pattern: '[]a]', want: String.raw`[\x5da]` },
  { name: 'quotes \\Q…\\E text', pattern: String.raw`\Qa.b\E`, want: String.raw`a\x2eb` },
  { name: 'keeps a non-repeat { literal', pattern: 'a{,2}', want: String.raw`a\x7b\x2c2\x7d` },
  { name: 'swaps greediness under (?U)', pattern: '(?U)a+b+?', want: 'a+?b+' },
  {
    name: 'unrolls counts beyond the linear engine’s limit',
    pattern: 'a{2,4}b{17}',
    want: '(?:aa(?:a(?:a)?)?)(?:bbbbbbbbbbbbbbbbb)',
  },
  { name: 'marks captures inside a repeat as inexact', pattern: '(?:(a)|b)+', want: '(?:(a)|b)+', groupsExact: false },
  { name: 'falls back for \\pL', pattern: String.raw`\pL`, want: 'fallback: escape \\p' },
  { name: 'falls back for \\p{Greek}', pattern: String.raw`\p{Greek}`, want: 'fallback: escape \\p' },
  { name: 'falls back for \\PL in a class', pattern: String.raw`[\PL]`, want: 'fallback: escape \\P' },
  { name: 'falls back for \\B (true inside a surrogate pair)', pattern: String.raw`a\B`, want: 'fallback: escape \\B' },
  { name: 'falls back for (?m)^', pattern: '(?m)^a', want: 'fallback: multi-line anchor' },
  { name: 'falls back for a repeated empty-matching group', pattern: '(a*)+', want: 'fallback: can match empty' },
  {
    name: 'falls back for an optional empty-matching alternation',
    pattern: '(|a)?',
    want: 'fallback: can match empty',
  },
  { name: 'falls back for (?i) on a cased non-ASCII letter', pattern: '(?i)é', want: 'fallback: case folding' },
  { name: 'keeps (?i) on caseless symbols', pattern: '(?i)a–', want: String.raw`[Aa]\u2013` },
  {
    name: 'falls back for a counted capture the linear engine refuses',
    pattern: '(a){17}',
    want: 'fallback: linear-time',
  },
];

describe('RE2 → JS translation', () => {
  it.each(translations)('$name', ({ pattern, want, groupsExact }) => {
    const plan = nativePlan(pattern);
    if (want.startsWith('fallback: ')) {
      expect(plan.native).toBe(false);
      if (!plan.native) expect(plan.reason).toContain(want.slice('fallback: '.length));
      return;
    }
    expect(plan).toMatchObject({ native: true, source: want, groupsExact: groupsExact ?? true });
  });
});

interface BehaviourCase {
  name: string;
  pattern: string;
  input: string;
}

// Inputs on which JS's own reading of a similar pattern would differ from RE2's.
const behaviours: BehaviourCase[] = [
  { name: '\\s does not match \\v or NBSP', pattern: String.raw`\s`, input: '\v\u00a0\u2028x\t' },
  { name: '. matches \\r and U+2028 (JS . does not)', pattern: 'a.b', input: 'a\rb a\u2028b a\nb' },
  { name: '. takes a whole astral code point', pattern: '^.$', input: '😀' },
  { name: '.. does not split a surrogate pair', pattern: '^..$', input: '😀' },
  { name: '[^x] takes a whole astral code point', pattern: '[^x]', input: 'x😀x' },
  { name: 'an empty pattern matches between code points only', pattern: '', input: 'a😀b' },
  { name: '(?i)k matches the Kelvin sign', pattern: '(?i)k', input: 'K' },
  { name: '(?i)\\w matches long s', pattern: String.raw`(?i)\w+`, input: 'ſK_' },
  { name: '\\b stays ASCII next to long s', pattern: String.raw`(?i)\bs`, input: 'ſs' },
  { name: '(?i)[^k] excludes every k', pattern: '(?i)[^k]+', input: 'kKKx' },
  { name: '$ is only the end of text', pattern: 'a$', input: 'a\na' },
  { name: 'captures in alternation report "" when unused', pattern: '(a)|(b)', input: 'ab' },
  { name: 'repeated captures keep their last value (via re2js)', pattern: '(?:(a)|b)+', input: 'ab' },
  { name: 'leftmost-first alternation', pattern: 'a|ab', input: 'ab' },
  { name: 'lazy repeat', pattern: 'a+?', input: 'aaa' },
  { name: 'unrolled bounded repeat', pattern: '(?:ab){2,18}', input: 'ab'.repeat(20) },
  { name: 'lazy unrolled repeat', pattern: 'a{3,20}?', input: 'a'.repeat(25) },
  { name: 'required literal after the start position', pattern: 'b-c', input: 'b-c b-c' },
];

describe('native and re2js agree', () => {
  it.each(behaviours)('$name', ({ pattern, input }) => {
    const e = engines(pattern)!;
    expect(e).toBeDefined();
    expect(e.native.isNative(input)).toBe(true);
    const want = observe(e.re2, input);
    expect(observe(e.native, input)).toEqual(want);
    expect(observe(e.linear, input)).toEqual(want);
  });

  it('sends text with lone surrogates to re2js', () => {
    const g = compileRegexp('.');
    expect(g.isNative('ab')).toBe(true);
    expect(g.isNative('a\ud800b')).toBe(false);
    expect(g.findAllIndex('a\ud800b', -1)).toEqual([0, 1, 1, 2, 2, 3]);
  });
});

// A small RE2 grammar; fast-check shrinks failures to a minimal pattern and text.
const CHARS = [
  'a',
  'b',
  'k',
  'K',
  's',
  'S',
  'ſ',
  'K',
  '0',
  '7',
  ' ',
  '\n',
  '\r',
  '\t',
  '-',
  '_',
  '.',
  'é',
  '😀',
  '中',
  '\u2028',
  '\v',
  '\x07',
];
const literal = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b', 'c', 'k', 's', 'A', 'S', '0', ' ', '-', '_'), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      'é',
      '😀',
      '\\.',
      '\\-',
      '\\n',
      '\\x{1F600}',
      '\\x41',
      '\\101',
      '\\a',
      '\\v',
      '\\Q*?\\E',
      '{',
      '}',
    ),
    weight: 1,
  },
);
const klass = fc.constantFrom(
  '[abc]',
  '[^a]',
  '[a-z]',
  '[^a-z0-9]',
  '[k-s]',
  '[[:alpha:]]',
  '[[:^space:]]',
  '[^[:^alpha:]0]',
  '[\\d\\s]',
  '[^\\w]',
  '[\\d-z]',
  '[-a]',
  '[]a]',
  '[😀-😂x]',
  '[^😀]',
  '[\\x00-\\x{10FFFF}]',
  '\\s',
  '\\S',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '.',
);
const assertion = fc.constantFrom('^', '$', '\\b', '\\A', '\\z');
const quantifier = fc.oneof(
  { arbitrary: fc.constantFrom('', '*', '+', '?', '*?', '+?', '??', '{2}', '{1,3}', '{2,}', '{0,2}?'), weight: 8 },
  { arbitrary: fc.constantFrom('{0,18}', '{17}', '{3,18}?'), weight: 1 },
);

/** Alternations of concatenations whose groups nest at most `depth` deep. */
function alternation(depth: number): fc.Arbitrary<string> {
  const leaves = [
    { arbitrary: fc.tuple(literal, quantifier).map(([a, q]) => a + q), weight: 4 },
    { arbitrary: fc.tuple(klass, quantifier).map(([a, q]) => a + q), weight: 3 },
    { arbitrary: assertion, weight: 1 },
  ];
  const inner = depth > 0 ? alternation(depth - 1) : undefined;
  const atom =
    inner === undefined
      ? fc.oneof(...leaves)
      : fc.oneof(
          ...leaves,
          {
            arbitrary: fc
              .tuple(
                fc.constantFrom('(', '(?:', '(?P<n>', '(?i:', '(?s:', '(?i)(', '(?U:', '(?i-s:', '(|'),
                inner,
                quantifier,
              )
              .map(([open, body, q]) => `${open}${body})${q}`),
            weight: 2,
          },
          {
            // a capture that an iteration may skip: RE2 keeps the last value, JS resets it
            arbitrary: fc
              .tuple(inner, inner, fc.constantFrom('*', '+', '{2}', '{1,3}'))
              .map(([a, b, q]) => `(?:(${a})|${b})${q}`),
            weight: 1,
          },
        );
  const cat = fc.array(atom, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(''));
  return fc.array(cat, { minLength: 1, maxLength: 3 }).map((xs) => xs.join('|'));
}

const regex = alternation(2).map((p) => {
  let k = 0;
  return p.replace(/\(\?P<n>/g, () => `(?P<n${++k}>`); // RE2 rejects duplicate names
});

// Mostly a and b, so that the patterns' literals actually meet the text.
const textChar = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b'), weight: 3 },
  { arbitrary: fc.constantFrom(...CHARS), weight: 2 },
);
const text = fc.array(textChar, { maxLength: 16 }).map((xs) => xs.join(''));

describe('differential: native ≡ re2js on random RE2 patterns', () => {
  it('gives identical match, find, submatch, split and replace results', () => {
    let native = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          regex,
          regex.map((p) => `(?i)${p}`),
        ),
        fc.array(text, { minLength: 1, maxLength: 4 }),
        (pattern, inputs) => {
          try {
            RE2JS.compile(pattern);
          } catch {
            return; // not RE2 syntax: never reaches the translator
          }
          const e = engines(pattern);
          if (e === undefined) return;
          native++;
          for (const s of inputs) {
            const want = observe(e.re2, s);
            expect(observe(e.native, s)).toEqual(want);
            expect(observe(e.linear, s)).toEqual(want);
          }
        },
      ),
      { numRuns: Number(process.env.REGEX_FUZZ_RUNS ?? 2000) },
    );
    expect(native).toBeGreaterThan(500); // the grammar must mostly produce translatable patterns
  });
});

describe('hostile patterns stay fast', () => {
  const hostile: [string, string][] = [
    ['(a+)+$', `${'a'.repeat(30_000)}!`],
    ['(x+x+)+y', 'x'.repeat(30_000)],
    ['(a|a)*b', 'a'.repeat(50_000)],
    ['(?:a*)*b', 'a'.repeat(50_000)],
    ['((a+)+)+c', 'a'.repeat(20_000)],
    ['(\\w+\\s?)+$', `${'word '.repeat(6_000)}!`],
    ['(?i)(a|A)+(b|B)+(a|A)+z', 'ab'.repeat(20_000)],
    ['^(([a-z])+.)+[A-Z]([a-z])+$', `${'aaaaaaaaaaaaaaaaaaaaaaaa'.repeat(1_000)}!`],
  ];
  // NB: a safety bound, not a speed target (benchmarks measure speed): exponential backtracking would take
  // hours here, linear matching takes milliseconds; 2 s leaves room for a loaded CI machine.
  it.each(hostile)('%s finishes in linear time on a long text', (pattern, s) => {
    const g = compileRegexp(pattern);
    const t0 = performance.now();
    g.matchString(s);
    g.findAllIndex(s, -1);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('regex engine choice', () => {
  const HOSTILE = [
    {
      name: 'the prompt-injection alternation on newlines',
      pattern: '(?i)(?:^|\\n)\\s*(?:system|assistant|developer|tool|user)\\s*:',
      text: '\n'.repeat(40_000),
    },
    {
      name: 'a union scan on repeated union/**/select',
      pattern: '(?i)union[\\s\\S]*\\b(?:information_schema|pg_catalog|sysobjects)',
      text: 'union/**/select '.repeat(5000),
    },
    {
      name: 'a comment scan to the end of the text',
      pattern: '(?i)union[\\s\\S]*(?:--|#)[^\\n]*$',
      text: 'union/**/select '.repeat(5000),
    },
    {
      name: 'an anchored statement check on newlines',
      pattern: '(?i)^\\s*\\(?\\s*(?:select|with|insert|update|delete)\\b',
      text: '\n'.repeat(40_000),
    },
  ];

  it.each(HOSTILE)('runs $name on the linear engine (re2js), not V8', ({ pattern, text }) => {
    expect(compileRegexp(pattern).isNative(text)).toBe(false);
  });

  it('keeps V8 for short texts, where its worst case is bounded', () => {
    const re = compileRegexp('(?i)(?:^|\\n)\\s*(?:system|assistant|developer|tool|user)\\s*:');
    const short = 'Please book me a flight to Paris next Tuesday and a hotel near the Louvre.';
    expect(re.isNative(short)).toBe(true);
    expect(re.isNative('y'.repeat(Math.floor(NATIVE_MAX_WORK / 10)))).toBe(false);
  });
});

describe('nested quantifiers', () => {
  // Backtracking engines take exponential time on nested quantifiers; RE2 stays linear.
  const atom = fc.constantFrom('a', 'a?', '(a|a)', '(a|aa)', '.', '[ab]');
  const quant = fc.constantFrom('+', '*', '{1,3}');
  const hostile = fc
    .tuple(fc.array(fc.tuple(atom, quant), { minLength: 2, maxLength: 5 }), fc.constantFrom('$', 'b', '!'))
    .map(([parts, tail]) => `(${parts.map(([a, q]) => `(${a})${q}`).join('')})+${tail}`);

  it('keeps nested quantifiers linear on long inputs', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 2_000, max: 8_000 }), (pattern, n) => {
        const s = `${'a'.repeat(n)}!`;
        const re = compileRegexp(pattern);
        const t = performance.now();
        re.matchString(s);
        re.findAllIndex(s, -1);
        re.findAllSubmatch(s, -1);
        return performance.now() - t < 500;
      }),
      { numRuns: 25 },
    );
  });
});
