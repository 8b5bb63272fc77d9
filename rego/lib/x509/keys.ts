/**
 * Public and private keys as Go's crypto/x509 parses them, with the JSON shape encoding/json gives
 * the resulting Go values (rsa.PublicKey {N, E}, ecdsa.PublicKey {Curve: {}, X, Y}, ed25519 bytes)
 * and a node:crypto KeyObject for signature work.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { DerReader, TAG, bytesToBig, oidString, parseBitString, parseInteger, parseOID } from './asn1.js';
import { X509Error, type JSONish } from './name.js';

/** Go's x509.PublicKeyAlgorithm. */
export const PK_ALG = { unknown: 0, RSA: 1, DSA: 2, ECDSA: 3, Ed25519: 4 } as const;

export const OID_RSA = '1.2.840.113549.1.1.1';
const OID_DSA = '1.2.840.10040.4.1';
const OID_EC = '1.2.840.10045.2.1';
const OID_ED25519 = '1.3.101.112';

export const CURVES: Record<string, { name: string; size: number }> = {
  '1.3.132.0.33': { name: 'P-224', size: 28 },
  '1.2.840.10045.3.1.7': { name: 'P-256', size: 32 },
  '1.3.132.0.34': { name: 'P-384', size: 48 },
  '1.3.132.0.35': { name: 'P-521', size: 66 },
};

export interface PublicKey {
  alg: number;
  json: JSONish;
  key: KeyObject | undefined;
  /** Raw comparison material (N for RSA, X|Y for EC, bytes for Ed25519) for key-pair matching. */
  id: string;
  /** Curve byte size for ECDSA keys. */
  curveSize?: number;
}

export function pkAlgOf(oid: string): number {
  switch (oid) {
    case OID_RSA:
      return PK_ALG.RSA;
    case OID_DSA:
      return PK_ALG.DSA;
    case OID_EC:
      return PK_ALG.ECDSA;
    case OID_ED25519:
      return PK_ALG.Ed25519;
    default:
      return PK_ALG.unknown;
  }
}

function rsaPublicFrom(der: Uint8Array): { n: bigint; e: bigint } {
  const seq = new DerReader(der).read(TAG.SEQUENCE);
  if (!seq) throw new X509Error('x509: invalid RSA public key');
  const r = new DerReader(seq.content);
  const n = r.read(TAG.INTEGER);
  const e = r.read(TAG.INTEGER);
  const nv = n && parseInteger(n.content);
  const ev = e && parseInteger(e.content);
  if (nv === undefined || ev === undefined) throw new X509Error('x509: invalid RSA public key');
  if (nv <= 0n) throw new X509Error('x509: RSA modulus is not a positive number');
  if (ev <= 0n) throw new X509Error('x509: RSA public exponent is not a positive number');
  return { n: nv, e: ev };
}

/**
 * Go's parsePublicKey for a SubjectPublicKeyInfo element (whole DER). Unknown algorithms give a
 * key with alg 0 and null JSON, as Go leaves PublicKey nil.
 */
export function parseSPKI(spki: Uint8Array): PublicKey {
  const outer = new DerReader(spki).read(TAG.SEQUENCE);
  if (!outer) throw new X509Error('x509: malformed spki');
  const r = new DerReader(outer.content);
  const ai = r.read(TAG.SEQUENCE);
  if (!ai) throw new X509Error('x509: malformed public key algorithm identifier');
  const air = new DerReader(ai.content);
  const oidEl = air.read(TAG.OID);
  const oidArcs = oidEl && parseOID(oidEl.content);
  if (!oidArcs) throw new X509Error('x509: malformed OID');
  const params = air.readAny();
  const bits = r.read(TAG.BIT_STRING);
  const bs = bits && parseBitString(bits.content);
  if (!bs) throw new X509Error('x509: malformed subjectPublicKey');
  const oid = oidString(oidArcs);
  const alg = pkAlgOf(oid);
  const keyObject = (): KeyObject | undefined => {
    try {
      return createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
    } catch {
      return undefined;
    }
  };
  switch (alg) {
    case PK_ALG.RSA: {
      if (!params || params.tag !== TAG.NULL || params.content.length !== 0) {
        throw new X509Error('x509: RSA key missing NULL parameters');
      }
      const { n, e } = rsaPublicFrom(bs.bytes);
      return { alg, json: { N: n, E: e }, key: keyObject(), id: `rsa:${n}` };
    }
    case PK_ALG.ECDSA: {
      const curveArcs = params && params.tag === TAG.OID ? parseOID(params.content) : undefined;
      if (!curveArcs) throw new X509Error('x509: failed to parse ECDSA parameters as named curve');
      const curve = CURVES[oidString(curveArcs)];
      if (!curve) throw new X509Error('x509: unsupported elliptic curve');
      const p = bs.bytes;
      if (p.length !== 1 + 2 * curve.size || p[0] !== 4)
        throw new X509Error('x509: failed to unmarshal elliptic curve point');
      const x = bytesToBig(p.subarray(1, 1 + curve.size));
      const y = bytesToBig(p.subarray(1 + curve.size));
      return { alg, json: { Curve: {}, X: x, Y: y }, key: keyObject(), id: `ec:${x}:${y}`, curveSize: curve.size };
    }
    case PK_ALG.Ed25519: {
      if (params) throw new X509Error('x509: Ed25519 key encoded with illegal parameters');
      if (bs.bytes.length !== 32) throw new X509Error('x509: wrong Ed25519 public key size');
      const b = Buffer.from(bs.bytes);
      return { alg, json: b.toString('base64'), key: keyObject(), id: `ed:${b.toString('hex')}` };
    }
    case PK_ALG.DSA:
      // NB: Go parses DSA keys but nothing here can use them; expose the algorithm only.
      return { alg, json: {}, key: undefined, id: 'dsa' };
    default:
      return { alg, json: null, key: undefined, id: 'unknown' };
  }
}

