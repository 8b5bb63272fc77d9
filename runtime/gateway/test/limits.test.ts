import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../testing/gateway.js';

const REDIS_URL = process.env.REDIS_URL;
const opened: TestGateway[] = [];
afterAll(async () => {
  await Promise.all(opened.map((g) => g.close()));
});

const hit = (gw: TestGateway) =>
  gw.app.inject({
    method: 'POST',
    url: '/api/policies/test',
    headers: { 'x-license-key': gw.keys.acme },
    payload: { query: 'hi' },
  });

describe('rate limits on Agent endpoints', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the per-minute limit', async () => {
    const gw = await startTestGateway({ env: { STEWARD_RATE_LIMIT_PER_MINUTE: '3' } });
    opened.push(gw);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await hit(gw)).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    const refused = await hit(gw);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 3, period: '60s' } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('counts per organization', async () => {
    const gw = await startTestGateway({ env: { STEWARD_RATE_LIMIT_PER_MINUTE: '2' } });
    opened.push(gw);
    await hit(gw);
    await hit(gw);
    expect((await hit(gw)).statusCode).toBe(429);
    const other = await gw.app.inject({
      method: 'POST',
      url: '/api/policies/test',
      headers: { 'x-license-key': gw.keys.globex },
      payload: { query: 'hi' },
    });
    expect(other.statusCode).toBe(200);
  });

  it('never limits GET /health', async () => {
    const gw = await startTestGateway({ env: { STEWARD_RATE_LIMIT_PER_MINUTE: '1' } });
    opened.push(gw);
    for (let i = 0; i < 5; i++) expect((await gw.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  (REDIS_URL ? it : it.skip)('shares one limit between two gateway replicas through Redis', async () => {
    const redis = new Redis(REDIS_URL!);
    await redis.eval("for _,k in ipairs(redis.call('keys', 'steward:rl:gateway:*')) do redis.call('del', k) end", 0);
    await redis.quit();
    const env = { STEWARD_RATE_LIMIT_PER_MINUTE: '4', REDIS_URL: REDIS_URL! };
    const a = await startTestGateway({ env });
    const b = await startTestGateway({ env });
    opened.push(a, b);
    // Each replica has its own key for organization acme; the limit is the organization's, shared in Redis.
    const statuses = [await hit(a), await hit(b), await hit(a), await hit(b), await hit(a)].map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.at(-1)).toBe(429);
  });
});
