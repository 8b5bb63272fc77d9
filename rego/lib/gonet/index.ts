/**
 * Go's net package for IP addresses and networks (ParseIP, ParseCIDR, IPNet.Contains, IP.String:
 * addresses are 4 or 16 bytes, IPv4 parses to the v4-in-v6 form), and the CIDR merge OPA takes
 * from cilium/netaddr.
 *
 * API: parseIP(s) → IP | undefined; parseCIDR(s) → { ip, net } (throws CIDRParseError);
 * contains(net, ip); ipString(ip); netString(net); mergeCIDRs(nets) → string[]; and the byte helpers
 * to4, maskIP, cidrMask, maskOnes, defaultMask, toBig, fromBig.
 */
export {
  CIDRParseError,
  cidrMask,
  contains,
  defaultMask,
  fromBig,
  ipString,
  maskIP,
  maskOnes,
  netString,
  parseCIDR,
  parseIP,
  to4,
  toBig,
  type IP,
  type IPNet,
} from './ip.js';
export { mergeCIDRs } from './merge.js';
