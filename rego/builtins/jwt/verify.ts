/**
 * io.jwt.decode_verify (RFC 7519 section 7.2 as OPA implements it): constraint parsing, signature
 * check against the constrained key(s) or secret, nested tokens, then iss/aud/exp/nbf.
 */
import { BuiltinError } from '../../errors.js';
import { RObject, compareNumbers, numOf, isNumber, type Value } from '../../value.js';
import { verifyJWS, type JWSKey, type VerificationKey } from '../../lib/jose/index.js';
import { keysFromCertOrJWK } from './keys.js';
import { decodeHeader, decodeJWT, decodePayload, decodeSignature, parseTokenHeader, validHeader } from './token.js';
import { decodeBase64URLLenient } from '../../lib/goencoding/index.js';

interface Constraints {
  secret: string;
  alg: string;
  iss: string;
  aud: string;
  keys: VerificationKey[] | undefined;
  /** Nanoseconds as a float64, as OPA keeps it. */
  time: number;
}

function stringConstraint(name: string, v: Value): string {
  if (typeof v !== 'string') throw new BuiltinError(`${name} constraint: must be a string`);
  return v;
}

function timeFrom(v: Value): number {
  if (!isNumber(v)) throw new BuiltinError('token time constraint: must be a number');
  const t = Number(numOf(v));
  if (!Number.isFinite(t)) throw new BuiltinError('token time constraint: unvalid float64');
  if (t < 0) throw new BuiltinError('token time constraint: must not be negative');
  return t;
}

/** OPA's parseTokenConstraints + validate. */
function parseConstraints(o: RObject, nowNs: bigint): Constraints {
  const c: Constraints = { secret: '', alg: '', iss: '', aud: '', keys: undefined, time: -1 };
  for (const [k, v] of o.entries()) {
    const name = typeof k === 'string' ? k : String(k);
    switch (name) {
      case 'cert':
        if (typeof v !== 'string') throw new BuiltinError('cert constraint: must be a string');
        c.keys = keysFromCertOrJWK(v);
        break;
      case 'secret':
        c.secret = stringConstraint('secret', v);
        break;
      case 'alg':
        c.alg = stringConstraint('alg', v);
        break;
      case 'iss':
        c.iss = stringConstraint('iss', v);
        break;
      case 'aud':
        c.aud = stringConstraint('aud', v);
        break;
      case 'time':
        c.time = timeFrom(v);
        break;
      default:
        throw new BuiltinError(`unknown token validation constraint: ${name}`);
    }
  }
  if (c.time === -1) c.time = timeFrom(nowNs);
  const count = (c.keys !== undefined ? 1 : 0) + (c.secret !== '' ? 1 : 0);
  if (count > 1) throw new BuiltinError('duplicate key constraints');
  if (count < 1) throw new BuiltinError('no key constraint');
  return c;
}

/** Signature check as (*tokenConstraints).verify does it, through jwx's verifier. */
function signatureVerified(c: Constraints, kid: string, alg: string, data: Uint8Array, sig: Uint8Array): boolean {
  const mode = { publicOnly: false, strictECDSALength: true };
  if (c.keys !== undefined) {
    if (kid !== '') {
      const byKid = c.keys.find((k) => k.kid === kid);
      if (byKid) return verifyJWS(byKid.key, alg, data, sig, mode);
    }
    return c.keys.some((k) => (k.alg === '' || k.alg === alg) && verifyJWS(k.key, alg, data, sig, mode));
  }
  const secret: JWSKey = { kind: 'secret', secret: Buffer.from(c.secret, 'utf8') };
  return verifyJWS(secret, alg, data, sig, mode);
}

function validAudience(aud: Value, want: string): boolean {
  if (typeof aud === 'string') return aud === want;
  if (!Array.isArray(aud)) return false;
  return aud.some((e) => typeof e === 'string' && e === want);
}

const UNVERIFIED: Value = [false, new RObject(), new RObject()];

export function decodeVerify(jwt: Value, constraintsObj: RObject, nowNs: bigint): Value {
  const c = parseConstraints(constraintsObj, nowNs);
  let current: Value = jwt;
  let header: RObject;
  let payloadText: string;
  // Nested tokens (cty JWT) are verified layer by layer with the same constraints.
  for (let depth = 0; ; depth++) {
    if (depth > 32) throw new BuiltinError('JWT nesting too deep');
    const token = decodeJWT(current);
    header = decodeHeader(token);
    const h = parseTokenHeader(header);
    if (!validHeader(h)) return UNVERIFIED;
    if (c.alg !== '' && c.alg !== h.alg) return UNVERIFIED;
    const sig = decodeSignature(token);
    const data = Buffer.from(`${token.header}.${token.payload}`, 'utf8');
    if (!signatureVerified(c, h.kid, h.alg, data, sig)) return UNVERIFIED;
    try {
      payloadText = Buffer.from(decodeBase64URLLenient(token.payload)).toString('utf8');
    } catch (e) {
      throw new BuiltinError(`JWT payload had invalid encoding: ${(e as Error).message}`);
    }
    if (h.cty.toLowerCase() !== 'jwt') break;
    current = payloadText;
  }
  const payload = decodePayload(payloadText);

  if (c.iss !== '') {
    const iss = payload.get('iss');
    if (typeof iss !== 'string' || iss !== c.iss) return UNVERIFIED;
  }
  const aud = payload.get('aud');
  if (aud !== undefined) {
    if (!validAudience(aud, c.aud)) return UNVERIFIED;
  } else if (c.aud !== '') {
    return UNVERIFIED;
  }
  // The time is compared in seconds as a float64, like OPA's FloatNumberTerm(time / 1e9).
  const nowSec = c.time / 1e9;
  const exp = payload.get('exp');
  if (exp !== undefined) {
    if (!isNumber(exp)) throw new BuiltinError('exp value must be a number');
    if (compareNumbers(nowSec, numOf(exp)) >= 0) return UNVERIFIED;
  }
  const nbf = payload.get('nbf');
  if (nbf !== undefined) {
    if (!isNumber(nbf)) throw new BuiltinError('nbf value must be a number');
    if (compareNumbers(nowSec, numOf(nbf)) < 0) return UNVERIFIED;
  }
  return [true, header, payload];
}
