import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GlobIntersectionError, globsIntersect } from './index.js';

const cases = [
  { name: 'dots meet letters on both sides', lhs: 'a.a.', rhs: '.b.b', want: true },
  { name: 'disjoint sets never meet', lhs: '[a-z]*', rhs: '[0-9]+', want: false },
  { name: 'a trailing star after a match keeps the library quirk', lhs: 'abc.*', rhs: 'abc', want: false },
  { name: 'an escaped star is a literal star', lhs: 'a\\*', rhs: 'a[*]', want: true },
  { name: 'two empty globs meet', lhs: '', rhs: '', want: true },
  { name: 'a plus needs at least one character', lhs: 'a+', rhs: '', want: false },
];

describe('globsIntersect', () => {
  it.each(cases)('$name', ({ lhs, rhs, want }) => {
    expect(globsIntersect(lhs, rhs)).toBe(want);
    expect(globsIntersect(rhs, lhs)).toBe(want);
  });

  it.each([
    { glob: '*', message: "input:*, pos:1, flag '*' must be preceded by a non-flag: the input provided is invalid" },
    { glob: 'a[b', message: 'input:a[b, pos:3, found [ without matching ]: the input provided is invalid' },
  ])('rejects $glob with the library message', ({ glob, message }) => {
    expect(() => globsIntersect(glob, 'a')).toThrow(GlobIntersectionError);
    expect(() => globsIntersect(glob, 'a')).toThrow(message);
  });

  it('keeps globs_match polynomial on many flags', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 40 }), fc.integer({ min: 10, max: 40 }), (k1, k2) => {
        const g1 = `${'a*.*'.repeat(k1)}b`;
        const g2 = `${'.*a+'.repeat(k2)}c`;
        const t = performance.now();
        globsIntersect(g1, g2);
        return performance.now() - t < 500;
      }),
      { numRuns: 20 },
    );
  });
});
