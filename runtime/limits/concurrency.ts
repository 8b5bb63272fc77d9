import { randomUUID } from 'node:crypto';
import { integers, redisScript, type RedisScriptClient } from './redis-script.js';
import { checkKeyAndCost } from './windows.js';
import { RateLimitInputError, type Clock, type ConcurrencyLimiter, type ConcurrencyResult } from './types.js';

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000_000)
    throw new RateLimitInputError('limit', 'must be an integer from 1 to 1000000');
  return limit;
}

export interface MemoryConcurrencyLimiterOptions {
  /** Slots per key when a call gives no limit. */
  defaultLimit: number;
}

/** Slot counts in this process. Only keys holding slots take memory. */
export class MemoryConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly held = new Map<string, number>();
  private readonly defaultLimit: number;

  constructor(options: MemoryConcurrencyLimiterOptions) {
    this.defaultLimit = checkLimit(options.defaultLimit);
  }

  async tryAcquire(key: string, limit = this.defaultLimit): Promise<ConcurrencyResult> {
    checkKeyAndCost(key, 1);
    checkLimit(limit);
    const active = this.held.get(key) ?? 0;
    if (active >= limit) return { acquired: false, active, limit };
    this.held.set(key, active + 1);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      const n = (this.held.get(key) ?? 1) - 1;
      if (n <= 0) this.held.delete(key);
      else this.held.set(key, n);
    };
    return { acquired: true, active: active + 1, limit, lease: { release } };
  }

  async active(key: string): Promise<number> {
    return this.held.get(key) ?? 0;
  }
}

/*
 * A sorted set per key: members are lease ids, scores their expiry (ms). Expired leases (a replica that died
 * holding them) are dropped before counting, so a crash frees its slots after leaseTtlMs.
 *   acquire: KEYS[1]; ARGV limit, leaseId, leaseTtlMs, nowMs ('' = Redis TIME) → { acquired, active }
 */
const ACQUIRE_LUA = `
local now
if ARGV[4] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[4])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local active = redis.call('ZCARD', KEYS[1])
if active >= tonumber(ARGV[1]) then return { 0, active } end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { 1, active + 1 }
`;
const ACTIVE_LUA = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
return { redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf') }
`;
const RELEASE_LUA = `return { redis.call('ZREM', KEYS[1], ARGV[1]) }`;
const runAcquire = redisScript(ACQUIRE_LUA);
const runActive = redisScript(ACTIVE_LUA);
const runRelease = redisScript(RELEASE_LUA);

export interface RedisConcurrencyLimiterOptions {
  redis: RedisScriptClient;
  defaultLimit: number;
  /** @default steward:cc: */
  keyPrefix?: string;
  /**
   * How long a slot stays held if its holder never releases it (a crashed replica). Longer than the longest
   * operation it guards. @default 15 minutes
   */
  leaseTtlMs?: number;
  /** Absent: Redis's own clock. */
  now?: Clock;
  /** @default 1000 */
  timeoutMs?: number;
}

/** Concurrency slots shared by every replica through Redis. */
export class RedisConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly redis: RedisScriptClient;
  private readonly defaultLimit: number;
  private readonly prefix: string;
  private readonly leaseTtlMs: number;
  private readonly now: Clock | undefined;
  private readonly timeoutMs: number;

  constructor(options: RedisConcurrencyLimiterOptions) {
    this.redis = options.redis;
    this.defaultLimit = checkLimit(options.defaultLimit);
    this.prefix = options.keyPrefix ?? 'steward:cc:';
    this.leaseTtlMs = options.leaseTtlMs ?? 15 * 60_000;
    this.now = options.now;
    this.timeoutMs = options.timeoutMs ?? 1000;
    if (!Number.isInteger(this.leaseTtlMs) || this.leaseTtlMs < 1000)
      throw new RateLimitInputError('leaseTtlMs', 'must be an integer ≥ 1000');
  }

  async tryAcquire(key: string, limit = this.defaultLimit): Promise<ConcurrencyResult> {
    checkKeyAndCost(key, 1);
    checkLimit(limit);
    const redisKey = this.prefix + key;
    const leaseId = randomUUID();
    const clock = this.now ? String(this.now()) : '';
    const [acquired, active] = integers(
      await runAcquire(this.redis, [redisKey], [limit, leaseId, this.leaseTtlMs, clock], this.timeoutMs),
      2,
    );
    if (acquired !== 1) return { acquired: false, active: active!, limit };
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await runRelease(this.redis, [redisKey], [leaseId], this.timeoutMs);
    };
    return { acquired: true, active: active!, limit, lease: { release } };
  }

  async active(key: string): Promise<number> {
    checkKeyAndCost(key, 1);
    const clock = this.now ? String(this.now()) : '';
    return integers(await runActive(this.redis, [this.prefix + key], [clock], this.timeoutMs), 1)[0]!;
  }
}
