/**
 * What a delivery sends and how it is signed (docs/orchestrator-registry.md, Webhooks, Signature):
 *
 *   unsigned  = JSON of {event, timestamp, data}                  (the reference's payload without `signature`)
 *   t         = the attempt's Unix time in seconds                (header X-Steward-Timestamp)
 *   signature = "sha256=" + hex(HMAC-SHA256(secret, t + "." + unsigned))
 *   body      = unsigned with `,"signature":"<signature>"` as its last member
 *
 * The signature is also sent as the header X-Steward-Signature. A receiver recomputes it from the header's
 * timestamp and the body less its last member, compares in constant time, and refuses a timestamp older than its
 * tolerance (five minutes, say): a replayed body cannot be re-signed with a new time.
 *
 * An A2A push delivery (docs/a2a.md) is `data` bare, as A2A receivers read it: the signature is over `t + "." + body`
 * and is sent in the header only (`signBody`).
 */
import { createHmac } from 'node:crypto';

export interface WebhookPayload {
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface SignedDelivery {
  body: string;
  signature: string;
  /** Unix seconds of the attempt, as sent in X-Steward-Timestamp. */
  timestamp: number;
}

export const SIGNATURE_HEADER = 'x-steward-signature';
export const TIMESTAMP_HEADER = 'x-steward-timestamp';

export function signPayload(payload: WebhookPayload, secret: string, at: Date): SignedDelivery {
  const unsigned = JSON.stringify({ event: payload.event, timestamp: payload.timestamp, data: payload.data });
  const { signature, timestamp } = signBody(unsigned, secret, at);
  return { body: `${unsigned.slice(0, -1)},"signature":${JSON.stringify(signature)}}`, signature, timestamp };
}

/** A body sent as it is, its signature in the headers only: `sha256=` + hex(HMAC-SHA256(secret, t + "." + body)). */
export function signBody(body: string, secret: string, at: Date): SignedDelivery {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
  return { body, signature, timestamp };
}
