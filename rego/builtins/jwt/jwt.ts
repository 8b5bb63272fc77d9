/**
 * io.jwt.* builtins (OPA v1/topdown/tokens.go): decoding, signature verification for every JWS
 * algorithm OPA supports, constrained decode_verify, and signing from JWKs (lib/jose).
 */
import { BuiltinError } from '../../errors.js';
import { T } from '../../types.js';
import { toJSONText, type Value } from '../../value.js';
import { obj, str } from '../args.js';
import { decodeBase64URLLenient, encodeBase64URLNoPad, type Base64Error } from '../../lib/goencoding/index.js';
import {
  JWKError,
  JWSError,
  TOKEN_ALGORITHMS,
  headerString,
  parseHeader,
  parseJWKSet,
  signJWS,
  verifyJWS,
  type VerificationKey,
} from '../../lib/jose/index.js';
import { libraryCall } from '../lib-errors.js';
import { keysFromCertOrJWK } from './keys.js';
import { decodeVerify } from './verify.js';
import { decodeHeader, decodeJWT, decodePayload, decodeSignature, parseTokenHeader, type Token } from './token.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinRegistry } from '../registry.js';

const anyObj = T.object(T.any, T.any);
const strObj = T.object(T.string, T.any);

const verifyDecl = (alg: string): BuiltinDecl => ({
  name: `io.jwt.verify_${alg}`,
  args: [T.string, T.string],
  result: T.boolean,
});

const decls: Record<string, BuiltinDecl> = {
  decode: { name: 'io.jwt.decode', args: [T.string], result: T.tuple(anyObj, anyObj, T.string) },
  decodeVerify: {
    name: 'io.jwt.decode_verify',
    args: [T.string, strObj],
    result: T.tuple(T.boolean, anyObj, anyObj),
    nondeterministic: true,
  },
  encodeSignRaw: {
    name: 'io.jwt.encode_sign_raw',
    args: [T.string, T.string, T.string],
    result: T.string,
    nondeterministic: true,
  },
  encodeSign: { name: 'io.jwt.encode_sign', args: [strObj, strObj, strObj], result: T.string, nondeterministic: true },
  rs256: verifyDecl('rs256'),
  rs384: verifyDecl('rs384'),
  rs512: verifyDecl('rs512'),
  ps256: verifyDecl('ps256'),
  ps384: verifyDecl('ps384'),
  ps512: verifyDecl('ps512'),
  es256: verifyDecl('es256'),
  es384: verifyDecl('es384'),
  es512: verifyDecl('es512'),
  eddsa: verifyDecl('eddsa'),
  hs256: verifyDecl('hs256'),
  hs384: verifyDecl('hs384'),
  hs512: verifyDecl('hs512'),
};

