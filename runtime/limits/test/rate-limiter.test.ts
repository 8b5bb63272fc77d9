import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { MemoryRateLimiter } from '../memory.js';
import { RedisRateLimiter } from '../redis.js';
import { AGENT_RATE_WINDOWS } from '../tiers.js';
import { RateLimitInputError, type RateLimiter, type RateLimitWindow } from '../types.js';
import { connect, deleteKeys, redisUnavailable, uniquePrefix } from './redis-env.js';

/** An hour boundary, so minute and hour windows both start here. */
const T0 = 1_700_002_800_000;

class TestClock {
  ms = T0;
  now = () => this.ms;
  advance(sec: number) {
    this.ms += sec * 1000;
  }
}

interface Backend {
  name: string;
  skip?: string;
  make(windows: readonly RateLimitWindow[], clock: TestClock): RateLimiter;
}

const skipRedis = await redisUnavailable();
let redis: Redis | undefined;
const prefix = uniquePrefix('rl');
let n = 0;

const backends: Backend[] = [
  { name: 'memory', make: (windows, clock) => new MemoryRateLimiter({ windows, now: clock.now }) },
  {
    name: 'redis',
    skip: skipRedis,
    // Each limiter gets its own prefix so tests cannot share counters.
    make: (windows, clock) =>
      new RedisRateLimiter({ redis: redis!, windows, now: clock.now, keyPrefix: `${prefix}${n++}:` }),
  },
];

beforeAll(() => {
  if (!skipRedis) redis = connect();
});
afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