export interface PrivateKey {
  kind: 'rsa' | 'ec' | 'ed25519';
  json: JSONish;
  key: KeyObject;
  /** Same material as PublicKey.id of the matching public key. */
  id: string;
}

function privateFromKeyObject(key: KeyObject): PrivateKey {
  const jwk = key.export({ format: 'jwk' });
  const big = (s: string | undefined): bigint => bytesToBig(Buffer.from(s ?? '', 'base64url'));
  switch (key.asymmetricKeyType) {
    case 'rsa': {
      const n = big(jwk.n);
      return {
        kind: 'rsa',
        key,
        id: `rsa:${n}`,
        json: {
          N: n,
          E: big(jwk.e),
          D: big(jwk.d),
          Primes: [big(jwk.p), big(jwk.q)],
          Precomputed: { Dp: big(jwk.dp), Dq: big(jwk.dq), Qinv: big(jwk.qi), CRTValues: [] },
        },
      };
    }
    case 'ec': {
      const x = big(jwk.x);
      const y = big(jwk.y);
      return { kind: 'ec', key, id: `ec:${x}:${y}`, json: { Curve: {}, X: x, Y: y, D: big(jwk.d) } };
    }
    case 'ed25519': {
      const seed = Buffer.from(jwk.d ?? '', 'base64url');
      const pub = Buffer.from(jwk.x ?? '', 'base64url');
      return {
        kind: 'ed25519',
        key,
        id: `ed:${pub.toString('hex')}`,
        json: Buffer.concat([seed, pub]).toString('base64'),
      };
    }
    default:
      throw new X509Error(`x509: unsupported private key type ${key.asymmetricKeyType}`);
  }
}

function load(der: Uint8Array, type: 'pkcs1' | 'pkcs8' | 'sec1'): KeyObject {
  return createPrivateKey({ key: Buffer.from(der), format: 'der', type });
}

/** Go's x509.ParsePKCS1PrivateKey. */
export function parsePKCS1(der: Uint8Array): PrivateKey {
  try {
    return privateFromKeyObject(load(der, 'pkcs1'));
  } catch {
    if (looksPKCS8(der))
      throw new X509Error('x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)');
    throw new X509Error('x509: failed to parse private key (use ParseECPrivateKey instead for this key format)');
  }
}

/** Go's x509.ParsePKCS8PrivateKey (RSA, ECDSA, Ed25519). */
export function parsePKCS8(der: Uint8Array): PrivateKey {
  let key: KeyObject;
  try {
    key = load(der, 'pkcs8');
  } catch {
    throw new X509Error('x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)');
  }
  return privateFromKeyObject(key);
}

/** Go's x509.ParseECPrivateKey. */
export function parseECPrivate(der: Uint8Array): PrivateKey {
  try {
    return privateFromKeyObject(load(der, 'sec1'));
  } catch {
    throw new X509Error('x509: failed to parse EC private key');
  }
}

/** PKCS#8 starts with SEQUENCE { INTEGER 0, SEQUENCE { OID ... } }. */
function looksPKCS8(der: Uint8Array): boolean {
  const seq = new DerReader(der).read(TAG.SEQUENCE);
  if (!seq) return false;
  const r = new DerReader(seq.content);
  return r.read(TAG.INTEGER) !== undefined && r.peekTag() === TAG.SEQUENCE;
}

/** crypto/tls parsePrivateKey: PKCS#1, then PKCS#8, then SEC 1. */
export function parseAnyPrivateKey(der: Uint8Array): PrivateKey {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return privateFromKeyObject(load(der, type));
    } catch {
      // try the next format
    }
  }
  throw new X509Error('tls: failed to parse private key');
}
