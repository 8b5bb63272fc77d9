import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ConnectorError } from '../errors.js';

/**
 * The SSRF guard for http and mcp connectors: one configured origin, and no connection to a private,
 * loopback, link-local, CGNAT, multicast, documentation or otherwise special address unless the
 * connector lists its network in `allowedCidrs`. It runs in the socket's DNS lookup, so the address
 * checked is the address connected to (no DNS-rebinding window).
 */
const SPECIAL_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24',
  '224.0.0.0/4', '240.0.0.0/4',
];
const SPECIAL_V6 = [
  // NB: no ::ffff:0:0/96 here: BlockList matches IPv4 addresses against IPv4-mapped rules, which would
  // refuse every IPv4 address; mapped addresses are judged by their IPv4 part (embeddedV4) instead.
  '::/127', '64:ff9b::/96', '64:ff9b:1::/48', '100::/64', '2001::/23', '2001:db8::/32',
  '2002::/16', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
];

const special = new BlockList();
for (const c of SPECIAL_V4) addCidr(special, c);
for (const c of SPECIAL_V6) addCidr(special, c);

function addCidr(list: BlockList, cidr: string): void {
  const [net, bits] = cidr.split('/');
  const family = isIP(net ?? '');
  if (!net || family === 0 || bits === undefined || !/^\d+$/.test(bits)) {
    throw new ConnectorError('CONNECTOR_MISCONFIGURED', `allowedCidrs: ${cidr} is not a CIDR`);
  }
  list.addSubnet(net, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
}

/** An IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d / ::ffff:hhhh:hhhh) IPv6 address. */
function embeddedV4(address: string): string | undefined {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export interface AddressPolicy {
  /** Is this resolved address one we may connect to? */
  allows(address: string): boolean;
}

export function addressPolicy(allowedCidrs: readonly string[]): AddressPolicy {
  const allowed = new BlockList();
  for (const c of allowedCidrs) addCidr(allowed, c);
  const check = (address: string): boolean => {
    const family = isIP(address);
    if (family === 0) return false;
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (allowed.check(address, type)) return true;
    const v4 = family === 6 ? embeddedV4(address) : undefined;
    if (v4 !== undefined) return check(v4);
    return !special.check(address, type);
  };
  return { allows: check };
}

/** A `lookup` for net/tls connect options that refuses addresses the policy does not allow. */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const bad = addresses.find((a) => !policy.allows(a.address));
      if (bad || addresses.length === 0) {
        return callback(new ConnectorError('SSRF_REFUSED', 'destination address is private or reserved', { reason: 'PRIVATE_ADDRESS' }));
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/** The origin (scheme://host:port) of a configured base URL; only http and https. */
export function originOf(base: string): URL {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'connection URL does not parse');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'connection URL must be http or https');
  return u;
}

/** Refuses a URL off the origin, and an IP-literal host the policy forbids (no lookup runs for those). */
export function assertOnOrigin(target: URL, origin: URL, policy: AddressPolicy): void {
  if (target.origin !== origin.origin) throw new ConnectorError('SSRF_REFUSED', 'destination is not the connector origin', { reason: 'OTHER_ORIGIN' });
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !policy.allows(host)) {
    throw new ConnectorError('SSRF_REFUSED', 'destination address is private or reserved', { reason: 'PRIVATE_ADDRESS' });
  }
}
