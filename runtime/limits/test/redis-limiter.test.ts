import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { redisScript } from '../redis-script.js';
import { RedisRateLimiter } from '../redis.js';
import { RateLimitStoreError } from '../types.js';
import { connect, deleteKeys, redisUnavailable, uniquePrefix } from './redis-env.js';

const skip = await redisUnavailable();

describe.skipIf(skip)('Redis rate limiter across replicas', () => {
  const prefix = uniquePrefix('rl-replicas');
  let a: Redis;
  let b: Redis;
  beforeAll(() => {
    // Two connections, as two gateway replicas would hold.
    a = connect();
    b = connect();
  });
  afterAll(async () => {
    await deleteKeys(a, prefix);
    a.disconnect();
    b.disconnect();
  });

  it('shares one count between two limiter instances on one Redis', async () => {
    const windows = [{ limit: 3, windowSec: 60 }];
    const replicaA = new RedisRateLimiter({ redis: a, windows, keyPrefix: prefix });
    const replicaB = new RedisRateLimiter({ redis: b, windows, keyPrefix: prefix });
    expect((await replicaA.hit('org-shared')).remaining).toBe(2);
    expect((await replicaB.hit('org-shared')).remaining).toBe(1);
    expect((await replicaA.hit('org-shared')).remaining).toBe(0);
    const refusedOnB = await replicaB.hit('org-shared');
    expect(refusedOnB.allowed).toBe(false);
    expect((await replicaA.hit('org-shared')).allowed).toBe(false);
  });

  it('admits exactly the limit when both replicas race', async () => {
    const windows = [{ limit: 25, windowSec: 60 }];
    const replicas = [a, b].map((redis) => new RedisRateLimiter({ redis, windows, keyPrefix: prefix }));
    const decisions = await Promise.all(Array.from({ length: 80 }, (_, i) => replicas[i % 2]!.hit('org-race')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
  });

  it('uses the Redis clock by default, so both replicas report the same reset', async () => {
    const windows = [{ limit: 10, windowSec: 60 }];
    const [dA, dB] = await Promise.all(
      [a, b].map((redis) => new RedisRateLimiter({ redis, windows, keyPrefix: prefix }).hit('org-clock')),
    );
    const [sec] = await a.time();
    expect(dA!.resetAtSec).toBe(dB!.resetAtSec);
    expect(dA!.resetAtSec % 60).toBe(0);
    expect(dA!.resetAtSec - Number(sec)).toBeGreaterThan(0);
    expect(dA!.resetAtSec - Number(sec)).toBeLessThanOrEqual(60);
  });

  it('sets a TTL of one longest window (plus a second) on the counter key', async () => {
    const limiter = new RedisRateLimiter({
      redis: a,
      windows: [
        { limit: 5, windowSec: 60 },
        { limit: 50, windowSec: 3600 },
      ],
      keyPrefix: prefix,
    });
    await limiter.hit('org-ttl');
    const ttl = await a.pttl(`${prefix}org-ttl`);
    expect(ttl).toBeGreaterThan(3_590_000);
    expect(ttl).toBeLessThanOrEqual(3_601_000);
    // A later call with only the minute window must not shorten it.
    await limiter.hit('org-ttl', 1, [{ limit: 5, windowSec: 60 }]);
    expect(await a.pttl(`${prefix}org-ttl`)).toBeGreaterThan(3_590_000);
  });

  it('keeps a window a faster replica clock already opened instead of resetting it', async () => {
    const windows = [{ limit: 2, windowSec: 60 }];
    const t = 1_700_002_800_000;
    const ahead = new RedisRateLimiter({ redis: a, windows, keyPrefix: prefix, now: () => t + 60_000 });
    const behind = new RedisRateLimiter({ redis: b, windows, keyPrefix: prefix, now: () => t + 59_000 });
    await ahead.hit('org-skew');
    await ahead.hit('org-skew');
    expect((await behind.hit('org-skew')).allowed).toBe(false);
  });

  it('loads its script again after Redis forgot it (NOSCRIPT)', async () => {
    // A source no server has seen, so the first EVALSHA is certain to miss.
    const run = redisScript(`return { ${Date.now()}, ${Math.floor(Math.random() * 1e9)} } -- ${prefix}`);
    const first = await run(a, [`${prefix}noscript`], [], 1000);
    expect(Array.isArray(first)).toBe(true);
    expect(await run(a, [`${prefix}noscript`], [], 1000)).toEqual(first);
  });
});

describe('Redis rate limiter without Redis', () => {
  it('fails with RateLimitStoreError within its timeout', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: null,
      retryStrategy: () => 200,
    });
    dead.on('error', () => {}); // connection refusals are the point of this test
    const limiter = new RedisRateLimiter({ redis: dead, windows: [{ limit: 1, windowSec: 60 }], timeoutMs: 200 });
    const started = performance.now();
    try {
      await expect(limiter.hit('k')).rejects.toBeInstanceOf(RateLimitStoreError);
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      dead.disconnect();
    }
  });
});
