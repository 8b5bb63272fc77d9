/**
 * JOSE as OPA's io.jwt.* builtins get it from lestrrat-go/jwx: JWK and JWK set import, JWS signing
 * and verification (RFC 7518) over node:crypto with Go's semantics, and the lenient header JSON
 * reading of valyala/fastjson that jwx applies when signing.
 *
 * API: parseJWKSet(text) / importJWK(jwk) (throw JWKError); verifyJWS(key, alg, data, sig, mode);
 * signJWS(key, alg, data) (throws JWSError); parseHeader(text) and headerString(header, key);
 * TOKEN_ALGORITHMS.
 */
export { headerString, parseHeader, type Header } from './header.js';
export {
  JWKError,
  JWSError,
  TOKEN_ALGORITHMS,
  importJWK,
  parseJWKSet,
  signJWS,
  verifyJWS,
  type JWSKey,
  type VerificationKey,
  type VerifyMode,
} from './keys.js';
