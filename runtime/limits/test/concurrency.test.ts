import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { MemoryConcurrencyLimiter, RedisConcurrencyLimiter } from '../concurrency.js';
import { RateLimitInputError, type ConcurrencyLimiter } from '../types.js';
import { connect, deleteKeys, redisUnavailable, uniquePrefix } from './redis-env.js';

const skipRedis = await redisUnavailable();
const prefix = uniquePrefix('cc');
let redis: Redis | undefined;
let n = 0;

beforeAll(() => {
  if (!skipRedis) redis = connect();
});
afterAll(async () => {
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

const backends = [
  {
    name: 'memory',
    skip: undefined,
    make: (limit: number): ConcurrencyLimiter => new MemoryConcurrencyLimiter({ defaultLimit: limit }),
  },
  {
    name: 'redis',
    skip: skipRedis,
    make: (limit: number): ConcurrencyLimiter =>
      new RedisConcurrencyLimiter({ redis: redis!, defaultLimit: limit, keyPrefix: `${prefix}${n++}:` }),
  },
];

describe.each(backends)('$name concurrency limiter', (backend) => {
  const it_ = backend.skip ? it.skip : it;

  it_('grants slots up to the cap, refuses the next, and frees a slot on release', async () => {
    const limiter = backend.make(2);
    const first = await limiter.tryAcquire('org');
    const second = await limiter.tryAcquire('org');
    expect(first).toMatchObject({ acquired: true, active: 1, limit: 2 });
    expect(second).toMatchObject({ acquired: true, active: 2 });
    expect(await limiter.tryAcquire('org')).toEqual({ acquired: false, active: 2, limit: 2 });
    if (!first.acquired) throw new Error('unreachable');
    await first.lease.release();
    await first.lease.release(); // idempotent: must not free a second slot
    expect(await limiter.active('org')).toBe(1);
    expect((await limiter.tryAcquire('org')).acquired).toBe(true);
    expect((await limiter.tryAcquire('org')).acquired).toBe(false);
  });

  it_('takes a per-call cap (a tier) and keeps keys apart', async () => {
    const limiter = backend.make(1);
    expect((await limiter.tryAcquire('pro', 25)).acquired).toBe(true);
    expect((await limiter.tryAcquire('pro', 25)).acquired).toBe(true);
    expect((await limiter.tryAcquire('community')).acquired).toBe(true);
    expect((await limiter.tryAcquire('community')).acquired).toBe(false);
  });

  it_('grants exactly the cap under concurrent acquires', async () => {
    const limiter = backend.make(5);
    const results = await Promise.all(Array.from({ length: 30 }, () => limiter.tryAcquire('burst')));
    expect(results.filter((r) => r.acquired)).toHaveLength(5);
  });

  it_('rejects a bad cap', async () => {
    const limiter = backend.make(1);
    await expect(limiter.tryAcquire('k', 0)).rejects.toBeInstanceOf(RateLimitInputError);
  });
});

describe.skipIf(skipRedis)('Redis concurrency limiter leases', () => {
  it('reclaims a slot whose holder never released it once the lease expires', async () => {
    let now = 1_700_002_800_000;
    const limiter = new RedisConcurrencyLimiter({
      redis: redis!,
      defaultLimit: 1,
      keyPrefix: `${prefix}lease:`,
      leaseTtlMs: 60_000,
      now: () => now,
    });
    expect((await limiter.tryAcquire('org')).acquired).toBe(true);
    expect((await limiter.tryAcquire('org')).acquired).toBe(false);
    now += 60_001;
    expect(await limiter.active('org')).toBe(0);
    expect((await limiter.tryAcquire('org')).acquired).toBe(true);
  });

  it('shares slots between two replicas', async () => {
    const other = connect();
    try {
      const a = new RedisConcurrencyLimiter({ redis: redis!, defaultLimit: 1, keyPrefix: `${prefix}shared:` });
      const b = new RedisConcurrencyLimiter({ redis: other, defaultLimit: 1, keyPrefix: `${prefix}shared:` });
      const held = await a.tryAcquire('org');
      expect((await b.tryAcquire('org')).acquired).toBe(false);
      if (held.acquired) await held.lease.release();
      expect((await b.tryAcquire('org')).acquired).toBe(true);
    } finally {
      other.disconnect();
    }
  });
});
