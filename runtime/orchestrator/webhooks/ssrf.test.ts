import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { postWebhook, TargetRefusedError } from './send.js';
import { isPrivateAddress, registrationProblem } from './ssrf.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.8',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::5',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '2002:7f00:1::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    'fec0::1',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
  ])('refuses %s', (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1'])('allows %s', (ip) =>
    expect(isPrivateAddress(ip)).toBe(false),
  );
});

describe('registrationProblem (no DNS)', () => {
  it.each([
    ['ftp://example.com/hook', /scheme/],
    ['file:///etc/passwd', /scheme/],
    ['gopher://example.com', /scheme/],
    ['http://127.0.0.1:8080/hook', /private/],
    ['http://2130706433/hook', /private/],
    ['http://0x7f.1/hook', /private/],
    ['http://[::1]/hook', /private/],
    ['http://[::ffff:169.254.169.254]/latest/meta-data', /private/],
    ['http://169.254.169.254/latest/meta-data', /private/],
    ['http://10.0.0.1/hook', /private/],
    ['http://localhost:3000/hook', /loopback/],
    ['http://api.localhost/hook', /loopback/],
    ['http://localhost./hook', /loopback/],
    ['http://api.localhost./hook', /loopback/],
    ['http://LOCALHOST./hook', /loopback/],
    ['https://user:pw@example.com/hook', /credentials/],
    ['not a url', /absolute/],
  ])('refuses %s', (url, problem) => expect(registrationProblem(url, false)).toMatch(problem));

  it('accepts public http and https URLs', () => {
    expect(registrationProblem('https://hooks.example.com/steward', false)).toBeUndefined();
    expect(registrationProblem('http://93.184.216.34:8080/x', false)).toBeUndefined();
  });

  it('lets private hosts through when allowed, never other schemes', () => {
    expect(registrationProblem('http://127.0.0.1:9/x', true)).toBeUndefined();
    expect(registrationProblem('ftp://127.0.0.1/x', true)).toMatch(/scheme/);
  });
});

describe('postWebhook', () => {
  it('refuses, without connecting, a name that resolves to a loopback address, and a literal one', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await expect(
        postWebhook(`http://localhost:${port}/hook`, '{}', {}, { timeoutMs: 2000, allowPrivate: false }),
      ).rejects.toBeInstanceOf(TargetRefusedError);
      await expect(
        postWebhook(`http://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 2000, allowPrivate: false }),
      ).rejects.toBeInstanceOf(TargetRefusedError);
      expect(connections).toBe(0);
      expect(
        await postWebhook(`http://localhost:${port}/hook`, '{}', {}, { timeoutMs: 2000, allowPrivate: true }),
      ).toEqual({ status: 200 });
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it.each([
    'http://[::7f00:1]:9/hook',
    'http://[::ffff:0:7f00:1]:9/hook',
    'http://[2002:7f00:1::1]:9/hook',
    'http://[fec0::1]:9/hook',
    'http://192.0.2.1:9/hook',
  ])('refuses the literal %s before connecting', async (url) => {
    await expect(postWebhook(url, '{}', {}, { timeoutMs: 2000, allowPrivate: false })).rejects.toBeInstanceOf(
      TargetRefusedError,
    );
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await expect(
        postWebhook(`http://127.0.0.1:${port}/`, '{}', {}, { timeoutMs: 100, allowPrivate: true }),
      ).rejects.toThrow(/no answer within 100 ms/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
