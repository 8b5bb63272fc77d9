/**
 * Server-side request forgery guards of webhook URLs. Registration checks what it can without DNS (installs are
 * often offline): the scheme, and a host that is a literal private, loopback or link-local address (or `localhost`).
 * Each delivery resolves the host and checks every address it connects to (see send.ts), so a public name that
 * resolves to a private address is refused too, and DNS rebinding between check and connect is not possible.
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** Whether an IP address is private, loopback, link-local or otherwise not a public internet address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  // NB: IPv4-mapped (::ffff:10.0.0.1) and IPv4-compatible forms reach the IPv4 address.
  const mapped = /^(?:0*:)*:?(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped) {
    const hi = parseInt(hexMapped[1]!, 16);
    const lo = parseInt(hexMapped[2]!, 16);
    return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return blocked.check(address, 'ipv6');
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Why a webhook URL cannot be registered, or nothing. `allowPrivate` (STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS) lets
 * private and loopback hosts through; the scheme rule always holds.
 */
export function registrationProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `url scheme ${url.protocol.slice(0, 16)} is not allowed; use http or https`;
  if (url.username || url.password) return 'url must not carry credentials; use the secret to authenticate deliveries';
  if (allowPrivate) return undefined;
  // NB: WHATWG URL parsing already turned 2130706433, 0x7f.1 and 017700000001 into 127.0.0.1.
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'url host is loopback (localhost)';
  if (isPrivateAddress(host)) return 'url host is a private, loopback or link-local address';
  return undefined;
}
