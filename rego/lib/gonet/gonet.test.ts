import { describe, expect, it } from 'vitest';
import { CIDRParseError, contains, ipString, mergeCIDRs, netString, parseCIDR, parseIP } from './index.js';

describe('IP addresses and networks', () => {
  it.each([
    { input: '::ffff:10.0.0.1', want: '10.0.0.1' },
    { input: '2001:0db8::0001', want: '2001:db8::1' },
    { input: '10.0.0.1', want: '10.0.0.1' },
  ])('prints $input as Go does', ({ input, want }) => {
    expect(ipString(parseIP(input)!)).toBe(want);
  });

  it('rejects what net.ParseIP and net.ParseCIDR reject', () => {
    expect(parseIP('1.2.3')).toBeUndefined();
    expect(() => parseCIDR('10.0.0.0/33')).toThrow(new CIDRParseError('invalid CIDR address: 10.0.0.0/33'));
  });

  it('masks the network of a CIDR and tests containment', () => {
    const { net } = parseCIDR('10.1.2.3/8');
    expect(netString(net)).toBe('10.0.0.0/8');
    expect(contains(net, parseIP('10.9.9.9')!)).toBe(true);
    expect(contains(net, parseIP('11.0.0.0')!)).toBe(false);
  });

  it('merges adjacent networks and keeps the others', () => {
    const nets = ['10.0.0.0/25', '10.0.0.128/25', '192.168.1.1/32'].map((c) => parseCIDR(c).net);
    expect(mergeCIDRs(nets)).toEqual(['10.0.0.0/24', '192.168.1.1/32']);
  });
});