describe.each(backends)('$name rate limiter', (backend) => {
  const it_ = backend.skip ? it.skip : it;
  const setUp = (windows: readonly RateLimitWindow[]) => {
    const clock = new TestClock();
    return { clock, limiter: backend.make(windows, clock) };
  };

  it_('allows up to the limit, then refuses with Retry-After until the window ends', async () => {
    const { clock, limiter } = setUp([{ limit: 3, windowSec: 60 }]);
    clock.advance(10);
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const d = await limiter.hit('org-a');
      expect(d.allowed).toBe(true);
      remaining.push(d.remaining);
    }
    expect(remaining).toEqual([2, 1, 0]);
    const refused = await limiter.hit('org-a');
    expect(refused).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetAtSec: T0 / 1000 + 60,
      retryAfterSec: 50,
      windowSec: 60,
      atMs: T0 + 10_000,
    });
  });

  it_("gives back what a release returns, in the windows that are still the hit's own, never below zero", async () => {
    const windows = [
      { limit: 100, windowSec: 60 },
      { limit: 200, windowSec: 3600 },
    ];
    const { clock, limiter } = setUp(windows);
    const reserved = await limiter.hit('org-r', 90);
    expect(reserved.remaining).toBe(10);
    expect((await limiter.hit('org-r', 20)).allowed).toBe(false);
    // The call used 15 of its 90: 75 go back, and the next call fits again.
    await limiter.release('org-r', 75, reserved.atMs);
    expect(await limiter.hit('org-r', 0)).toMatchObject({ remaining: 85 });
    expect((await limiter.hit('org-r', 20)).allowed).toBe(true);
    // A release larger than the count leaves zero, not a credit.
    await limiter.release('org-r', 500, reserved.atMs);
    expect(await limiter.hit('org-r', 0)).toMatchObject({ remaining: 100 });
    // A hit of the last minute is released after the minute ended: only the hour (still its own) is credited.
    const late = await limiter.hit('org-r', 50);
    clock.advance(60);
    await limiter.release('org-r', 50, late.atMs);
    expect((await limiter.hit('org-r', 100)).allowed).toBe(true);
    clock.advance(60);
    // The hour holds 100 (the late 50 were given back): another 100 fit, and then nothing more.
    expect((await limiter.hit('org-r', 100)).allowed).toBe(true);
    expect(await limiter.hit('org-r', 1)).toMatchObject({ allowed: false, limit: 200, windowSec: 3600 });
  });

  it_('starts counting again in the next window', async () => {
    const { clock, limiter } = setUp([{ limit: 1, windowSec: 60 }]);
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect((await limiter.hit('k')).allowed).toBe(false);
    clock.advance(60);
    const d = await limiter.hit('k');
    expect(d).toMatchObject({ allowed: true, remaining: 0, resetAtSec: T0 / 1000 + 120 });
  });

  it_('reports the most restrictive window: the minute first, the hour once it binds', async () => {
    const { clock, limiter } = setUp([
      { limit: 3, windowSec: 60 },
      { limit: 5, windowSec: 3600 },
    ]);
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, limit: 3, remaining: 2, resetAtSec: T0 / 1000 + 60 });
    await limiter.hit('k');
    await limiter.hit('k');
    clock.advance(60);
    // Hour: 3 used of 5; minute: fresh. After this hit the hour has 1 left, the minute 2.
    expect(await limiter.hit('k')).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 1,
      resetAtSec: T0 / 1000 + 3600,
    });
    await limiter.hit('k');
    const refused = await limiter.hit('k');
    expect(refused).toMatchObject({
      allowed: false,
      limit: 5,
      remaining: 0,
      windowSec: 3600,
      retryAfterSec: 3600 - 60,
    });
  });

  it_('does not count refused hits in any window', async () => {
    const { clock, limiter } = setUp([
      { limit: 2, windowSec: 60 },
      { limit: 4, windowSec: 3600 },
    ]);
    await limiter.hit('k');
    await limiter.hit('k');
    for (let i = 0; i < 10; i++) expect((await limiter.hit('k')).allowed).toBe(false);
    clock.advance(60);
    // Only the 2 allowed hits count toward the hour: 2 more pass.
    expect((await limiter.hit('k')).allowed).toBe(true);
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, limit: 4, remaining: 0 });
  });

  it_('counts a cost of several units, refuses a cost that does not fit, and peeks with cost 0', async () => {
    const { limiter } = setUp([{ limit: 5, windowSec: 60 }]);
    expect(await limiter.hit('k', 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.hit('k', 3)).toMatchObject({ allowed: false, remaining: 2 });
    expect(await limiter.hit('k', 0)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.hit('k', 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it_('keeps keys apart', async () => {
    const { limiter } = setUp([{ limit: 1, windowSec: 60 }]);
    expect((await limiter.hit('org-a')).allowed).toBe(true);
    expect((await limiter.hit('org-b')).allowed).toBe(true);
    expect((await limiter.hit('org-a')).allowed).toBe(false);
  });

  it_('applies per-call windows (a tier) and shares the count of equal window lengths', async () => {
    const { limiter } = setUp(AGENT_RATE_WINDOWS);
    const tier = [{ limit: 2, windowSec: 60 }];
    expect(await limiter.hit('k', 1, tier)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(await limiter.hit('k')).toMatchObject({ allowed: true, limit: 100, remaining: 98 });
    expect((await limiter.hit('k', 1, tier)).allowed).toBe(false);
  });

  it_('admits exactly the limit under concurrent hits', async () => {
    const { limiter } = setUp([{ limit: 20, windowSec: 60 }]);
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.hit('burst')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
  });

  it_.each([
    { name: 'an empty key', key: '', cost: 1, field: 'key' },
    { name: 'an overlong key', key: 'k'.repeat(300), cost: 1, field: 'key' },
    { name: 'a negative cost', key: 'k', cost: -1, field: 'cost' },
    { name: 'a fractional cost', key: 'k', cost: 1.5, field: 'cost' },
  ])('rejects $name with RateLimitInputError', async ({ key, cost, field }) => {
    const { limiter } = setUp([{ limit: 1, windowSec: 60 }]);
    await expect(limiter.hit(key, cost)).rejects.toMatchObject({ name: 'RateLimitInputError', field });
  });

  it_('rejects bad per-call windows', async () => {
    const { limiter } = setUp([{ limit: 1, windowSec: 60 }]);
    await expect(limiter.hit('k', 1, [])).rejects.toBeInstanceOf(RateLimitInputError);
    await expect(limiter.hit('k', 1, [{ limit: 0, windowSec: 60 }])).rejects.toBeInstanceOf(RateLimitInputError);
  });
});

describe('limiter construction', () => {
  it.each([
    { name: 'no windows', windows: [] },
    { name: 'a zero limit', windows: [{ limit: 0, windowSec: 60 }] },
    { name: 'a fractional window', windows: [{ limit: 1, windowSec: 1.5 }] },
    {
      name: 'two windows of one length',
      windows: [
        { limit: 1, windowSec: 60 },
        { limit: 2, windowSec: 60 },
      ],
    },
  ])('refuses $name', ({ windows }) => {
    expect(() => new MemoryRateLimiter({ windows })).toThrow(RateLimitInputError);
  });
});
