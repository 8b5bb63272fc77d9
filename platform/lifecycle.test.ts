import { createServer, type Server } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { assemble, Lifecycle } from './lifecycle.js';
import { StartupError } from './startup-error.js';

const log = pino({ level: 'silent' });

describe('Lifecycle', () => {
  it('stops what it opened and started in reverse order, once', async () => {
    const events: string[] = [];
    const life = new Lifecycle(log);
    await life.open(
      'a',
      () => 'A',
      (v) => events.push(`close ${v}`),
    );
    await life.start({ name: 'b', start: () => void events.push('start b'), stop: () => void events.push('stop b') });
    life.defer('c', () => events.push('close c'));
    await Promise.all([life.stop(), life.stop()]);
    expect(events).toEqual(['start b', 'close c', 'stop b', 'close A']);
    expect(life.signal.aborted).toBe(true);
  });

  it('keeps stopping the rest when one stop fails', async () => {
    const events: string[] = [];
    const life = new Lifecycle(log);
    life.defer('a', () => events.push('a'));
    life.defer('b', () => {
      throw new Error('boom');
    });
    life.defer('c', () => events.push('c'));
    await life.stop();
    expect(events).toEqual(['c', 'a']);
  });

  it('refuses new parts once stopping', async () => {
    const life = new Lifecycle(log);
    await life.stop();
    await expect(
      life.open(
        'late',
        () => 1,
        () => undefined,
      ),
    ).rejects.toThrow(/stopping/);
  });

  it('assemble: a failure half way closes what was opened, and rethrows', async () => {
    const closed: string[] = [];
    const failure = new Error('redis did not answer');
    await expect(
      assemble(log, async (life) => {
        await life.open(
          'store',
          () => 'store',
          (s) => closed.push(s),
        );
        await life.open(
          'source',
          async () => 'source',
          (s) => closed.push(s),
        );
        await life.start({
          name: 'half-started',
          start: () => Promise.reject(failure),
          stop: () => closed.push('half'),
        });
        await life.open(
          'never',
          () => 'never',
          (s) => closed.push(s),
        );
      }),
    ).rejects.toBe(failure);
    expect(closed).toEqual(['half', 'source', 'store']);
  });

  it('listen: a port in use is a StartupError naming the setting, and the server is closed', async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    const server = createServer();
    let closed = false;
    const wrapped = {
      listen: ({ host, port: p }: { host: string; port: number }) =>
        new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(p, host, resolve);
        }),
      close: () => {
        closed = true;
        server.close();
      },
    };
    try {
      await expect(
        assemble(log, (life) =>
          life.listen('gateway', wrapped, { host: '127.0.0.1', port, setting: 'STEWARD_GATEWAY_PORT' }),
        ),
      ).rejects.toSatisfy((err) => err instanceof StartupError && err.setting === 'STEWARD_GATEWAY_PORT');
      expect(closed).toBe(true);
    } finally {
      taken.close();
    }
  });

  it('runs leader-only components for a term of leadership, and again for the next', async () => {
    const events: string[] = [];
    const life = new Lifecycle(log);
    await life.start({
      name: 'workers',
      leaderOnly: true,
      start: () => void events.push('start'),
      stop: () => void events.push('stop'),
    });
    expect(events).toEqual([]);
    const term = new AbortController();
    const led = life.lead(term.signal);
    await Promise.resolve();
    expect(events).toEqual(['start']);
    term.abort();
    await led;
    expect(events).toEqual(['start', 'stop']);
    const next = life.lead(new AbortController().signal);
    await life.stop();
    await next;
    expect(events).toEqual(['start', 'stop', 'start', 'stop']);
  });
});
