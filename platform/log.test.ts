import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormat } from './log.js';
import { repeatedKeys } from '../testing/log-lines.js';

function capture(format?: 'json' | 'pretty') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info', format }, stream) };
}

describe('logger redaction', () => {
  it.each([
    { name: 'an authorization header', obj: { req: { headers: { authorization: 'Bearer client-x-prod-SECRET' } } } },
    { name: 'a license key header', obj: { req: { headers: { 'x-license-key': 'STW-ENT-SECRET' } } } },
    { name: 'a client secret header', obj: { req: { headers: { 'x-client-secret': 'SECRET' } } } },
    { name: 'a nested apiKey', obj: { provider: { apiKey: 'SECRET' } } },
    { name: 'a database URL in config', obj: { config: { DATABASE_URL: 'postgres://u:SECRET@h/db' } } },
  ])('redacts $name', ({ obj }) => {
    const { lines, log } = capture();
    log.info(obj, 'event');
    expect(lines.join('')).not.toContain('SECRET');
    expect(lines.join('')).toContain('[redacted]');
  });
});

describe('log format', () => {
  it.each([
    { name: 'pretty on a terminal', setting: undefined, tty: true, want: 'pretty' },
    { name: 'JSON into a pipe or a file', setting: undefined, tty: false, want: 'json' },
    { name: 'JSON on a terminal when LOG_FORMAT=json', setting: 'json' as const, tty: true, want: 'json' },
    { name: 'pretty into a pipe when LOG_FORMAT=pretty', setting: 'pretty' as const, tty: false, want: 'pretty' },
  ])('is $name', ({ setting, tty, want }) => {
    expect(logFormat(setting, tty)).toBe(want);
  });

  it('pretty prints one line per entry, led by the component, with the command to try unescaped', () => {
    const { lines, log } = capture('pretty');
    const curl = `curl -d '{"query":"x"}'`;
    log.child({ component: 'gateway' }).child({ module: 'policies' }).info({ policies: 5 }, 'policies compiled');
    log.info({ try: curl }, 'ready');
    const text = lines.join('');
    expect(text.split('\n').filter(Boolean)).toHaveLength(2);
    expect(text).toMatch(/INFO.*\[gateway\/policies\] policies compiled \{"policies":5\}/);
    expect(text).toContain(`ready | try: ${curl}`);
  });

  it('redacts in pretty format too', () => {
    const { lines, log } = capture('pretty');
    log.info({ provider: { apiKey: 'SECRET' } }, 'event');
    expect(lines.join('')).not.toContain('SECRET');
  });

  it('writes JSON with no repeated key from a child of a child', () => {
    const { lines, log } = capture('json');
    log.child({ component: 'gateway' }).child({ module: 'policies' }).info({ policies: 5 }, 'policies compiled');
    expect(lines).toHaveLength(1);
    expect(repeatedKeys(lines[0]!)).toEqual([]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ component: 'gateway', module: 'policies' });
  });
});
