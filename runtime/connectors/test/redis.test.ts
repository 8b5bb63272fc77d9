import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createConnector } from '../factory.js';
import type { Connector } from '../types.js';
import { REDIS_URL, connectorDoc, runId } from './fixtures.js';

const prefix = `${runId()}:`;
const open: Connector[] = [];
const make = async (options: Record<string, unknown> = {}) => {
  const c = await createConnector(
    connectorDoc('cache', 'redis', 'REDIS', { options: { keyPrefix: prefix, ...options } }),
    REDIS_URL,
  );
  open.push(c);
  return c;
};
const limits = { timeoutMs: 5000, maxRows: 1000, maxResultBytes: 1 << 20, redact: false };

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  const r = new Redis(REDIS_URL);
  const keys = await r.keys(`${prefix}*`);
  if (keys.length > 0) await r.del(...keys);
  await r.quit();
});

describe('redis connector', () => {
  it('writes through a read-write connector and reads through a read-only one, under the key prefix', async () => {
    const rw = await make({ readOnly: false });
    await rw.execute('set', { key: 'greeting', value: 'hello' }, limits);
    await rw.query(rw.prepare('HSET', ['user:1', 'name', 'Ada', 'email', 'ada.lovelace@corp.io']), limits);
    const ro = await make();
    expect((await ro.query(ro.prepare('GET', ['greeting']), limits)).rows).toEqual([{ value: 'hello' }]);
    const hash = await ro.query(ro.prepare('hgetall', ['user:1']), { ...limits, redact: true });
    expect(hash.rows).toEqual([
      { field: 'name', value: 'Ada' },
      { field: 'email', value: '[REDACTED:email]' },
    ]);
    expect(hash.redactions).toEqual({ email: 1 });
    const raw = new Redis(REDIS_URL);
    expect(await raw.get(`${prefix}greeting`)).toBe('hello');
    await raw.quit();
  });

  it('refuses writes on a read-only connector and commands outside the allowlist everywhere', async () => {
    const [ro, rw] = [await make(), await make({ readOnly: false })];
    expect(() => ro.prepare('SET', ['k', 'v'])).toThrow(
      expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED', reason: 'READ_ONLY' }),
    );
    expect(() => rw.prepare('FLUSHALL', [])).toThrow(
      expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED', reason: 'COMMAND_NOT_ALLOWED' }),
    );
    expect(() => rw.prepare('EVAL', ['return 1', 0])).toThrow(
      expect.objectContaining({ code: 'OPERATION_NOT_ALLOWED' }),
    );
  });

  it('reports health, and unavailability without the URL when nothing listens', async () => {
    expect((await (await make()).health(2000)).ok).toBe(true);
    const dead = await createConnector(
      connectorDoc('dead', 'redis', 'R', { options: { connectTimeoutMs: 300 } }),
      'redis://:Sup3rS3cretPw@127.0.0.1:1',
    );
    open.push(dead);
    const h = await dead.health(1000);
    expect(h.ok).toBe(false);
    expect(h.error).not.toContain('Sup3rS3cretPw');
  });
});
