/**
 * A `lookup` for net, tls, http and undici connect options that resolves like dns.lookup and refuses the
 * connection when any resolved address is one the policy refuses. It runs in the socket's own resolution, so the
 * address checked is the address connected to: no second resolution, no DNS-rebinding window.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './policy.js';

/** Makes the error a refused host name fails with: `refusal` names the range, `undefined` when there was no address. */
export type RefusalError = (hostname: string, refusal: string | undefined) => Error;

export function guardedLookup(policy: AddressPolicy, refused: RefusalError): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      if (addresses.length === 0) return callback(refused(hostname, undefined), '', 4);
      // NB: every address, not only the first: happy-eyeballs connects may try any of them.
      for (const a of addresses) {
        const why = policy.refusal(a.address);
        if (why !== undefined) return callback(refused(hostname, why), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
