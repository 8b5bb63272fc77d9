import { createHash } from 'node:crypto';
import { RateLimitStoreError } from './types.js';

/**
 * The two calls the limiters need; `ioredis` Redis and Cluster clients both have them. A script's keys all
 * live in one hash slot (one key per call), so Cluster needs nothing more.
 */
export interface RedisScriptClient {
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Runs a Lua script by its SHA1 and sends the source only when the server does not have it cached (after a
 * restart or failover), bounded by a timeout.
 */
export function redisScript(
  source: string,
): (client: RedisScriptClient, keys: string[], args: (string | number)[], timeoutMs: number) => Promise<unknown> {
  const sha = createHash('sha1').update(source).digest('hex');
  return async (client, keys, args, timeoutMs) => {
    const run = async () => {
      try {
        return await client.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return client.eval(source, keys.length, ...keys, ...args);
      }
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new RateLimitStoreError(`redis did not answer within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } catch (err) {
      if (err instanceof RateLimitStoreError) throw err;
      throw new RateLimitStoreError(`redis failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Reads an integer array reply. */
export function integers(reply: unknown, length: number): number[] {
  if (
    !Array.isArray(reply) ||
    reply.length !== length ||
    !reply.every((v) => typeof v === 'number' || typeof v === 'string')
  ) {
    throw new RateLimitStoreError(`unexpected redis reply: ${JSON.stringify(reply)?.slice(0, 200)}`);
  }
  return reply.map(Number);
}
