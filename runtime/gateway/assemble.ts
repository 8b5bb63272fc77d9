import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { DeclarativeSource } from '../source/index.js';
import { RegoPolicyEngine } from '../policy/engine.js';
import { policyObserver } from '../policy/observer.js';
import type { GatewayConfig, StandaloneConfig } from '../config.js';
import { LicenseRegistry } from '../auth/licenses.js';
import { communityActive } from '../auth/authenticate.js';
import type { GatewayDeps } from './deps.js';
import { COMMUNITY_WARNING } from './health.js';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../limits/index.js';
import { OrganizationMetrics } from './org-metrics.js';
import { llmFromSettings } from '../llm/index.js';
import { outcomeRecorder } from './observe.js';
import { connectionSettings } from '../http/app.js';
import { StewardTelemetry } from '../metrics/index.js';
import { redisFailure, StartupError } from '../startup-error.js';

/** The reference: legacy credentials were deprecated in October 2025. */
const LEGACY_DEPRECATED_AT = new Date('2025-10-01T00:00:00Z');

export interface GatewayParts {
  deps: GatewayDeps;
  /**
   * Resolves once the external services answer (Redis, when REDIS_URL is set); rejects with a StartupError
   * naming the setting otherwise. Call before listening.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** How long Redis has to answer a PING at start. */
const REDIS_STARTUP_TIMEOUT_MS = 3000;

/** Builds the gateway's collaborators from the parsed config; shared by standalone and the gateway process. */
export function assembleGateway(
  config: GatewayConfig | StandaloneConfig,
  parts: {
    store: Store;
    source: DeclarativeSource;
    log: Logger;
    env: Readonly<Record<string, string | undefined>>;
    version: string;
    now?: () => Date;
    /** The process's Prometheus metrics. @default a registry of its own */
    telemetry?: StewardTelemetry;
  },
): GatewayParts {
  const now = parts.now ?? (() => new Date());
  const telemetry = parts.telemetry ?? new StewardTelemetry({ version: parts.version });
  const licenses = new LicenseRegistry({ source: parts.source, env: parts.env, signingSecret: config.STEWARD_LICENSE_SIGNING_SECRET, now });
  const policies = new RegoPolicyEngine({
    source: parts.source,
    // NB: `module`, not `component`: the gateway's logger already binds `component`, and pino would repeat the key.
    log: parts.log.child({ module: 'policies' }),
    limits: { deadlineMs: 200, maxSteps: 1_000_000 },
    inputMaxBytes: config.STEWARD_POLICY_INPUT_MAX_BYTES,
    inlineMaxBytes: config.STEWARD_POLICY_INLINE_MAX_BYTES,
    observer: policyObserver(telemetry),
  });
  telemetry.watchPolicyFailures(() => policies.failureCounts());
  parts.store.contexts.observeWrites(telemetry.storeWrite);
  parts.store.audit.observeWrites(telemetry.storeWrite);
  const auth = {
    settings: {
      communityMode: config.STEWARD_COMMUNITY_MODE,
      signingSecret: config.STEWARD_LICENSE_SIGNING_SECRET,
      legacySunset: config.STEWARD_LEGACY_CREDENTIALS_SUNSET,
      legacyDeprecatedAt: LEGACY_DEPRECATED_AT,
      operatorToken: config.STEWARD_METRICS_TOKEN,
    },
    licenses,
    clients: parts.store.clients,
    now,
  };
  if (communityActive(auth)) parts.log.warn({ mode: 'community' }, COMMUNITY_WARNING);
  for (const l of licenses.list()) {
    if (!l.valid) parts.log.warn({ license: l.name, organizationId: l.organizationId, reason: l.reason }, 'license is not valid');
  }
  const windows = [
    { limit: config.STEWARD_RATE_LIMIT_PER_MINUTE, windowSec: 60 },
    { limit: config.STEWARD_RATE_LIMIT_PER_HOUR, windowSec: 3600 },
  ];
  // NB: one Redis client per process, shared by every limiter; commands fail fast instead of queueing forever.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false }) : undefined;
  // NB: a listener is needed (else ioredis prints to stderr); while ready() checks, the error is ready()'s to report.
  let lastRedisError: Error | undefined;
  let checkingRedis = false;
  redis?.on('error', (err: Error) => {
    lastRedisError = err;
    if (!checkingRedis) parts.log.warn({ err: err.message }, 'redis connection error');
  });
  const limiter: RateLimiter = redis
    ? new RedisRateLimiter({ redis, windows, keyPrefix: 'steward:rl:gateway:' })
    : new MemoryRateLimiter({ windows });
  const { router: llm, described } = llmFromSettings(config);
  parts.log.info(
    { llm: described, rateLimits: windows, limiter: redis ? 'redis' : 'memory' },
    'gateway configured',
  );
  const deps: GatewayDeps = {
    log: parts.log,
    store: parts.store,
    source: parts.source,
    version: parts.version,
    bodyLimitBytes: config.STEWARD_BODY_LIMIT_BYTES,
    policyBodyLimitBytes: policyBodyLimit(config.STEWARD_BODY_LIMIT_BYTES, config.STEWARD_POLICY_INPUT_MAX_BYTES),
    connections: connectionSettings(config),
    now,
    auth,
    policies,
    contextTtlMs: config.STEWARD_CONTEXT_TTL_MS,
    environmentName: config.STEWARD_ENVIRONMENT,
    metrics: outcomeRecorder,
    limiter,
    requestMetrics: new OrganizationMetrics({ windowSec: 60 }),
    llm,
    telemetry,
    apiDocs: config.STEWARD_API_DOCS,
  };
  return {
    deps,
    async ready() {
      if (!redis || !config.REDIS_URL) return;
      const url = config.REDIS_URL;
      checkingRedis = true;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(redisFailure(lastRedisError, url, REDIS_STARTUP_TIMEOUT_MS)), REDIS_STARTUP_TIMEOUT_MS);
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
    async close() {
      licenses.close();
      policies.close();
      await llm.close();
      redis?.disconnect();
    },
  };
}

/**
 * The body limit of routes that evaluate their body: twice the policy input limit (JSON escapes make a text up to
 * twice as long in a body: `\n`, `\"`) plus room for the other fields, within the global body limit.
 */
export function policyBodyLimit(bodyLimitBytes: number, policyInputMaxBytes: number): number {
  return Math.min(bodyLimitBytes, 2 * policyInputMaxBytes + 64 * 1024);
}
