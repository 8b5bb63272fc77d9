import type { LicenseTier } from '../../api/index.js';
import type { RateLimitDecision, RateLimitWindow } from './types.js';

/** Agent endpoints and the parallel surface: 100 requests per minute and 10,000 per hour per organization. */
export const AGENT_RATE_WINDOWS: readonly RateLimitWindow[] = Object.freeze([
  { limit: 100, windowSec: 60 },
  { limit: 10_000, windowSec: 3600 },
]);

export type PlanTier = 'community' | 'professional' | 'enterprise';

/** Plan surface limits per tier, from the service reference. */
export const PLAN_TIER_LIMITS: Readonly<Record<PlanTier, { requestsPerMinute: number; concurrentPlans: number }>> =
  Object.freeze({
    community: { requestsPerMinute: 60, concurrentPlans: 5 },
    professional: { requestsPerMinute: 300, concurrentPlans: 25 },
    enterprise: { requestsPerMinute: 1000, concurrentPlans: 100 },
  });

/** The plan tier of a license tier; no license is Community. Enterprise Plus has Enterprise's limits. */
export function planTierOf(license: LicenseTier | undefined): PlanTier {
  if (license === 'PRO') return 'professional';
  if (license === 'ENT' || license === 'PLUS') return 'enterprise';
  return 'community';
}

export function planRateWindows(tier: PlanTier): readonly RateLimitWindow[] {
  return [{ limit: PLAN_TIER_LIMITS[tier].requestsPerMinute, windowSec: 60 }];
}

/** Response headers for a decision; Retry-After only on a refusal. */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetAtSec),
  };
  if (!d.allowed) h['Retry-After'] = String(d.retryAfterSec);
  return h;
}
