import { describe, expect, it } from 'vitest';
import { GoReplacer, count, goString, runeCount, runeIndex, split, toUpper, trimCutset, trimSpace } from './index.js';

describe('utf8', () => {
  it.each([
    { name: 'keeps valid UTF-8', bytes: [0x68, 0xc3, 0xa9], want: 'hé' },
    { name: 'replaces each byte of a truncated sequence', bytes: [0xe2, 0x82, 0x41], want: '\ufffd\ufffdA' },
    { name: 'rejects encoded surrogates', bytes: [0xed, 0xa0, 0x80], want: '\ufffd\ufffd\ufffd' },
    { name: 'rejects overlong encodings', bytes: [0xc0, 0xaf], want: '\ufffd\ufffd' },
  ])('goString $name', ({ bytes, want }) => {
    expect(goString(Uint8Array.from(bytes))).toBe(want);
  });
});

// Expected values are Go's strings package on the same (UTF-8) text.
describe('strings', () => {
  it('counts and indexes code points, not UTF-16 units', () => {
    expect(runeCount('a😀b')).toBe(3);
    expect(runeIndex('a😀b', 3)).toBe(2);
  });

  it('splits, counts and trims as Go does', () => {
    expect(split('a,b,,c', ',')).toEqual(['a', 'b', '', 'c']);
    expect(split('abc', '')).toEqual(['a', 'b', 'c']);
    expect(count('cheese', 'e')).toBe(3);
    expect(count('five', '')).toBe(5);
    expect(trimCutset('xxhixx', 'x', true, false)).toBe('hixx');
    expect(trimSpace('\u0085 hi \u00a0')).toBe('hi');
  });

  it('maps case by rune and replaces left to right', () => {
    expect(toUpper('ǆ')).toBe('Ǆ');
    expect(
      new GoReplacer([
        ['a', '1'],
        ['aa', '2'],
      ]).replace('aaa'),
    ).toBe('111');
  });
});
