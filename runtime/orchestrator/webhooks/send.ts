/**
 * One HTTP POST of a delivery: a timeout on the whole exchange, no redirects, and every address the connection
 * uses checked against the SSRF rules (ssrf.ts) unless private targets are allowed.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { hostOf, isPrivateAddress } from './ssrf.js';

export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendResult {
  status: number;
}

/** Largest answer body read (and dropped); a receiver that sends more is cut off, which is no failure. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Resolves like dns.lookup, refusing private, loopback and link-local answers. */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 4);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad || !addresses.length) {
      return callback(new TargetRefusedError(bad ? `${hostname} resolves to a private, loopback or link-local address` : `${hostname} has no address`), '', 4);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

export function postWebhook(target: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<SendResult> {
  const url = new URL(target);
  const host = hostOf(url);
  if (!options.allowPrivate && isIP(host) && isPrivateAddress(host)) {
    return Promise.reject(new TargetRefusedError(`${host} is a private, loopback or link-local address`));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const init: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    signal: AbortSignal.timeout(options.timeoutMs),
    ...(options.allowPrivate ? {} : { lookup: checkedLookup }),
  };
  return new Promise((resolve, reject) => {
    const req = request(url, init, (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0 }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', (err: Error) => reject(err.name === 'AbortError' ? new Error(`no answer within ${options.timeoutMs} ms`, { cause: err }) : err));
    req.end(body);
  });
}
