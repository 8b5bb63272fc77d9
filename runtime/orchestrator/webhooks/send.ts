/**
 * One HTTP POST of a delivery: a timeout on the whole exchange, no redirects, and every address the connection
 * uses checked against the shared address policy (runtime/net) unless private targets are allowed.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, STRICT_POLICY } from '../../net/index.js';
import { hostOf } from './ssrf.js';

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

/** Resolves like dns.lookup, refusing every address the shared policy refuses. */
const checkedLookup = guardedLookup(
  STRICT_POLICY,
  (hostname, refusal) =>
    new TargetRefusedError(
      refusal
        ? `${hostname} resolves to a private, loopback, link-local or reserved address`
        : `${hostname} has no address`,
    ),
);

export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const url = new URL(target);
  const host = hostOf(url);
  if (!options.allowPrivate && isIP(host) && !STRICT_POLICY.allows(host)) {
    return Promise.reject(new TargetRefusedError(`${host} is a private, loopback, link-local or reserved address`));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const init: RequestOptions = {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    signal: deadline,
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
    // NB: the deadline is the only signal, so an error once it fired is the abort it caused.
    req.on('error', (err: Error) =>
      reject(deadline.aborted ? new Error(`no answer within ${options.timeoutMs} ms`, { cause: err }) : err),
    );
    req.end(body);
  });
}
