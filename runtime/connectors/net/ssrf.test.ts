import { describe, expect, it } from 'vitest';
import { addressPolicy, assertOnOrigin } from './ssrf.js';

describe('addressPolicy', () => {
  const strict = addressPolicy([]);
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '2001:db8::1',
    'not-an-ip',
    '::7f00:1',
    '::127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    'fec0::1',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
  ])('refuses %s', (address) => {
    expect(strict.allows(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(strict.allows(address)).toBe(true);
    },
  );

  it('allows a private network only when allowedCidrs names it', () => {
    const p = addressPolicy(['127.0.0.1/32', '10.0.0.0/8']);
    expect(p.allows('127.0.0.1')).toBe(true);
    expect(p.allows('::ffff:127.0.0.1')).toBe(true);
    expect(p.allows('127.0.0.2')).toBe(false);
    expect(p.allows('10.9.9.9')).toBe(true);
    expect(p.allows('192.168.0.1')).toBe(false);
  });

  it('refuses a bad CIDR as misconfiguration', () => {
    expect(() => addressPolicy(['localhost'])).toThrow(expect.objectContaining({ code: 'CONNECTOR_MISCONFIGURED' }));
  });
});

describe('assertOnOrigin', () => {
  const origin = new URL('https://api.example.com/v1/');
  it('refuses another origin, scheme or port', () => {
    for (const u of [
      'https://evil.example.com/',
      'http://api.example.com/',
      'https://api.example.com:444/',
      'https://api.example.com.evil.io/',
    ]) {
      expect(() => assertOnOrigin(new URL(u), origin, addressPolicy([]))).toThrow(
        expect.objectContaining({ code: 'SSRF_REFUSED', reason: 'OTHER_ORIGIN' }),
      );
    }
    expect(() => assertOnOrigin(new URL('https://api.example.com/v2/x'), origin, addressPolicy([]))).not.toThrow();
  });

  it('refuses IP-literal hosts in private ranges, including bracketed IPv6', () => {
    expect(() =>
      assertOnOrigin(new URL('http://[::1]:8080/'), new URL('http://[::1]:8080/'), addressPolicy([])),
    ).toThrow(expect.objectContaining({ reason: 'PRIVATE_ADDRESS' }));
    expect(() =>
      assertOnOrigin(new URL('http://[::1]:8080/'), new URL('http://[::1]:8080/'), addressPolicy(['::1/128'])),
    ).not.toThrow();
  });
});
