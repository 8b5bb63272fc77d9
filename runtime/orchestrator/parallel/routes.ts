/**
 * The Orchestrator's parallel surface: `POST /orchestrator/parallel`, `GET /orchestrator/health`,
 * `GET /orchestrator/metrics` and `GET /metrics` (the same figures; the reference clients call it). Errors use
 * the parallel surface's catalogue (api/errors.ts PARALLEL_ERRORS) in its format
 * `{success: false, error: {code, message, details?, request_id, timestamp}}`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { orchestratorHealth, orchestratorMetrics, parallelResponse } from '../../../api/http/orchestrator.js';
import type { PolicyCache } from '../../agent/policy-cache.js';
import { identityOf } from '../../auth/plugin.js';
import type { GovernedDeps } from '../../governed/index.js';
import { warnCaller } from '../../http/warning-header.js';
import { installErrorHandler } from '../../http/error-handler.js';
import { ApiError } from '../../http/errors.js';
import { responseSchema } from '../../http/serializer.js';
import { rateLimitHeaders, RateLimitStoreError, type RateLimiter } from '../../limits/index.js';
import type { Logger } from '../../../platform/log.js';
import type { StewardTelemetry } from '../../metrics/index.js';
import type { Store } from '../../store/index.js';
import type { AgentPool, PoolStatus } from '../pool/index.js';
import { runParallel } from './execute.js';
import { ParallelMetrics } from './metrics.js';
import { parseParallelRequest } from './request.js';
import { PARALLEL_MAX_TIMEOUT_MS } from '../../../api/http/orchestrator.js';

export interface ParallelDeps {
  pool: AgentPool;
  store: Store;
  /** The organization's request limits (100/min, 10,000/h), shared with the gateway (Redis when configured). */
  limiter: RateLimiter;
  /** Compiled policy texts; standalone shares it with the in-process agents. */
  policies: PolicyCache;
  /** The governed pipeline of every query: the organization's policies, output scan and audit rows. */
  governed: GovernedDeps;
  telemetry: StewardTelemetry;
  version: string;
  log: Logger;
  /** Healthy members needed to take a request; fewer (but some) answer 503 INSUFFICIENT_AGENTS. @default 1 */
  requiredAgents?: number;
  now?: () => Date;
}

const SURFACE = 'parallel' as const;
const DATABASE_PING_MS = 500;

export async function parallelRoutes(app: FastifyInstance, deps: ParallelDeps): Promise<void> {
  installErrorHandler(app, SURFACE, 'envelope');
  const now = deps.now ?? (() => new Date());
  const started = now().getTime();
  const required = deps.requiredAgents ?? 1;
  const metrics = new Metrics(now);
  deps.telemetry.watchAgentPool(() => deps.pool.status());

  app.post(
    '/orchestrator/parallel',
    {
      config: { auth: { require: 'license-key' } },
      onRequest: (req, reply, done) => {
        checkOrganizationHeader(req);
        rateLimit(deps.limiter, req, reply).then(() => done(), done);
      },
      schema: { response: { 200: responseSchema(parallelResponse) } },
    },
    async (req, reply) => {
      const startedAt = performance.now();
      const identity = identityOf(req);
      const organization = identity.organizationId;
      let ok = false;
      try {
        const request = parseParallelRequest(req.body, deps.policies);
        checkPool(deps.pool.status(), required);
        const client = new AbortController();
        req.raw.once('close', () => {
          if (!req.raw.complete || !req.raw.socket?.writable)
            client.abort(new Error('the client closed the connection'));
        });
        const outcome = await runParallel(request, {
          pool: deps.pool,
          requestId: req.id,
          maxRequestMs: PARALLEL_MAX_TIMEOUT_MS,
          signal: client.signal,
          log: req.log,
          now,
          governed: deps.governed,
          identity,
        });
        metrics.of(organization).recordExecution(request.queries.length, outcome.speedup);
        for (const r of outcome.results)
          deps.telemetry.parallelQueries.inc({ status: r.status, code: r.error?.code ?? '' });
        ok = true;
        warnCaller(reply, [...new Set(outcome.results.flatMap((r) => r.metadata.warnings ?? []))]);
        return { results: outcome.results, execution_summary: outcome.summary, request_id: req.id };
      } finally {
        metrics.of(organization).recordRequest(performance.now() - startedAt, ok);
      }
    },
  );

  app.get(
    '/orchestrator/health',
    {
      config: { auth: { require: 'none' } },
      schema: { response: { 200: responseSchema(orchestratorHealth), 503: responseSchema(orchestratorHealth) } },
    },
    async (_req, reply) => {
      const at = now();
      const database = await deps.store.db.ping(DATABASE_PING_MS).then(
        (ms) => ({ status: 'connected', latency_ms: Math.round(ms * 100) / 100 }),
        () => ({ status: 'disconnected', latency_ms: DATABASE_PING_MS }),
      );
      const pool = deps.pool.status();
      const enough = pool.healthy >= required && pool.healthy > 0;
      const healthy = enough && database.status === 'connected';
      return reply.code(healthy ? 200 : 503).send({
        status: healthy ? 'healthy' : 'unhealthy',
        version: deps.version,
        uptime_seconds: Math.round((at.getTime() - started) / 1000),
        components: {
          database,
          agents: {
            status: pool.healthy === pool.desired && pool.unhealthy === 0 && pool.healthy > 0 ? 'healthy' : 'degraded',
            available: pool.available,
            desired: pool.desired,
            healthy_agents: pool.healthy,
            unhealthy_agents: pool.unhealthy,
          },
          load_balancer: { status: enough ? 'healthy' : 'unhealthy' },
        },
        timestamp: at.toISOString(),
      });
    },
  );

  const metricsRoute = {
    config: { auth: { require: 'any' as const } },
    schema: { response: { 200: responseSchema(orchestratorMetrics) } },
  };
  const metricsBody = async (req: FastifyRequest) => metrics.of(identityOf(req).organizationId).snapshot(deps.pool);
  app.get('/orchestrator/metrics', metricsRoute, metricsBody);
  app.get('/metrics', metricsRoute, metricsBody);
}

