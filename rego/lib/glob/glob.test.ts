import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GlobError, compileGlob, globQuoteMeta } from './index.js';

const DOT = [0x2e];

describe('compileGlob', () => {
  it.each([
    { name: 'a star stops at a separator', pattern: 'api.*.com', text: 'api.a.b.com', want: false },
    { name: 'a super-star crosses separators', pattern: 'api.**.com', text: 'api.a.b.com', want: true },
    { name: 'a class matches one character', pattern: 'v[0-9]', text: 'v7', want: true },
    { name: 'a negated class excludes its characters', pattern: 'v[!0-9]', text: 'v7', want: false },
    { name: 'alternatives match any branch', pattern: '{cat,dog}s', text: 'dogs', want: true },
    { name: 'a question mark matches one non-separator', pattern: 'a?c', text: 'a.c', want: false },
  ])('$name', ({ pattern, text, want }) => {
    expect(compileGlob(pattern, DOT).match(text)).toBe(want);
  });

  it('reports syntax errors with the library message', () => {
    expect(() => compileGlob('[a', DOT)).toThrow(GlobError);
  });
});

describe('globQuoteMeta', () => {
  it('round-trips: a quoted string matches itself literally', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '*', '?', '[', ']', '{', '}', '\\', ',', '.') }), (s) => {
        const q = globQuoteMeta(s);
        return compileGlob(q, []).match(s);
      }),
    );
  });
});

describe('glob matching time', () => {
  // A backtracking matcher is O(n^k) on k stars; the NFA stays O(pattern × input).
  it('stays linear on star-heavy patterns', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 30 }),
        fc.integer({ min: 5_000, max: 20_000 }),
        fc.boolean(),
        (k, n, sup) => {
          const star = sup ? '**' : '*';
          const pattern = `${`${star}a`.repeat(k)}${star}b`;
          const value = 'a'.repeat(n);
          const t = performance.now();
          const m = compileGlob(pattern, []).match(value);
          return !m && performance.now() - t < 500;
        },
      ),
      { numRuns: 20 },
    );
  });
});
