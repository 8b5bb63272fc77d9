/**
 * The plan surface's limits per organization and tier (the reference): Community 60 requests a minute and 5
 * plans at once, Professional 300 and 25, Enterprise (and Enterprise Plus) 1,000 and 100. Counters live where the
 * organization's other counters do (Redis when REDIS_URL is set), under keys of their own (`plan:<org>`).
 * Refusals are 429 RATE_LIMITED with X-RateLimit-* and Retry-After. A counter store that fails lets the plan
 * through (logged): a Redis outage must not stop every plan.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { Identity } from '../../auth/identity.js';
import { ApiError } from '../../http/errors.js';
import {
  PLAN_TIER_LIMITS,
  planRateWindows,
  planTierOf,
  rateLimitHeaders,
  RateLimitStoreError,
  type ConcurrencyLease,
  type ConcurrencyLimiter,
  type RateLimiter,
} from '../../limits/index.js';

const SURFACE = 'plan' as const;
/** A full concurrency budget frees up when a plan ends; plans take seconds, so a client should come back soon. */
const CONCURRENCY_RETRY_AFTER_SEC = 1;

export class PlanLimits {
  constructor(
    private readonly rate: RateLimiter,
    private readonly concurrency: ConcurrencyLimiter,
  ) {}

  /**
   * Counts one plan request and takes one of the organization's plan slots; release the lease when the plan
   * ends. Throws 429 RATE_LIMITED.
   */
  async admit(identity: Identity, reply: FastifyReply, log: FastifyBaseLogger): Promise<ConcurrencyLease | undefined> {
    const tier = planTierOf(identity.tier === 'COMMUNITY' ? undefined : identity.tier);
    const key = `plan:${identity.organizationId}`;
    try {
      const decision = await this.rate.hit(key, 1, planRateWindows(tier));
      const headers = rateLimitHeaders(decision);
      void reply.headers(headers);
      if (!decision.allowed) {
        throw new ApiError(
          SURFACE,
          'RATE_LIMITED',
          `plan rate limit of ${decision.limit} requests per minute exceeded for this organization (${tier} tier)`,
          {
            limit: decision.limit,
            period: `${decision.windowSec}s`,
            reset_at: new Date(decision.resetAtSec * 1000).toISOString(),
          },
          { headers },
        );
      }
      const limit = PLAN_TIER_LIMITS[tier].concurrentPlans;
      const slot = await this.concurrency.tryAcquire(key, limit);
      if (!slot.acquired) {
        throw new ApiError(
          SURFACE,
          'RATE_LIMITED',
          `${slot.active} plans of this organization are running; the ${tier} tier allows ${limit} at once`,
          {
            concurrent_plans: slot.active,
            limit,
          },
          { headers: { ...headers, 'Retry-After': String(CONCURRENCY_RETRY_AFTER_SEC) } },
        );
      }
      return slot.lease;
    } catch (err) {
      if (!(err instanceof RateLimitStoreError)) throw err;
      log.error({ err }, 'plan limiter unavailable; allowing the plan');
      return undefined;
    }
  }
}
