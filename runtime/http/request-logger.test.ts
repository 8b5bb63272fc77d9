import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../platform/log.js';
import { LazyChildLogger } from './request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ level }, stream), lines };
}

describe('LazyChildLogger', () => {
  it('creates no child while nothing is logged at an enabled level', () => {
    const { log, lines } = capture('info');
    const child = vi.spyOn(log, 'child');
    const req = new LazyChildLogger(log, { reqId: 'r-1' }, undefined);
    req.debug({ x: 1 }, 'below the level');
    req.trace('also below');
    expect(req.isLevelEnabled('debug')).toBe(false);
    expect(req.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('logs through one child with the request bindings, redacting as the parent does', () => {
    const { log, lines } = capture('info');
    const child = vi.spyOn(log, 'child');
    const req = new LazyChildLogger(log, { reqId: 'r-2' }, undefined);
    req.info({ password: 'hunter2', n: 1 }, 'first');
    req.error('second %s', 'formatted');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toMatchObject([
      { level: 30, reqId: 'r-2', n: 1, password: '[redacted]', msg: 'first' },
      { level: 50, reqId: 'r-2', msg: 'second formatted' },
    ]);
  });

  it('gives children of its own and takes a level', () => {
    const { log, lines } = capture('info');
    const req = new LazyChildLogger(log, { reqId: 'r-3' }, undefined);
    req.child({ component: 'x' }).warn('from a grandchild');
    req.level = 'debug';
    req.debug('now enabled');
    expect(lines).toMatchObject([
      { reqId: 'r-3', component: 'x', msg: 'from a grandchild' },
      { reqId: 'r-3', level: 20, msg: 'now enabled' },
    ]);
  });
});
