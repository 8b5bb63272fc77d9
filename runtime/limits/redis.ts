import { redisScript, integers, type RedisScriptClient } from './redis-script.js';
import { checkKeyAndCost, checkWindows, decide, windowIndex } from './windows.js';
import type { Clock, RateLimitDecision, RateLimiter, RateLimitWindow } from './types.js';

/*
 * One hash per key holds, per window length W, the window index (field wW) and its count (field cW). A
 * stored index newer than ours (a replica whose clock runs ahead) is kept and counted in, never overwritten
 * with an older one. The key expires one longest-window after its last counted hit.
 *   KEYS[1] hash key
 *   ARGV    cost, nowMs ('' = use Redis TIME), ttlMs, then limit and windowSec per window
 *   reply   allowed (0/1), nowMs, then the count per window (after the hit when allowed)
 */
const HIT_LUA = `
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[2])
end
local n = (#ARGV - 3) / 2
local idx, cnt = {}, {}
local allowed = 1
for i = 1, n do
  local limit = tonumber(ARGV[2 + 2 * i])
  local win = ARGV[3 + 2 * i]
  local current = math.floor(now / (tonumber(win) * 1000))
  local stored = redis.call('HMGET', key, 'w' .. win, 'c' .. win)
  local si = tonumber(stored[1])
  local c = 0
  if si ~= nil and si >= current then
    current = si
    c = tonumber(stored[2]) or 0
  end
  idx[i] = current
  cnt[i] = c
  if c + cost > limit then allowed = 0 end
end
if allowed == 1 and cost > 0 then
  for i = 1, n do
    local win = ARGV[3 + 2 * i]
    cnt[i] = cnt[i] + cost
    redis.call('HSET', key, 'w' .. win, idx[i], 'c' .. win, cnt[i])
  end
  -- Only ever lengthen the TTL: a call with shorter windows must not expire a longer window's count.
  if redis.call('PTTL', key) < tonumber(ARGV[3]) then redis.call('PEXPIRE', key, ARGV[3]) end
end
local reply = { allowed, now }
for i = 1, n do reply[2 + i] = cnt[i] end
return reply
`;

const runHit = redisScript(HIT_LUA);

/*
 * Credits back part of an allowed hit: per window, only while the stored window index is still the hit's own;
 * never below zero; the TTL is left as it is.
 *   KEYS[1] hash key
 *   ARGV    cost, then the window index of the hit and windowSec per window
 */
const RELEASE_LUA = `
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local n = (#ARGV - 1) / 2
for i = 1, n do
  local idx = ARGV[2 * i]
  local win = ARGV[1 + 2 * i]
  local stored = redis.call('HMGET', key, 'w' .. win, 'c' .. win)
  if tonumber(stored[1]) == tonumber(idx) then
    local c = (tonumber(stored[2]) or 0) - cost
    if c < 0 then c = 0 end
    redis.call('HSET', key, 'c' .. win, c)
  end
end
return 1
`;

const runRelease = redisScript(RELEASE_LUA);

export interface RedisRateLimiterOptions {
  /** A connected ioredis client (Redis or Cluster), shared with the rest of the process; not closed here. */
  redis: RedisScriptClient;
  windows: readonly RateLimitWindow[];
  /** Prefix of every key; several deployments can share one Redis with different prefixes. @default steward:rl: */
  keyPrefix?: string;
  /**
   * Clock for window boundaries. Absent: Redis's own clock (TIME inside the script), so replicas with
   * skewed clocks still agree on the windows. Tests inject one.
   */
  now?: Clock;
  /** Longest wait for Redis before the hit fails with RateLimitStoreError. @default 1000 */
  timeoutMs?: number;
}

/** Fixed-window counters in Redis, shared by every replica; one atomic script call per hit. */
export class RedisRateLimiter implements RateLimiter {
  readonly windows: readonly RateLimitWindow[];
  private readonly redis: RedisScriptClient;
  private readonly prefix: string;
  private readonly now: Clock | undefined;
  private readonly timeoutMs: number;

  constructor(options: RedisRateLimiterOptions) {
    this.windows = checkWindows(options.windows);
    this.redis = options.redis;
    this.prefix = options.keyPrefix ?? 'steward:rl:';
    this.now = options.now;
    this.timeoutMs = options.timeoutMs ?? 1000;
  }

  async hit(key: string, cost = 1, windows: readonly RateLimitWindow[] = this.windows): Promise<RateLimitDecision> {
    checkKeyAndCost(key, cost);
    if (windows !== this.windows) checkWindows(windows);
    let maxWindowSec = 0;
    const args: (string | number)[] = [cost, this.now ? String(this.now()) : '', 0];
    for (const w of windows) {
      args.push(w.limit, w.windowSec);
      if (w.windowSec > maxWindowSec) maxWindowSec = w.windowSec;
    }
    args[2] = maxWindowSec * 1000 + 1000;
    const reply = integers(await runHit(this.redis, [this.prefix + key], args, this.timeoutMs), 2 + windows.length);
    return decide(windows, reply.slice(2), cost, reply[0] === 1, reply[1]!);
  }

  async release(
    key: string,
    cost: number,
    atMs: number,
    windows: readonly RateLimitWindow[] = this.windows,
  ): Promise<void> {
    checkKeyAndCost(key, cost);
    if (windows !== this.windows) checkWindows(windows);
    if (cost === 0) return;
    const args: (string | number)[] = [cost];
    for (const w of windows) args.push(String(windowIndex(atMs, w.windowSec)), w.windowSec);
    await runRelease(this.redis, [this.prefix + key], args, this.timeoutMs);
  }
}
