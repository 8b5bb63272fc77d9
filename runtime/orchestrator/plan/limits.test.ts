import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Identity } from '../../auth/identity.js';
import { ApiError } from '../../http/errors.js';
import { MemoryConcurrencyLimiter, MemoryRateLimiter, type ConcurrencyLease } from '../../limits/index.js';
import { PlanLimits } from './limits.js';

/** The headers a reply was given; the limiter sets nothing else on it. */
function replyRecorder() {
  const headers: Record<string, string> = {};
  const reply = { headers: (h: Record<string, string>) => Object.assign(headers, h) } as unknown as FastifyReply;
  return { reply, headers };
}
const log = { error: () => {} } as unknown as FastifyBaseLogger;
const identity = (organizationId: string, tier: Identity['tier']): Identity => ({
  credential: 'license-key',
  organizationId,
  tier,
});

/** A clock in the middle of a minute, so that no window rolls over during a test. */
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);

function limits() {
  return new PlanLimits(
    new MemoryRateLimiter({ windows: [{ limit: 100, windowSec: 60 }], now: () => NOW }),
    new MemoryConcurrencyLimiter({ defaultLimit: 5 }),
  );
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('plan limits per tier', () => {
  it.each([
    { name: 'Community: 60 requests a minute', tier: 'COMMUNITY' as const, perMinute: 60 },
    { name: 'Professional: 300 requests a minute', tier: 'PRO' as const, perMinute: 300 },
    { name: 'Enterprise: 1,000 requests a minute', tier: 'ENT' as const, perMinute: 1000 },
  ])('$name, then 429 RATE_LIMITED with X-RateLimit-* and Retry-After', async ({ tier, perMinute }) => {
    const l = limits();
    for (let i = 0; i < perMinute; i++) {
      const { reply } = replyRecorder();
      await (await l.admit(identity('acme', tier), reply, log))?.release();
    }
    const { reply, headers } = replyRecorder();
    const err = await refusal(l.admit(identity('acme', tier), reply, log));
    expect([err.code, err.status]).toEqual(['RATE_LIMITED', 429]);
    expect(err.headers).toMatchObject({
      'X-RateLimit-Limit': String(perMinute),
      'X-RateLimit-Remaining': '0',
      'Retry-After': '30',
    });
    expect(headers['X-RateLimit-Limit']).toBe(String(perMinute));
    // Another organization has its own budget.
    await expect(l.admit(identity('globex', tier), replyRecorder().reply, log)).resolves.toBeDefined();
  });

  it.each([
    { tier: 'COMMUNITY' as const, concurrent: 5 },
    { tier: 'PRO' as const, concurrent: 25 },
    { tier: 'ENT' as const, concurrent: 100 },
  ])('$tier runs $concurrent plans at once; one more is 429 until a plan ends', async ({ tier, concurrent }) => {
    const l = limits();
    const held: ConcurrencyLease[] = [];
    for (let i = 0; i < concurrent; i++)
      held.push((await l.admit(identity('acme', tier), replyRecorder().reply, log))!);
    const err = await refusal(l.admit(identity('acme', tier), replyRecorder().reply, log));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.details).toMatchObject({ concurrent_plans: concurrent, limit: concurrent });
    expect(err.headers?.['Retry-After']).toBe('1');
    await held.pop()!.release();
    await expect(l.admit(identity('acme', tier), replyRecorder().reply, log)).resolves.toBeDefined();
  });
});
