import { describe, expect, it } from 'vitest';
import { LRU } from './index.js';

describe('LRU (two generations)', () => {
  it('holds at most its size and keeps the most recently used half', () => {
    const c = new LRU<number>(8);
    for (let i = 0; i < 100; i++) {
      c.set(`k${i}`, i);
      c.get('hot'); // absent: does nothing
    }
    const kept = Array.from({ length: 100 }, (_, i) => c.get(`k${i}`)).filter((v) => v !== undefined);
    expect(kept.length).toBeLessThanOrEqual(8);
    expect(kept).toEqual(expect.arrayContaining([96, 97, 98, 99]));
  });

  it('keeps an entry that is read between insertions', () => {
    const c = new LRU<string>(4);
    c.set('keep', 'v');
    for (let i = 0; i < 50; i++) {
      c.set(`x${i}`, 'x');
      expect(c.get('keep')).toBe('v');
    }
  });

  it('replaces a value in place', () => {
    const c = new LRU<number>(4);
    c.set('a', 1);
    c.set('a', 2);
    c.set('b', 3);
    c.set('c', 4); // turns a generation over: a moves to the old one
    expect(c.get('a')).toBe(2);
  });
});
