import { describe, expect, it } from 'vitest';
import { compareSemVer, parseSemVer } from './index.js';

const cmp = (a: string, b: string): number => compareSemVer(parseSemVer(a)!, parseSemVer(b)!);

describe('semver', () => {
  it('parses leniently, as OPA does', () => {
    expect(parseSemVer('v1.2.3-rc.1+build.5')).toEqual({
      major: 1n,
      minor: 2n,
      patch: 3n,
      preRelease: 'rc.1',
      metadata: 'build.5',
    });
    expect(parseSemVer('01.02.3')).toMatchObject({ major: 1n, minor: 2n, patch: 3n });
    expect(parseSemVer('1.2')).toBeUndefined();
    expect(parseSemVer('1.2.3-a..b')).toBeUndefined();
  });

  it.each([
    { a: '1.0.0', b: '2.0.0', want: -1 },
    { a: '1.0.0-alpha', b: '1.0.0', want: -1 },
    { a: '1.0.0-alpha.1', b: '1.0.0-alpha.beta', want: -1 },
    { a: '1.0.0-rc.11', b: '1.0.0-rc.2', want: 1 },
    { a: '1.0.0+a', b: '1.0.0+b', want: 0 },
  ])('orders $a against $b', ({ a, b, want }) => {
    expect(cmp(a, b)).toBe(want);
  });
});
