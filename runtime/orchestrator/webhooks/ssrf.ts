/**
 * Server-side request forgery guards of webhook URLs, over the shared address policy (runtime/net). Registration
 * checks what it can without DNS (installs are often offline): the scheme, and a host that is `localhost` or a
 * literal address the policy refuses. Each delivery resolves the host and checks every address it connects to
 * (send.ts), so a public name that resolves to a private address is refused too, and DNS rebinding between check
 * and connect is not possible.
 */
import { isIP } from 'node:net';
import { STRICT_POLICY } from '../../net/index.js';

/** Why the policy refuses an IP address (the range, e.g. `loopback 127.0.0.0/8`), or nothing for a public one. */
export function addressRefusal(address: string): string | undefined {
  return STRICT_POLICY.refusal(address);
}

/** Whether an IP address is private, loopback, link-local or otherwise not a public internet address. */
export function isPrivateAddress(address: string): boolean {
  return addressRefusal(address) !== undefined;
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `url scheme ${url.protocol.slice(0, 16)} is not allowed; use http or https`;
  if (url.username || url.password) return 'url must not carry credentials; use the secret to authenticate deliveries';
  if (allowPrivate) return undefined;
  // NB: WHATWG URL parsing already turned 2130706433, 0x7f.1 and 017700000001 into 127.0.0.1, and [::127.0.0.1]
  // into [::7f00:1].
  // NB: `localhost.` (the fully qualified form) is localhost too.
  const host = hostOf(url).toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'url host is loopback (localhost)';
  if (isIP(host) === 0) return undefined;
  const refusal = addressRefusal(host);
  return refusal === undefined
    ? undefined
    : `url host is a private, loopback, link-local or reserved address (${refusal})`;
}
