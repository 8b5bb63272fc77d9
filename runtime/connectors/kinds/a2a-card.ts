/**
 * Whether a remote agent's Agent Card is trusted (docs/connectors.md, "a2a"): one of its signatures (A2A 1.0: a JWS
 * over the card's RFC 8785 canonical JSON, `signatures` left out) verifies against a key the Connector names, inline
 * (`options.cardKeys`) or at a URL (`options.cardKeysUrl`). The card's own `jku` is never followed: a card cannot
 * name the key that vouches for it. Every refusal is an A2A_CARD_UNVERIFIED with its reason.
 */
import { base64url, decodeProtectedHeader, flattenedVerify, importJWK, type JWK } from 'jose';
import { ConnectorError } from '../errors.js';
import type { GuardedHttp } from '../net/client.js';
import { withTimeout } from '../limits.js';

/** The signature algorithms a card may use: asymmetric only (an HMAC key would be a shared secret in a public card). */
const ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
];
/** How long a fetched key set is used before it is read again; an unknown `kid` reads it again after a minute. */
const KEYS_TTL_MS = 5 * 60_000;
const KEYS_RETRY_MS = 60_000;
/** The largest key set read. */
const KEYS_MAX_BYTES = 256 * 1024;

/** The remote key set: where it is, and the guarded client that reads it. */
export interface KeySetSource {
  http: GuardedHttp;
  url: URL;
  timeoutMs: number;
}

/** A card that verified: its canonical JSON (what the signature covers) and the key that signed it. */
export interface VerifiedCard {
  /** The RFC 8785 canonical JSON of the card without `signatures`: what is pinned and what the client is made from. */
  canonical: string;
  /** The `kid` of the signature that verified; undefined for an unsigned card trusted by `unsignedCard`. */
  kid: string | undefined;
}

const unverified = (connector: string, reason: string, message: string) =>
  new ConnectorError('A2A_CARD_UNVERIFIED', `the Agent Card of connector ${connector} ${message}`, {
    connector,
    reason,
  });

/** The keys one connector trusts, and the check of a card against them. */
export class CardTrust {
  private fetched: { keys: JWK[]; at: number } | undefined;

  constructor(
    private readonly connector: string,
    private readonly inline: readonly JWK[],
    private readonly remote: KeySetSource | undefined,
    private readonly unsigned: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The card's canonical JSON once a signature verifies (or, with `unsignedCard`, when it has none). `canonicalize`
   * is the SDK's (it knows the 1.0 card schema); it throws on what is not a card.
   */
  async verify(card: unknown, canonicalize: (card: unknown) => string): Promise<VerifiedCard> {
    if (typeof card !== 'object' || card === null || Array.isArray(card))
      throw unverified(this.connector, 'UNREADABLE', 'is not a JSON object');
    let canonical: string;
    try {
      canonical = canonicalize(card);
    } catch (err) {
      throw unverified(this.connector, 'UNREADABLE', `is not an A2A 1.0 card: ${(err as Error).message}`);
    }
    if (canonical === '{}' || !(JSON.parse(canonical) as { supportedInterfaces?: unknown }).supportedInterfaces)
      throw unverified(
        this.connector,
        'UNREADABLE',
        'names no interface (supportedInterfaces); is it an A2A 1.0 card?',
      );
    const signatures = (card as { signatures?: unknown }).signatures;
    if (!Array.isArray(signatures) || signatures.length === 0) {
      if (this.unsigned) return { canonical, kid: undefined };
      throw unverified(this.connector, 'NO_SIGNATURE', 'is not signed, and the connector trusts signed cards only');
    }
    const payload = base64url.encode(canonical);
    let known = false;
    for (const entry of signatures.slice(0, 8) as { protected?: unknown; signature?: unknown; header?: unknown }[]) {
      if (typeof entry?.protected !== 'string' || typeof entry.signature !== 'string') continue;
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader({ protected: entry.protected }).kid;
      } catch {
        continue;
      }
      const jwk = await this.keyFor(kid);
      if (!jwk) continue;
      known = true;
      try {
        const key = await importJWK(jwk, typeof jwk.alg === 'string' ? jwk.alg : undefined);
        await flattenedVerify(
          {
            payload,
            protected: entry.protected,
            signature: entry.signature,
            ...(typeof entry.header === 'object' && entry.header !== null
              ? { header: entry.header as Record<string, unknown> }
              : {}),
          },
          key,
          { algorithms: ALGORITHMS },
        );
        return { canonical, kid };
      } catch {
        // NB: the next signature may be the one that verifies
      }
    }
    if (!known)
      throw unverified(this.connector, 'UNKNOWN_KEY', 'is signed only with keys the connector does not trust (kid)');
    throw unverified(this.connector, 'BAD_SIGNATURE', 'has no signature that verifies: it changed after signing');
  }

  /** The trusted key of that id: inline first, then the remote set (read again when it is old, or the id is new). */
  private async keyFor(kid: string | undefined): Promise<JWK | undefined> {
    const match = (keys: readonly JWK[]) =>
      keys.find((k) => (kid === undefined ? keys.length === 1 : k.kid === kid)) ?? undefined;
    const own = match(this.inline);
    if (own || !this.remote) return own;
    if (!this.fetched || this.now() - this.fetched.at > KEYS_TTL_MS) await this.readKeys();
    let found = match(this.fetched!.keys);
    if (!found && this.now() - this.fetched!.at > KEYS_RETRY_MS) {
      await this.readKeys();
      found = match(this.fetched!.keys);
    }
    return found;
  }

  private async readKeys(): Promise<void> {
    const remote = this.remote!;
    const controller = new AbortController();
    let keys: unknown;
    try {
      const res = await withTimeout(
        remote.http.request(remote.url, {
          method: 'GET',
          headers: { accept: 'application/jwk-set+json, application/json' },
          signal: controller.signal,
          maxBytes: KEYS_MAX_BYTES,
        }),
        remote.timeoutMs,
        () => controller.abort(),
      );
      if (res.status !== 200) throw new Error(`it answered ${res.status}`);
      keys = (JSON.parse(res.body.toString('utf8')) as { keys?: unknown }).keys;
    } catch (err) {
      throw unverified(
        this.connector,
        'KEYS_UNAVAILABLE',
        `could not be checked: the trusted key set (cardKeysUrl) could not be read: ${(err as Error).message}`,
      );
    }
    if (!Array.isArray(keys))
      throw unverified(this.connector, 'KEYS_UNAVAILABLE', 'could not be checked: cardKeysUrl serves no JWK Set');
    this.fetched = { keys: publicKeys(keys as JWK[]), at: this.now() };
  }
}

/**
 * The public part of each key: a private member (`d`, and RSA's primes) is dropped, so that a key set pasted with
 * its private key still trusts only the public one, and no secret is kept in memory.
 */
export function publicKeys(keys: readonly JWK[]): JWK[] {
  return keys.map((k) => {
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, k: _k, ...pub } = k as JWK & { k?: string };
    return pub;
  });
}
