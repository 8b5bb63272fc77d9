import { describe, expect, it } from 'vitest';
import { run, v } from '../test/testkit-data.js';

describe('semver', () => {
  it.each([
    ['1.0.0', '1.0.1', '-1'],
    ['2.0.0', '1.9.9', '1'],
    ['v1.2.3', '1.2.3', '0'],
    ['1.2.3+build.1', '1.2.3+build.2', '0'],
    ['1.0.0-alpha', '1.0.0', '-1'],
    ['1.0.0-alpha', '1.0.0-alpha.1', '-1'],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta', '-1'],
    ['1.0.0-beta.2', '1.0.0-beta.11', '-1'],
    ['1.0.0-rc.1', '1.0.0-beta.11', '1'],
    ['1.0.0-1', '1.0.0-01', '0'],
  ])('semver.compare(%s, %s) is %s', (a, b, want) => {
    expect(run('semver.compare', [v(a), v(b)])).toBe(want);
  });

  it.each([
    ['1.2.3', true],
    ['v1.2.3-alpha+001', true],
    ['01.2.3', true],
    ['1.2', false],
    ['1.2.3.4', false],
    ['1.2.x', false],
    ['1.2.3-', true],
    ['1.2.3-a..b', false],
    ['99999999999999999999.0.0', false],
  ])('semver.is_valid(%s) is %s', (s, want) => {
    expect(run('semver.is_valid', [v(s)])).toBe(String(want));
  });

  it('semver.is_valid is false for non-strings', () => {
    expect(run('semver.is_valid', [v(1)])).toBe('false');
  });

  it('semver.compare names the invalid operand', () => {
    expect(run('semver.compare', [v('1.0.0'), v('x')])).toBe('builtin: operand 2: string x is not a valid SemVer');
  });
});
