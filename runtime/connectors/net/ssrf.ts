import { isIP } from 'node:net';
import {
  addressPolicy as netPolicy,
  guardedLookup as netLookup,
  InvalidCidrError,
  type AddressPolicy,
} from '../../net/index.js';
import { ConnectorError } from '../errors.js';

/**
 * The SSRF guard for http and mcp connectors: one configured origin, paths at or below the configured URL's
 * path, and no connection to an address the shared policy (runtime/net) refuses unless the connector lists its
 * network in `allowedCidrs`. The address check runs in the socket's DNS lookup, so the address checked is the
 * address connected to (no DNS-rebinding window); IP-literal hosts are checked before any request.
 */
export type { AddressPolicy };

/** The shared policy with the connector's `allowedCidrs`; an entry that is not a CIDR is misconfiguration. */
export function addressPolicy(allowedCidrs: readonly string[]): AddressPolicy {
  try {
    return netPolicy(allowedCidrs);
  } catch (e) {
    if (e instanceof InvalidCidrError)
      throw new ConnectorError('CONNECTOR_MISCONFIGURED', `allowedCidrs: ${e.cidr} is not a CIDR`);
    throw e;
  }
}

const privateAddress = () =>
  new ConnectorError('SSRF_REFUSED', 'destination address is private or reserved', { reason: 'PRIVATE_ADDRESS' });

/** A `lookup` for undici connect options that refuses addresses the policy does not allow. */
export function guardedLookup(policy: AddressPolicy) {
  return netLookup(policy, privateAddress);
}

/** The origin (scheme://host:port) of a configured base URL; only http and https. */
export function originOf(base: string): URL {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'connection URL does not parse');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConnectorError('CONNECTOR_MISCONFIGURED', 'connection URL must be http or https');
  return u;
}

/** Refuses a URL off the origin, and an IP-literal host the policy forbids (no lookup runs for those). */
export function assertOnOrigin(target: URL, origin: URL, policy: AddressPolicy): void {
  if (target.origin !== origin.origin)
    throw new ConnectorError('SSRF_REFUSED', 'destination is not the connector origin', { reason: 'OTHER_ORIGIN' });
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !policy.allows(host)) throw privateAddress();
}

/** The path a base URL scopes its requests to: its path without trailing slashes ('' for the whole origin). */
export const basePathOf = (base: URL): string => base.pathname.replace(/\/+$/, '');

/**
 * Whether `target` is at or below `basePath`. NB: the URL parser has already resolved `..` and `%2e%2e`, so
 * "/v1/../admin" arrives here as "/admin"; "/v1-admin" is not below "/v1".
 */
export const isBelowBasePath = (target: URL, basePath: string): boolean =>
  basePath === '' || target.pathname === basePath || target.pathname.startsWith(`${basePath}/`);

/**
 * Whether a path holds what a backend may decode into another path after our checks: a percent-encoded `/` or `\`
 * (also double-encoded), or a segment that decodes to `.` or `..` (with a `;parameter`, which some servers strip).
 * The URL parser resolved the plain dot segments already; these encoded ones reach the backend as they are.
 * NB: refused even where a backend would treat `%2F` as data (ids with slashes): the guard cannot know which.
 */
export function hasEncodedTraversal(pathname: string): boolean {
  for (const segment of pathname.split('/')) {
    if (!segment.includes('%') && !segment.includes(';')) continue;
    let decoded = segment;
    // two rounds: a backend or proxy that decodes twice sees %252f as /
    for (let round = 0; round < 2; round++) decoded = safeDecode(decoded);
    if (/[/\\]/.test(decoded)) return true;
    const bare = decoded.split(';', 1)[0]!;
    if (bare === '.' || bare === '..') return true;
  }
  return false;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
