/**
 * JWS keys and signatures as lestrrat-go/jwx handles them for OPA's io.jwt.* builtins: JWK and JWK
 * set import, and the JWS signature primitives (RFC 7518) over node:crypto with Go's verification
 * semantics.
 */
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign,
  timingSafeEqual,
  verify,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';

/** A key usable for JWS: a node KeyObject, or raw bytes for HMAC ("oct" keys). */
export type JWSKey =
  { kind: 'asymmetric'; key: KeyObject; isPrivate: boolean } | { kind: 'secret'; secret: Uint8Array };

export interface VerificationKey {
  key: JWSKey;
  alg: string;
  kid: string;
}

/** The JWS algorithms OPA knows (tokenAlgorithms). */
export const TOKEN_ALGORITHMS = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'HS256',
  'HS384',
  'HS512',
  'EdDSA',
]);

/** A JWK or JWK set jwx cannot import, with its message. */
export class JWKError extends Error {}

/** A key that cannot sign with the algorithm asked for, with jwx's message. */
export class JWSError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JWSError';
  }
}

interface JWKJSON {
  [k: string]: unknown;
}

/** Imports one JWK object (lestrrat-go/jwx's rules, enough for RSA, EC, OKP and oct keys). */
export function importJWK(jwk: JWKJSON): JWSKey {
  const kty = jwk.kty;
  if (typeof kty !== 'string') throw new JWKError('failed to parse key: missing "kty" field');
  switch (kty) {
    case 'oct': {
      if (typeof jwk.k !== 'string') throw new JWKError('failed to parse key: required field k is missing');
      return { kind: 'secret', secret: Buffer.from(jwk.k, 'base64url') };
    }
    case 'RSA':
    case 'EC':
    case 'OKP': {
      const isPrivate = jwk.d !== undefined;
      try {
        const key = isPrivate
          ? createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' })
          : createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
        return { kind: 'asymmetric', key, isPrivate };
      } catch (e) {
        throw new JWKError(`failed to parse ${kty} key: ${(e as Error).message}`);
      }
    }
    default:
      throw new JWKError(`failed to parse key: invalid key type from JSON (${kty})`);
  }
}

/** A JWK or JWK set in JSON text; each key with its "alg" and "kid". */
export function parseJWKSet(text: string): { key: JWSKey; alg: string; kid: string }[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new JWKError(`failed to unmarshal JSON into key: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new JWKError('failed to unmarshal JSON into key');
  const obj = doc as JWKJSON;
  const list = Array.isArray(obj.keys) ? (obj.keys as unknown[]) : obj.keys === undefined ? [obj] : undefined;
  if (!list) throw new JWKError('failed to parse "keys": expected an array');
  return list.map((k) => {
    if (k === null || typeof k !== 'object' || Array.isArray(k))
      throw new JWKError('failed to parse key: expected an object');
    const j = k as JWKJSON;
    return {
      key: importJWK(j),
      alg: typeof j.alg === 'string' ? j.alg : '',
      kid: typeof j.kid === 'string' ? j.kid : '',
    };
  });
}

const HASHES: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

function hashOf(alg: string): string {
  return HASHES[alg.slice(2)] ?? 'sha256';
}

/** ASN.1 DER ECDSA signature from the two halves of a JWS signature (Go splits at len/2). */
function ecdsaDER(sig: Uint8Array): Buffer | undefined {
  const n = Math.floor(sig.length / 2);
  const int = (b: Uint8Array): Buffer => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = Buffer.from(b.subarray(i));
    if (v.length === 0) v = Buffer.from([0]);
    if (v[0]! & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02]), derLen(v.length), v]);
  };
  const r = int(sig.subarray(0, n));
  const s = int(sig.subarray(n));
  if (sig.subarray(0, n).every((b) => b === 0) || sig.subarray(n).every((b) => b === 0)) return undefined;
  const body = Buffer.concat([r, s]);
  return Buffer.concat([Buffer.from([0x30]), derLen(body.length), body]);
}

function derLen(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x100) return Buffer.from([0x81, n]);
  return Buffer.from([0x82, n >> 8, n & 0xff]);
}

function curveSize(key: KeyObject): number | undefined {
  const c = key.asymmetricKeyDetails?.namedCurve;
  return c === 'prime256v1' ? 32 : c === 'secp384r1' ? 48 : c === 'secp521r1' ? 66 : undefined;
}

export interface VerifyMode {
  /** Private keys count as the wrong key type (the io.jwt.verify_* builtins). */
  publicOnly: boolean;
  /** ECDSA signatures must be exactly twice the curve size (jwx); Go's plain ecdsa.Verify does not care. */
  strictECDSALength: boolean;
}

/** Verifies a JWS signature over `data` with `alg`; false for wrong key types or bad signatures. */
export function verifyJWS(key: JWSKey, alg: string, data: Uint8Array, sig: Uint8Array, mode: VerifyMode): boolean {
  const family = alg.slice(0, 2);
  if (!TOKEN_ALGORITHMS.has(alg)) return false;
  if (family === 'HS') {
    if (key.kind !== 'secret') return false;
    const mac = createHmac(hashOf(alg), key.secret).update(data).digest();
    return mac.length === sig.length && timingSafeEqual(mac, sig);
  }
  if (key.kind !== 'asymmetric' || (mode.publicOnly && key.isPrivate)) return false;
  const k = key.key;
  try {
    switch (family) {
      case 'RS':
      case 'PS':
        if (k.asymmetricKeyType !== 'rsa') return false;
        return verify(
          hashOf(alg),
          data,
          {
            key: k,
            padding: family === 'RS' ? constants.RSA_PKCS1_PADDING : constants.RSA_PKCS1_PSS_PADDING,
            saltLength: constants.RSA_PSS_SALTLEN_AUTO,
          },
          sig,
        );
      case 'ES': {
        if (k.asymmetricKeyType !== 'ec') return false;
        if (mode.strictECDSALength && sig.length !== 2 * (curveSize(k) ?? 0)) return false;
        const der = ecdsaDER(sig);
        return der !== undefined && verify(hashOf(alg), data, { key: k, dsaEncoding: 'der' }, der);
      }
      case 'Ed':
        if (k.asymmetricKeyType !== 'ed25519') return false;
        return verify(null, data, k, sig);
      default:
        return false;
    }
  } catch {
    return false;
  }
}

/** Signs `data` with `alg` (jwsbb.Sign); throws JWSError when the key cannot sign with it. */
export function signJWS(key: JWSKey, alg: string, data: Uint8Array): Uint8Array {
  const family = alg.slice(0, 2);
  const wrong = (): JWSError => new JWSError(`failed to sign payload using ${alg}: invalid key type for algorithm`);
  if (family === 'HS') {
    if (key.kind !== 'secret') throw wrong();
    return createHmac(hashOf(alg), key.secret).update(data).digest();
  }
  if (key.kind !== 'asymmetric' || !key.isPrivate) throw wrong();
  const k = key.key;
  switch (family) {
    case 'RS':
    case 'PS':
      if (k.asymmetricKeyType !== 'rsa') throw wrong();
      return sign(hashOf(alg), data, {
        key: k,
        padding: family === 'RS' ? constants.RSA_PKCS1_PADDING : constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      });
    case 'ES':
      if (k.asymmetricKeyType !== 'ec') throw wrong();
      return sign(hashOf(alg), data, { key: k, dsaEncoding: 'ieee-p1363' });
    case 'Ed':
      if (k.asymmetricKeyType !== 'ed25519') throw wrong();
      return sign(null, data, k);
    default:
      throw wrong();
  }
}
