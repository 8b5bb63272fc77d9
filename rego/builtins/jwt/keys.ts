/**
 * OPA's getKeysFromCertOrJWK (v1/topdown/tokens.go): the verification keys an io.jwt.* builtin is
 * given as one PEM certificate or public key (lib/x509), or as a JWK or JWK set (lib/jose).
 */
import { BuiltinError } from '../../errors.js';
import { pemDecode } from '../../lib/goencoding/index.js';
import { JWKError, TOKEN_ALGORITHMS, parseJWKSet, type JWSKey, type VerificationKey } from '../../lib/jose/index.js';
import { X509Error, parseCertificate, parseSPKI } from '../../lib/x509/index.js';

function publicKeyFromDER(der: Uint8Array, what: 'certificate' | 'public key'): JWSKey {
  try {
    const pk = what === 'certificate' ? parseCertificate(der).publicKey : parseSPKI(der);
    if (!pk.key) throw new X509Error('x509: unsupported public key type');
    return { kind: 'asymmetric', key: pk.key, isPrivate: false };
  } catch (e) {
    if (e instanceof X509Error) throw new BuiltinError(`failed to parse a PEM ${what}: ${e.message}`);
    throw e;
  }
}

/** OPA's getKeysFromCertOrJWK. */
export function keysFromCertOrJWK(text: string): VerificationKey[] {
  const { block, rest } = pemDecode(text);
  if (block) {
    if (rest.length > 0) throw new BuiltinError('extra data after a PEM certificate block');
    if (block.type === 'CERTIFICATE') return [{ key: publicKeyFromDER(block.bytes, 'certificate'), alg: '', kid: '' }];
    if (block.type === 'PUBLIC KEY') return [{ key: publicKeyFromDER(block.bytes, 'public key'), alg: '', kid: '' }];
    throw new BuiltinError('failed to extract a Key from the PEM certificate');
  }
  let keys;
  try {
    keys = parseJWKSet(text);
  } catch (e) {
    if (e instanceof JWKError) throw new BuiltinError(`failed to parse a JWK key (set): ${e.message}`);
    throw e;
  }
  // Keys declaring an algorithm OPA does not know are skipped.
  return keys.filter((k) => k.alg === '' || TOKEN_ALGORITHMS.has(k.alg));
}
