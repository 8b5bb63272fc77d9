import { describe, expect, it } from 'vitest';
import { parseCidr, parseIp } from './ip.js';
import { addressPolicy, InvalidCidrError, STRICT_POLICY } from './policy.js';

/** The one address policy of webhooks and connectors: each address with the range that refuses it, or public. */
const REFUSED: [address: string, range: RegExp][] = [
  ['0.0.0.0', /this network/],
  ['10.1.2.3', /private 10\.0\.0\.0\/8/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['127.0.0.1', /loopback 127\.0\.0\.0\/8/],
  ['127.255.255.254', /loopback/],
  ['169.254.169.254', /link-local/],
  ['172.16.0.1', /private 172\.16/],
  ['172.31.255.255', /private 172\.16/],
  ['192.0.0.8', /IETF protocol assignments/],
  ['192.0.2.1', /TEST-NET-1/],
  ['192.88.99.1', /6to4 relay/],
  ['192.168.1.1', /private 192\.168/],
  ['198.18.0.1', /benchmarking/],
  ['198.19.255.255', /benchmarking/],
  ['198.51.100.7', /TEST-NET-2/],
  ['203.0.113.9', /TEST-NET-3/],
  ['224.0.0.1', /multicast/],
  ['255.255.255.255', /reserved, broadcast/],
  ['::', /unspecified/],
  ['::1', /loopback ::1\/128/],
  ['0:0:0:0:0:0:0:1', /loopback ::1\/128/],
  // IPv4-compatible (::/96): refused as a range, and by the IPv4 it carries.
  ['::7f00:1', /IPv4-compatible ::\/96/],
  ['::127.0.0.1', /IPv4-compatible/],
  ['::808:808', /IPv4-compatible/],
  // IPv4-mapped (::ffff:0:0/96): judged as the IPv4 address it is.
  ['::ffff:127.0.0.1', /loopback 127\.0\.0\.0\/8/],
  ['::ffff:7f00:1', /loopback 127\.0\.0\.0\/8/],
  ['::ffff:a9fe:a9fe', /link-local/],
  ['0:0:0:0:0:ffff:c0a8:101', /private 192\.168/],
  // IPv4-translated (::ffff:0:0:0/96).
  ['::ffff:0:7f00:1', /IPv4-translated/],
  ['::ffff:0:808:808', /IPv4-translated/],
  ['64:ff9b::a9fe:a9fe', /NAT64/],
  ['64:ff9b::808:808', /NAT64/],
  ['64:ff9b:1::1', /local-use NAT64/],
  ['100::1', /discard-only/],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo/],
  ['2001:2::1', /IETF protocol assignments/],
  ['2001:db8::1', /documentation 2001:db8::\/32/],
  ['2002:7f00:1::1', /6to4/],
  ['2002:808:808::1', /6to4/],
  ['3fff::1', /documentation 3fff::\/20/],
  ['5f00::1', /segment routing/],
  ['fc00::1', /unique local/],
  ['fd12:3456::1', /unique local/],
  ['fe80::1', /link-local fe80/],
  ['fe80::1%eth0', /link-local fe80/],
  ['febf::1', /link-local fe80/],
  ['fec0::1', /site-local/],
  ['feff::1', /site-local/],
  ['ff02::1', /multicast/],
  ['localhost', /not an IP address/],
  ['', /not an IP address/],
  ['1.2.3', /not an IP address/],
];

const PUBLIC = [
  '8.8.8.8',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '198.20.0.1',
  '223.255.255.255',
  '::ffff:8.8.8.8',
  '2606:4700:4700::1111',
  '2a00:1450:4001::200e',
  '2001:200::1',
  'fbff::1',
  'fe7f::1',
];

