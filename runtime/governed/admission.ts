/**
 * The pipeline's admission: a call's tokens reserved on its organization's tokens per minute (first), and its worst
 * case on the budgets that charge it (once the upstream is known).
 */
import type { Identity } from '../auth/identity.js';
import { ApiError } from '../http/errors.js';
import { DEFAULT_MAX_TOKENS } from '../llm/index.js';
import { RateLimitStoreError, type RateLimitDecision } from '../limits/index.js';
import type { BudgetHold } from '../budgets/gate.js';
import type { GovernedDeps, GovernedRequest, Upstream } from './types.js';

/** Tokens a call reserved; `settle` gives back what it did not use (once). */
export interface TokenReservation {
  settle(used: number): void;
}

/**
 * Reserves a call's worst case on its organization's tokens per minute (`deps.tokens`): the prompt's estimated
 * tokens (characters / 4) plus its token budget. A call larger than the whole limit is charged the limit (it passes
 * only in an unused minute). When the call ends, the reservation is brought down to the tokens it used (the
 * provider's usage; 0 for a call that never reached it), so the limit counts use, not worst cases. Refused: 429
 * RATE_LIMITED with Retry-After. NB: as for request limits, a failing Redis lets the call through and says so in
 * the log; a failed release is logged and forgotten (the window ends within the minute).
 */
export async function admitTokens(
  deps: GovernedDeps,
  identity: Identity,
  prompt: string,
  maxTokens: number | undefined,
): Promise<TokenReservation | undefined> {
  if (!deps.tokens) return undefined;
  const { limiter, perMinute } = deps.tokens;
  const cost = Math.min(perMinute, Math.ceil(prompt.length / 4) + (maxTokens ?? DEFAULT_MAX_TOKENS));
  let decision: RateLimitDecision;
  try {
    decision = limiter.hitSync
      ? limiter.hitSync(identity.organizationId, cost)
      : await limiter.hit(identity.organizationId, cost);
  } catch (err) {
    if (!(err instanceof RateLimitStoreError)) throw err;
    deps.log.error({ err }, 'token limiter unavailable; allowing the call');
    return undefined;
  }
  if (decision.allowed) {
    let settled = false;
    return {
      settle(used) {
        if (settled) return;
        settled = true;
        const back = cost - Math.min(cost, Math.max(0, Math.ceil(used)));
        if (back <= 0) return;
        limiter
          .release(identity.organizationId, back, decision.atMs)
          .catch((err: unknown) => deps.log.warn({ err }, 'token reservation not released'));
      },
    };
  }
  deps.telemetry.rateLimitRejections.inc({ window: 'tokens-60s' });
  throw new ApiError(
    'gateway',
    'RATE_LIMITED',
    `token limit of ${decision.limit} LLM tokens per minute exceeded for this organization (this call reserves ${cost}: prompt characters / 4 plus max_tokens)`,
    {
      limit: decision.limit,
      period: `${decision.windowSec}s`,
      unit: 'tokens',
      requested: cost,
      remaining: decision.remaining,
      reset_at: new Date(decision.resetAtSec * 1000).toISOString(),
    },
    { headers: { 'retry-after': String(decision.retryAfterSec) } },
  );
}

/**
 * Reserves the call's worst case on the budgets that charge it (runtime/budgets/gate.ts), once its upstream — the
 * provider and model that will answer — is known; undefined when no budget charges it. Throws BudgetExceededError
 * (429) before the upstream is called.
 */
export async function admitBudget(
  deps: GovernedDeps,
  req: GovernedRequest,
  upstream: Pick<Upstream, 'provider' | 'model'>,
): Promise<BudgetHold | undefined> {
  if (!deps.budgets) return undefined;
  const { provider, model } = answeringModel(req, upstream);
  return deps.budgets.admit({
    organizationId: req.identity.organizationId,
    tenantId: req.identity.tenantId,
    // NB: the verified client only (an API key): a body's client_id is descriptive.
    clientId: req.identity.clientId,
    agent: req.agent,
    provider,
    model,
    prompt: req.prompt,
    maxTokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
  });
}

/**
 * The provider and model a call is priced and matched by: the upstream's, unless it only knows them as `default`
 * (a pool agent calls its AgentConfig's), then what the call asked for.
 */
export function answeringModel(
  req: Pick<GovernedRequest, 'llm'>,
  upstream: Pick<Upstream, 'provider' | 'model'>,
): { provider: string; model: string } {
  return {
    provider: upstream.provider !== 'default' ? upstream.provider : (req.llm?.provider ?? upstream.provider),
    model: upstream.model !== 'default' ? upstream.model : (req.llm?.model ?? upstream.model),
  };
}
