/**
 * The key that signs Steward's Agent Cards (STEWARD_A2A_SIGNING_KEY_FILE; not the audit signing key): a JWS in the
 * card's `signatures`, over the card's RFC 8785 canonical JSON with empty values left out, as A2A 1.0 defines it.
 * The signature is the SDK's own (`@a2a-js/sdk`, which the official clients verify with); the key is ours.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { AgentCard } from '@a2a-js/sdk';

/** What signs a card: the private key, its JWS algorithm, its key id (the RFC 7638 thumbprint of its public JWK). */
export class CardSigner {
  private constructor(
    private readonly key: KeyObject,
    readonly alg: 'ES256' | 'EdDSA',
    readonly kid: string,
    private readonly publicJwk: JWK,
    /** Where the key was read from (or written to), for the log. */
    readonly file: string,
  ) {}

  /**
   * Reads a PKCS #8 PEM private key (EC P-256 → ES256, Ed25519 → EdDSA). With `generate`, a missing file is made
   * first: a new P-256 key, written with mode 0600 (standalone).
   */
  static async load(file: string, options: { generate?: boolean } = {}): Promise<CardSigner> {
    if (options.generate && !existsSync(file)) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    }
    let key: KeyObject;
    try {
      key = createPrivateKey(readFileSync(file));
    } catch (err) {
      throw new Error(`the A2A card signing key ${file} is not a readable PEM private key: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const alg = algorithmOf(key, file);
    const publicJwk = await exportJWK(createPublicKey(key));
    const kid = await calculateJwkThumbprint(publicJwk);
    return new CardSigner(key, alg, kid, { ...publicJwk, kid, alg, use: 'sig' }, file);
  }

  /** The card with its signature appended; `keysUrl`, where the public keys are served, is the signature's `jku`. */
  async sign(card: Record<string, unknown>, keysUrl: string): Promise<Record<string, unknown>> {
    const { generateAgentCardSignature } = await import('@a2a-js/sdk');
    const signer = generateAgentCardSignature(this.key, {
      alg: this.alg,
      kid: this.kid,
      typ: 'JOSE',
      jku: keysUrl,
    });
    // NB: the SDK canonicalises what it is given through its wire codec, so the wire JSON goes in and comes out.
    return (await signer(card as unknown as AgentCard)) as unknown as Record<string, unknown>;
  }

  /** The public key as a JWK Set. */
  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }
}

function algorithmOf(key: KeyObject, file: string): 'ES256' | 'EdDSA' {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(
    `the A2A card signing key ${file} is a ${key.asymmetricKeyType} key${
      key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''
    }: use an EC P-256 or an Ed25519 key`,
  );
}
