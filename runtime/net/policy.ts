/**
 * The one address policy of outbound connections to URLs a user configures: webhooks (registration and every
 * delivery) and the http and mcp connectors. An address is refused when it lies in a special-purpose range
 * (ranges.ts) or carries an IPv4 address that does, unless a configured network (a connector's `allowedCidrs`)
 * names it. Anything that does not parse as an address is refused: the guard fails closed.
 */
import { inCidr, parseCidr, parseIp, type Cidr, type IpAddress } from './ip.js';
import { embeddedIpv4, mappedIpv4, specialRange } from './ranges.js';

export interface AddressPolicy {
  /** Why a connection to `address` is refused (the range, e.g. `loopback 127.0.0.0/8`), or nothing when allowed. */
  refusal(address: string): string | undefined;
  allows(address: string): boolean;
}

export class InvalidCidrError extends Error {
  constructor(readonly cidr: string) {
    super(`${cidr} is not a CIDR`);
    this.name = 'InvalidCidrError';
  }
}

/**
 * `allowedCidrs` are networks reachable even when special (`10.0.0.0/8`, `::1/128`); an IPv4 address in any
 * spelling (`::ffff:10.0.0.1`) is allowed only by an IPv4 network, and an IPv6 network allowed this way still does
 * not reach a special IPv4 address it carries (NAT64 of 169.254.169.254) unless that IPv4
 * network is allowed too. Throws InvalidCidrError for an entry that is not a CIDR.
 */
export function addressPolicy(allowedCidrs: readonly string[] = []): AddressPolicy {
  const allowed: Cidr[] = allowedCidrs.map((text) => {
    const c = parseCidr(text);
    if (!c) throw new InvalidCidrError(text);
    return c;
  });
  const isAllowed = (ip: IpAddress) => allowed.some((c) => inCidr(ip, c));
  const judge = (ip: IpAddress): string | undefined => {
    // NB: a mapped address is the IPv4 address on the wire, so only IPv4 rules may allow it: `::/0` in
    // allowedCidrs means the IPv6 internet, not every IPv4 address spelled as IPv6.
    const mapped = mappedIpv4(ip);
    if (mapped) return judge(mapped);
    if (isAllowed(ip)) return checkEmbedded(ip);
    const range = specialRange(ip);
    return range ?? checkEmbedded(ip);
  };
  const checkEmbedded = (ip: IpAddress): string | undefined => {
    for (const v4 of embeddedIpv4(ip)) {
      const why = judge(v4);
      if (why) return `${why}, carried in ${specialRange(ip) ?? 'an IPv6 address'}`;
    }
    return undefined;
  };
  const refusal = (address: string): string | undefined => {
    const ip = parseIp(address);
    return ip ? judge(ip) : 'not an IP address';
  };
  return { refusal, allows: (address) => refusal(address) === undefined };
}

/** The policy without configured networks: every special-purpose address is refused. */
export const STRICT_POLICY: AddressPolicy = addressPolicy();
