/** Outbound-network pieces shared by webhooks and connectors: the SSRF address policy and its checked lookup. */
export { parseCidr, parseIp, type Cidr, type IpAddress } from './ip.js';
export { addressPolicy, InvalidCidrError, STRICT_POLICY, type AddressPolicy } from './policy.js';
export { guardedLookup, type RefusalError } from './lookup.js';
export { embeddedIpv4, mappedIpv4, specialRange } from './ranges.js';