/** X-Organization-ID is optional (the reference's SDKs do not send it); when sent, it must be the key's organization. */
function checkOrganizationHeader(req: FastifyRequest): void {
  const claimed = req.headers['x-organization-id'];
  if (claimed === undefined) return;
  const identity = identityOf(req);
  if (identity.credential === 'community') return;
  if (claimed !== identity.organizationId) {
    throw new ApiError(SURFACE, 'UNAUTHORIZED', 'X-Organization-ID does not name the organization of the license key');
  }
}

/** One parallel request counts as one request against the organization's limits; Redis failing fails open. */
async function rateLimit(limiter: RateLimiter, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const organization = identityOf(req).organizationId;
  let decision;
  try {
    decision = limiter.hitSync ? limiter.hitSync(organization) : await limiter.hit(organization);
  } catch (err) {
    if (!(err instanceof RateLimitStoreError)) throw err;
    req.log.error({ err }, 'rate limiter unavailable; allowing the request');
    return;
  }
  const headers = rateLimitHeaders(decision);
  void reply.headers(headers);
  if (decision.allowed) return;
  throw new ApiError(
    SURFACE,
    'RATE_LIMIT_EXCEEDED',
    `rate limit of ${decision.limit} requests per ${decision.windowSec} s exceeded for this organization`,
    {
      limit: decision.limit,
      period: `${decision.windowSec}s`,
      reset_at: new Date(decision.resetAtSec * 1000).toISOString(),
    },
    { headers },
  );
}

/** No healthy member: ORCHESTRATOR_UNAVAILABLE; fewer than `required`: INSUFFICIENT_AGENTS. Both 503, retryable. */
function checkPool(status: PoolStatus, required: number): void {
  const details = {
    required_agents: required,
    available_agents: status.available,
    healthy_agents: status.healthy,
    unhealthy_agents: status.unhealthy,
  };
  if (status.healthy === 0) {
    throw new ApiError(
      SURFACE,
      'ORCHESTRATOR_UNAVAILABLE',
      status.available === 0 ? 'the agent pool has no members' : `none of the ${status.available} agents is healthy`,
      details,
      {
        headers: { 'retry-after': '5' },
      },
    );
  }
  if (status.healthy < required) {
    throw new ApiError(
      SURFACE,
      'INSUFFICIENT_AGENTS',
      `${status.healthy} healthy agents; this orchestrator needs at least ${required}`,
      details,
      {
        headers: { 'retry-after': '5' },
      },
    );
  }
}

/** Parallel metrics per organization: a tenant sees its own requests (and the shared pool's members). */
class Metrics {
  private readonly byOrganization = new Map<string, ParallelMetrics>();
  constructor(private readonly now: () => Date) {}

  of(organization: string): ParallelMetrics {
    let m = this.byOrganization.get(organization);
    if (!m) {
      m = new ParallelMetrics({ now: () => this.now().getTime() });
      this.byOrganization.set(organization, m);
    }
    return m;
  }
}
