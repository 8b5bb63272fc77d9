import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../memory.js';

describe('MemoryRateLimiter memory bounds', () => {
  it('drops keys idle for longer than the longest window', () => {
    let now = 1_700_002_800_000;
    const limiter = new MemoryRateLimiter({
      windows: [
        { limit: 5, windowSec: 60 },
        { limit: 50, windowSec: 600 },
      ],
      now: () => now,
    });
    for (let i = 0; i < 100; i++) limiter.hitSync(`org-${i}`);
    expect(limiter.size).toBe(100);
    now += 599_000;
    limiter.hitSync('fresh');
    expect(limiter.size).toBe(101);
    now += 1_000;
    limiter.hitSync('fresh');
    expect(limiter.size).toBe(1);
  });

  it('keeps a recently hit key when sweeping older ones', () => {
    let now = 1_700_002_800_000;
    const limiter = new MemoryRateLimiter({ windows: [{ limit: 2, windowSec: 60 }], now: () => now });
    limiter.hitSync('old');
    now += 30_000;
    limiter.hitSync('busy');
    now += 30_000;
    limiter.hitSync('busy');
    expect(limiter.size).toBe(1);
    // busy's second hit opened a new minute window, which holds that one hit.
    expect(limiter.hitSync('busy', 0).remaining).toBe(1);
  });

  it('evicts the least recently used key past maxKeys and counts it', () => {
    const limiter = new MemoryRateLimiter({
      windows: [{ limit: 1, windowSec: 60 }],
      maxKeys: 3,
      now: () => 1_700_002_800_000,
    });
    for (const k of ['a', 'b', 'c']) limiter.hitSync(k);
    limiter.hitSync('a', 0); // touch a: b is now the least recently used
    limiter.hitSync('d');
    expect(limiter.size).toBe(3);
    expect(limiter.evictions).toBe(1);
    expect(limiter.hitSync('a').allowed).toBe(false); // a kept its count
    expect(limiter.hitSync('b').allowed).toBe(true); // b was evicted and starts again
  });

  it('keeps recency order when the same key hits again and again', () => {
    const limiter = new MemoryRateLimiter({
      windows: [{ limit: 5, windowSec: 60 }],
      maxKeys: 2,
      now: () => 1_700_002_800_000,
    });
    limiter.hitSync('a');
    limiter.hitSync('a'); // a is the latest already: stays last
    limiter.hitSync('b');
    limiter.hitSync('a'); // a moves behind b
    limiter.hitSync('a');
    limiter.hitSync('c'); // evicts b, the least recently used
    expect(limiter.evictions).toBe(1);
    expect(limiter.hitSync('a', 0).remaining).toBe(1); // a kept its four hits
    expect(limiter.hitSync('b', 0).remaining).toBe(5); // b starts again (and now evicts c)
  });

  it('keeps counting in the newer window when the clock steps back', () => {
    let now = 1_700_002_860_000;
    const limiter = new MemoryRateLimiter({ windows: [{ limit: 1, windowSec: 60 }], now: () => now });
    limiter.hitSync('k');
    now -= 5_000;
    expect(limiter.hitSync('k').allowed).toBe(false);
  });
});
