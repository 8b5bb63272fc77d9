/**
 * The special-purpose address ranges (IANA's IPv4 and IPv6 special-purpose registries, RFC 6890 and later) that
 * no outbound connection of ours may reach unless configured to, and the IPv4 addresses that some IPv6 ranges
 * carry. First match names the range, so narrower entries come before the ranges that contain them.
 */
import { inCidr, ipv4, parseCidr, type Cidr, type IpAddress } from './ip.js';

const SPECIAL: readonly (readonly [cidr: string, name: string])[] = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local, cloud metadata'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved, broadcast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible'],
  // NB: no ::ffff:0:0/96 (IPv4-mapped): a mapped address is the IPv4 address itself, judged as IPv4 (policy.ts).
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const cidr = (text: string): Cidr => {
  const c = parseCidr(text);
  if (!c) throw new Error(`not a CIDR: ${text}`);
  return c;
};

const SPECIAL_RANGES = SPECIAL.map(([text, name]) => ({ cidr: cidr(text), name: `${name} ${text}` }));

/** The special range `ip` lies in, named with its CIDR (`loopback 127.0.0.0/8`), or nothing for a public address. */
export function specialRange(ip: IpAddress): string | undefined {
  return SPECIAL_RANGES.find((r) => inCidr(ip, r.cidr))?.name;
}

const MAPPED = cidr('::ffff:0:0/96');
const COMPATIBLE = cidr('::/96');
/** `::` and `::1` lie in ::/96 but are the unspecified and loopback addresses, not IPv4 addresses. */
const UNSPECIFIED_AND_LOOPBACK = cidr('::/127');
const TRANSLATED = cidr('::ffff:0:0:0/96');
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');
const TEREDO = cidr('2001::/32');

/** The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`), which sockets treat as that IPv4 address. */
export function mappedIpv4(ip: IpAddress): IpAddress | undefined {
  return inCidr(ip, MAPPED) ? ipv4(ip.bytes.subarray(12)) : undefined;
}

/**
 * The IPv4 addresses an IPv6 address carries for a translator, relay or tunnel to deliver to: the last 32 bits
 * of IPv4-compatible, -translated and NAT64 addresses; bits 16–47 of 6to4; and Teredo's server (bits 32–63) and
 * client (the last 32 bits, inverted to keep NATs from rewriting it).
 */
export function embeddedIpv4(ip: IpAddress): IpAddress[] {
  const b = ip.bytes;
  if (inCidr(ip, UNSPECIFIED_AND_LOOPBACK)) return [];
  if (inCidr(ip, COMPATIBLE) || inCidr(ip, TRANSLATED) || inCidr(ip, NAT64)) return [ipv4(b.subarray(12))];
  if (inCidr(ip, SIX_TO_FOUR)) return [ipv4(b.subarray(2, 6))];
  if (inCidr(ip, TEREDO)) return [ipv4(b.subarray(4, 8)), ipv4(b.subarray(12).map((x) => x ^ 0xff))];
  return [];
}