/** io.jwt.decode: [header, payload, hex signature]; nested JWTs (cty JWT) are unwrapped. */
function decode(jwt: Value): Value {
  const token = decodeJWT(jwt);
  const header = decodeHeader(token);
  let payloadText: string;
  try {
    payloadText = Buffer.from(decodeBase64URLLenient(token.payload)).toString('utf8');
  } catch (e) {
    throw new BuiltinError(`JWT payload had invalid encoding: ${(e as Base64Error).message}`);
  }
  const cty = header.get('cty');
  if (typeof cty === 'string' && cty === 'JWT') {
    // A quoted inner token, as jwt.io writes it.
    return decode(payloadText.replace(/^["']+|["']+$/g, ''));
  }
  const payload = decodePayload(payloadText);
  let sig: Uint8Array;
  try {
    sig = decodeBase64URLLenient(token.signature);
  } catch (e) {
    throw new BuiltinError(`JWT signature had invalid encoding: ${(e as Base64Error).message}`);
  }
  return [header, payload, Buffer.from(sig).toString('hex')];
}

/** builtinJWTVerify for the public-key algorithms. */
function verifyWithKeys(alg: string, args: readonly Value[]): boolean {
  const token: Token = decodeJWT(args[0]!);
  const keys: VerificationKey[] = keysFromCertOrJWK(str(args, 1));
  const signature = decodeSignature(token);
  const header = parseTokenHeader(decodeHeader(token));
  const data = Buffer.from(`${token.header}.${token.payload}`, 'utf8');
  // NB: the verify_* builtins check with their own algorithm, whatever the token header says.
  const check = (k: VerificationKey): boolean =>
    verifyJWS(k.key, alg, data, signature, { publicOnly: true, strictECDSALength: false });
  if (header.kid !== '') {
    const byKid = keys.find((k) => k.kid === header.kid);
    if (byKid) return check(byKid);
  }
  return keys.some((k) => (k.alg === '' || k.alg === header.alg) && check(k));
}

/** builtinJWTVerifyHS: HMAC with the plain-text secret. */
function verifyHMAC(alg: string, args: readonly Value[]): boolean {
  const jwt = str(args, 0);
  const secret = str(args, 1);
  const token = decodeJWT(jwt);
  const data = Buffer.from(`${token.header}.${token.payload}`, 'utf8');
  const signature = decodeSignature(token);
  return verifyJWS({ kind: 'secret', secret: Buffer.from(secret, 'utf8') }, alg, data, signature, {
    publicOnly: true,
    strictECDSALength: false,
  });
}

/** OPA's commonBuiltinJWTEncodeSign. */
function encodeSign(headerText: string, payloadText: string, jwkText: string): string {
  let keys;
  try {
    keys = parseJWKSet(jwkText);
  } catch (e) {
    if (e instanceof JWKError) throw new BuiltinError(e.message);
    throw e;
  }
  if (keys.length === 0) throw new BuiltinError('no keys found in JWK set');
  const header = parseHeader(headerText);
  const alg = headerString(header, 'alg');
  if (!alg.ok) throw new BuiltinError(`missing or invalid 'alg' header: ${alg.error}`);
  if (!TOKEN_ALGORITHMS.has(alg.value)) throw new BuiltinError(`unknown JWS algorithm: ${alg.value}`);
  const typ = headerString(header, 'typ');
  if ((!typ.ok || typ.value === 'JWT') && !isValidJSON(payloadText)) {
    throw new BuiltinError('type is JWT but payload is not JSON');
  }
  const signingInput = `${encodeBase64URLNoPad(headerText)}.${encodeBase64URLNoPad(payloadText)}`;
  const sig = libraryCall([JWSError], () => signJWS(keys[0]!.key, alg.value, Buffer.from(signingInput, 'utf8')));
  return `${signingInput}.${encodeBase64URLNoPad(sig)}`;
}

/** Go's json.Valid. */
function isValidJSON(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** Go's json.Marshal of the operand's JSON form (sorted keys, HTML-escaped strings). */
function marshal(v: Value): string {
  return toJSONText(v, { escapeHTML: true });
}

const publicKeyVerify =
  (alg: string): BuiltinImpl =>
  (args) =>
    verifyWithKeys(alg, args);

const hmacVerify =
  (alg: string): BuiltinImpl =>
  (args) =>
    verifyHMAC(alg, args);

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  decode: (args) => decode(args[0]!),
  decodeVerify: (args, ctx) => {
    const constraints = obj(args, 1);
    return decodeVerify(args[0]!, constraints, ctx.nowNs());
  },
  encodeSignRaw: (args) => {
    const jwk = str(args, 2);
    const header = str(args, 0);
    const payload = str(args, 1);
    return encodeSign(header, payload, jwk);
  },
  encodeSign: (args) => encodeSign(marshal(obj(args, 0)), marshal(obj(args, 1)), marshal(obj(args, 2))),
  rs256: publicKeyVerify('RS256'),
  rs384: publicKeyVerify('RS384'),
  rs512: publicKeyVerify('RS512'),
  ps256: publicKeyVerify('PS256'),
  ps384: publicKeyVerify('PS384'),
  ps512: publicKeyVerify('PS512'),
  es256: publicKeyVerify('ES256'),
  es384: publicKeyVerify('ES384'),
  es512: publicKeyVerify('ES512'),
  eddsa: publicKeyVerify('EdDSA'),
  hs256: hmacVerify('HS256'),
  hs384: hmacVerify('HS384'),
  hs512: hmacVerify('HS512'),
};

export function register(r: BuiltinRegistry): void {
  for (const key of Object.keys(decls) as (keyof typeof decls)[]) r.add(decls[key]!, impls[key]);
}
