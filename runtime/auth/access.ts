/**
 * Who may call and how often: the credentials (Licenses, API keys, community mode) and the organization rate
 * limiter (Redis when REDIS_URL is set, so that every gateway and orchestrator replica counts against the same
 * budget). The gateway and the orchestrator build it from the same settings.
 */
import { createRequire } from 'node:module';
import {
  MemoryConcurrencyLimiter,
  MemoryRateLimiter,
  PLAN_TIER_LIMITS,
  RedisConcurrencyLimiter,
  RedisRateLimiter,
  type ConcurrencyLimiter,
  type RateLimiter,
  type RateLimitWindow,
} from '../limits/index.js';
import type { Logger } from '../../platform/log.js';
import type { DeclarativeSource } from '../source/index.js';
import { redisFailure, StartupError } from '../../platform/startup-error.js';
import type { Store } from '../store/index.js';
import { COMMUNITY_BEARER_HEADER, communityActive, type AuthDeps } from './authenticate.js';
import { LicenseRegistry, type SecretResolver } from './licenses.js';
import type { AccessSettings } from '../settings.js';

/** The reference: legacy credentials were deprecated in October 2025. */
const LEGACY_DEPRECATED_AT = new Date('2025-10-01T00:00:00Z');
/** ioredis, required only when REDIS_URL is set (a gateway without Redis never loads it). */
const loadRedis = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

/** How long Redis has to answer a PING at start. */
const REDIS_STARTUP_TIMEOUT_MS = 3000;

/** The community-mode warning: in the start-up log and in the gateway's /health. */
export const COMMUNITY_WARNING = 'community mode: no License is configured, requests are not authenticated';

export interface Access {
  auth: AuthDeps;
  licenses: LicenseRegistry;
  limiter: RateLimiter;
  /** LLM tokens per organization per minute (`STEWARD_LLM_TOKENS_PER_MINUTE`), shared through Redis as well. */
  tokenLimiter: RateLimiter;
  /** Concurrent operations per organization (plans), shared through Redis like the rate counters. */
  concurrency: ConcurrencyLimiter;
  windows: readonly RateLimitWindow[];
  /** 'redis' or 'memory', for the start-up log. */
  limiterKind: 'redis' | 'memory';
  /** Resolves once Redis answers (when REDIS_URL is set); rejects with a StartupError naming the setting. */
  ready(): Promise<void>;
  close(): void;
}

export function assembleAccess(
  config: Readonly<AccessSettings>,
  parts: {
    source: DeclarativeSource;
    store: Store;
    env: Readonly<Record<string, string | undefined>>;
    log: Logger;
    now: () => Date;
    /** License `keySecretRef`s (a cluster's Secrets); absent standalone. */
    resolveSecret?: SecretResolver;
  },
): Access {
  const licenses = new LicenseRegistry({
    source: parts.source,
    env: parts.env,
    signingSecret: config.licenseSigningSecret,
    now: parts.now,
    resolveSecret: parts.resolveSecret,
  });
  const auth: AuthDeps = {
    settings: {
      communityMode: config.communityMode,
      signingSecret: config.licenseSigningSecret,
      legacySunset: config.legacyCredentialsSunset,
      legacyDeprecatedAt: LEGACY_DEPRECATED_AT,
      operatorToken: config.operatorToken,
    },
    licenses,
    clients: parts.store.clients,
    now: parts.now,
    onUnknownBearer: () =>
      parts.log.warn(
        { mode: 'community', header: COMMUNITY_BEARER_HEADER },
        "community mode admits bearer values that are no known API key (such as an SDK's placeholder key) as the community identity; known keys are still checked, revoked ones refused",
      ),
  };
  if (communityActive(auth)) parts.log.warn({ mode: 'community' }, COMMUNITY_WARNING);
  for (const l of licenses.list()) {
    if (!l.valid)
      parts.log.warn({ license: l.name, organizationId: l.organizationId, reason: l.reason }, 'license is not valid');
  }
  const windows = [
    { limit: config.rateLimitPerMinute, windowSec: 60 },
    { limit: config.rateLimitPerHour, windowSec: 3600 },
  ];
  // NB: one Redis client per process, shared by every limiter; commands fail fast instead of queueing forever.
  const redis = config.redisUrl
    ? new (loadRedis())(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false })
    : undefined;
  // NB: a listener is needed (else ioredis prints to stderr); while ready() checks, the error is ready()'s to report.
  let lastRedisError: Error | undefined;
  let checkingRedis = false;
  redis?.on('error', (err: Error) => {
    lastRedisError = err;
    if (!checkingRedis) parts.log.warn({ err: err.message }, 'redis connection error');
  });
  // NB: one key prefix for the gateway and the orchestrator: a parallel request spends the organization's budget.
  const limiter: RateLimiter = redis
    ? new RedisRateLimiter({ redis, windows, keyPrefix: 'steward:rl:gateway:' })
    : new MemoryRateLimiter({ windows });
  const tokenWindows = [{ limit: config.llmTokensPerMinute, windowSec: 60 }];
  const tokenLimiter: RateLimiter = redis
    ? new RedisRateLimiter({ redis, windows: tokenWindows, keyPrefix: 'steward:rl:tokens:' })
    : new MemoryRateLimiter({ windows: tokenWindows });
  const defaultLimit = PLAN_TIER_LIMITS.community.concurrentPlans;
  const concurrency: ConcurrencyLimiter = redis
    ? new RedisConcurrencyLimiter({ redis, defaultLimit, keyPrefix: 'steward:cc:' })
    : new MemoryConcurrencyLimiter({ defaultLimit });
  return {
    auth,
    licenses,
    limiter,
    tokenLimiter,
    concurrency,
    windows,
    limiterKind: redis ? 'redis' : 'memory',
    async ready() {
      if (!redis || !config.redisUrl) return;
      const url = config.redisUrl;
      checkingRedis = true;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(redisFailure(lastRedisError, url, REDIS_STARTUP_TIMEOUT_MS)),
          REDIS_STARTUP_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([redis.ping(), timeout]);
      } catch (err) {
        throw err instanceof StartupError ? err : redisFailure(lastRedisError ?? err, url, REDIS_STARTUP_TIMEOUT_MS);
      } finally {
        clearTimeout(timer);
        checkingRedis = false;
      }
    },
    close() {
      licenses.close();
      redis?.disconnect();
    },
  };
}
