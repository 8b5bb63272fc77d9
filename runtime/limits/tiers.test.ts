import { describe, expect, it } from 'vitest';
import { AGENT_RATE_WINDOWS, PLAN_TIER_LIMITS, planRateWindows, planTierOf, rateLimitHeaders } from './tiers.js';

describe('tiers', () => {
  it('holds the reference limits', () => {
    expect(AGENT_RATE_WINDOWS).toEqual([
      { limit: 100, windowSec: 60 },
      { limit: 10_000, windowSec: 3600 },
    ]);
    expect(PLAN_TIER_LIMITS.community).toEqual({ requestsPerMinute: 60, concurrentPlans: 5 });
    expect(planRateWindows(planTierOf('PRO'))).toEqual([{ limit: 300, windowSec: 60 }]);
  });

  it.each([
    { license: undefined, tier: 'community' },
    { license: 'PRO', tier: 'professional' },
    { license: 'ENT', tier: 'enterprise' },
    { license: 'PLUS', tier: 'enterprise' },
  ] as const)('maps license tier $license to the $tier plan tier', ({ license, tier }) => {
    expect(planTierOf(license)).toBe(tier);
  });
});

describe('rateLimitHeaders', () => {
  it('gives limit, remaining and reset, and Retry-After only when refused', () => {
    const allowed = {
      allowed: true,
      limit: 100,
      remaining: 99,
      resetAtSec: 1_700_000_060,
      retryAfterSec: 0,
      windowSec: 60,
      atMs: 1_700_000_010_000,
    };
    expect(rateLimitHeaders(allowed)).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '99',
      'X-RateLimit-Reset': '1700000060',
    });
    expect(rateLimitHeaders({ ...allowed, allowed: false, remaining: 0, retryAfterSec: 12 })).toMatchObject({
      'Retry-After': '12',
    });
  });
});
