/**
 * Rate and concurrency limits per key (organization). Fixed windows aligned to the Unix epoch, several at
 * once; in memory for one replica or in Redis shared by all, with the same semantics (one decision function).
 */
export type {
  Clock,
  ConcurrencyLease,
  ConcurrencyLimiter,
  ConcurrencyResult,
  RateLimitDecision,
  RateLimiter,
  RateLimitWindow,
} from './types.js';
export { RateLimitInputError, RateLimitStoreError } from './types.js';
export { MAX_COST, MAX_KEY_LENGTH, MAX_WINDOW_SEC } from './windows.js';
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from './memory.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis.js';
export type { RedisScriptClient } from './redis-script.js';
export {
  MemoryConcurrencyLimiter,
  RedisConcurrencyLimiter,
  type MemoryConcurrencyLimiterOptions,
  type RedisConcurrencyLimiterOptions,
} from './concurrency.js';
export {
  AGENT_RATE_WINDOWS,
  PLAN_TIER_LIMITS,
  planRateWindows,
  planTierOf,
  rateLimitHeaders,
  type PlanTier,
} from './tiers.js';