describe('the shared address policy', () => {
  it.each(REFUSED)('refuses %s (%s)', (address, range) => {
    expect(STRICT_POLICY.allows(address)).toBe(false);
    expect(STRICT_POLICY.refusal(address)).toMatch(range);
  });

  it.each(PUBLIC)('allows the public address %s', (address) => {
    expect(STRICT_POLICY.refusal(address)).toBeUndefined();
  });

  it('judges an IPv6 address by the IPv4 it carries even where its own range is allowed', () => {
    const nat64 = addressPolicy(['64:ff9b::/96', '2002::/16', '2001::/32']);
    expect(nat64.allows('64:ff9b::808:808')).toBe(true);
    expect(nat64.refusal('64:ff9b::a9fe:a9fe')).toMatch(
      /link-local, cloud metadata 169\.254\.0\.0\/16, carried in NAT64/,
    );
    expect(nat64.refusal('2002:a00:1::1')).toMatch(/private 10\.0\.0\.0\/8, carried in 6to4/);
    // Teredo's client address is stored inverted: 80ff:fffe is 127.0.0.1.
    expect(nat64.refusal('2001:0:4136:e378:8000:63bf:80ff:fffe')).toMatch(
      /loopback 127\.0\.0\.0\/8, carried in Teredo/,
    );
    // RFC 4380's example: the client is 192.0.2.45, a documentation address.
    expect(nat64.refusal('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toMatch(/TEST-NET-1/);
    expect(nat64.allows('2001:0:4136:e378:8000:63bf:f7f7:f7f7')).toBe(true);
  });

  it('allows a special network only when allowedCidrs names it, IPv4-mapped forms included', () => {
    const p = addressPolicy(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8']);
    expect(p.allows('127.0.0.1')).toBe(true);
    expect(p.allows('::ffff:127.0.0.1')).toBe(true);
    expect(p.allows('127.0.0.2')).toBe(false);
    expect(p.allows('10.9.9.9')).toBe(true);
    expect(p.allows('fd00::5')).toBe(true);
    expect(p.allows('fc00::5')).toBe(false);
    expect(p.allows('192.168.0.1')).toBe(false);
    expect(addressPolicy(['::1/128']).allows('::1')).toBe(true);
    // An allowed IPv4 network does not open its IPv6 spellings that are not the IPv4 address itself.
    expect(p.allows('::7f00:1')).toBe(false);
    expect(p.allows('::ffff:0:a00:1')).toBe(false);
    expect(p.allows('64:ff9b::a00:1')).toBe(false);
  });

  it('does not let an IPv6 rule match IPv4 addresses, in any spelling (node BlockList does, for ::ffff:0:0/96)', () => {
    const p = addressPolicy(['::ffff:0:0/96']);
    expect(p.allows('::ffff:10.0.0.1')).toBe(false);
    expect(p.allows('10.0.0.1')).toBe(false);
    expect(addressPolicy(['::ffff:0:0/96', '10.0.0.0/8']).allows('::ffff:10.0.0.1')).toBe(true);
  });

  it('judges an IPv4-mapped address as the IPv4 address even when an IPv6 rule covers it (allowedCidrs ::/0)', () => {
    const everyV6 = addressPolicy(['::/0']);
    expect(everyV6.allows('2a00:1450::1')).toBe(true);
    for (const mapped of ['::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1', '::ffff:10.0.0.1']) {
      expect(everyV6.refusal(mapped), mapped).toBeDefined();
    }
  });

  it('refuses entries that are not CIDRs', () => {
    for (const bad of ['localhost', '10.0.0.0', '10.0.0.0/33', '::/129', 'fe80::%eth0/64', '10.0.0.0/8/8']) {
      expect(() => addressPolicy([bad])).toThrow(InvalidCidrError);
    }
  });
});

describe('parseIp and parseCidr', () => {
  it('reads every IPv6 spelling to the same bytes', () => {
    const loop = Array.from(parseIp('::1')!.bytes);
    for (const s of ['0:0:0:0:0:0:0:1', '::0:1', '0::1', '::0.0.0.1'])
      expect(Array.from(parseIp(s)!.bytes)).toEqual(loop);
    expect(Array.from(parseIp('::ffff:1.2.3.4')!.bytes.subarray(10))).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(Array.from(parseIp('1::')!.bytes)).toEqual([0, 1, ...new Array(14).fill(0)]);
  });

  it('refuses what node does not call an IP address', () => {
    for (const s of ['010.0.0.1', '1.2.3.256', ':::1', '1:2:3:4:5:6:7:8:9', 'example.com'])
      expect(parseIp(s)).toBeUndefined();
  });

  it('reads prefixes of both families', () => {
    expect(parseCidr('10.0.0.0/8')).toMatchObject({ family: 4, bits: 8 });
    expect(parseCidr(' fc00::/7 ')).toMatchObject({ family: 6, bits: 7, text: 'fc00::/7' });
  });
});
