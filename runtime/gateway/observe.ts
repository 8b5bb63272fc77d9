import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../http/errors.js';
import { rateLimitHeaders, RateLimitStoreError, type RateLimitDecision, type RateLimiter } from '../limits/index.js';
import type { OrganizationMetrics } from './org-metrics.js';
import type { StewardTelemetry } from '../metrics/index.js';
import type { Outcome, OutcomeRecorder } from './deps.js';

declare module 'fastify' {
  interface FastifyRequest {
    stewardOutcome: Outcome | undefined;
  }
}

/** Paths that are neither counted nor limited: cheap probes that must answer under any load. */
const UNMETERED = new Set(['/health', '/healthz', '/readyz', '/metrics', '/metrics/prometheus']);

export interface ObserveOptions {
  limiter: RateLimiter;
  metrics: OrganizationMetrics;
  /** Counts refusals (`steward_rate_limit_rejections_total`). */
  telemetry: StewardTelemetry;
}

/** Records outcomes and latency of every metered request, per organization; pre-check marks blocks explicitly. */
export const outcomeRecorder: OutcomeRecorder = {
  outcome(req: FastifyRequest, outcome: Outcome) {
    req.stewardOutcome = outcome;
  },
};

/**
 * Rate limits per organization (after authentication, so the key is the verified organization) and request
 * metrics. Every metered response carries X-RateLimit-*; a refusal is 429 RATE_LIMITED with Retry-After.
 * NB: when Redis fails the limiter fails open — availability of governance beats a counter — and says so in
 * the log; the in-memory limiter cannot fail.
 */
const observe: FastifyPluginAsync<ObserveOptions> = async (app, { limiter, metrics, telemetry }) => {
  const admit = (reply: FastifyReply, decision: RateLimitDecision): ApiError | undefined => {
    if (!decision.allowed) telemetry.rateLimitRejections.inc({ window: `${decision.windowSec}s` });
    return limitAnswer(reply, decision);
  };
  app.decorateRequest('stewardOutcome', undefined);

  // NB: callback hooks; the in-memory limiter answers without a promise (the pre-check hot path).
  app.addHook('onRequest', (req, reply, done) => {
    const path = req.routeOptions.url;
    if (path === undefined || UNMETERED.has(path) || !req.identity) return done();
    const key = req.identity.organizationId;
    if (limiter.hitSync) {
      let decision: RateLimitDecision;
      try {
        decision = limiter.hitSync(key);
      } catch (err) {
        return done(err as Error);
      }
      return done(admit(reply, decision));
    }
    limiter.hit(key).then(
      (decision) => done(admit(reply, decision)),
      (err: unknown) => {
        if (!(err instanceof RateLimitStoreError)) return done(err as Error);
        req.log.error({ err }, 'rate limiter unavailable; allowing the request');
        done();
      },
    );
  });

  app.addHook('onResponse', (req, reply, done) => {
    const path = req.routeOptions.url;
    if (req.identity && (path === undefined || !UNMETERED.has(path))) {
      metrics
        .of(req.identity.organizationId)
        .record(reply.elapsedTime, req.stewardOutcome ?? (reply.statusCode < 400 ? 'success' : 'failed'));
    }
    done();
  });
};

/** Puts X-RateLimit-* on the answer; the 429 error when the hit was refused. */
function limitAnswer(reply: FastifyReply, decision: RateLimitDecision): ApiError | undefined {
  const headers = rateLimitHeaders(decision);
  void reply.headers(headers);
  if (decision.allowed) return undefined;
  return new ApiError(
    'gateway',
    'RATE_LIMITED',
    `rate limit of ${decision.limit} requests per ${decision.windowSec} s exceeded for this organization`,
    {
      limit: decision.limit,
      period: `${decision.windowSec}s`,
      reset_at: new Date(decision.resetAtSec * 1000).toISOString(),
    },
    { headers },
  );
}

export const gatewayObserve = fp(observe, { name: 'steward-gateway-observe', dependencies: ['steward-route-auth'] });
