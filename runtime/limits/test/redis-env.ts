/**
 * Redis for the limiter tests: REDIS_URL or redis://127.0.0.1:6379. Each run uses its own key prefix and
 * deletes its keys afterwards, so runs (and other suites on the same Redis) never see each other's counters.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function connect(): Redis {
  return new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1, enableAutoPipelining: false });
}

/** Why Redis tests are skipped, or undefined when Redis answers. Fails loudly when REDIS_URL was set explicitly. */
export async function redisUnavailable(): Promise<string | undefined> {
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  try {
    await probe.connect();
    await probe.ping();
    return undefined;
  } catch (err) {
    if (process.env.REDIS_URL) throw new Error(`REDIS_URL is set but Redis does not answer: ${(err as Error).message}`);
    return `no Redis at ${REDIS_URL}`;
  } finally {
    probe.disconnect();
  }
}

export function uniquePrefix(label: string): string {
  return `steward-test:${label}:${randomUUID()}:`;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
