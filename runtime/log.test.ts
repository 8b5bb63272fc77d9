import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info' }, stream) };
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
