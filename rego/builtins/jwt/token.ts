/**
 * JWS compact-serialisation handling shared by the io.jwt.* builtins, with OPA's error texts:
 * splitting, header/payload/signature decoding and JOSE header validation (RFC 7515/7519).
 */
import { BuiltinError, operandError } from '../../errors.js';
import { RObject, parseJSON, type Value } from '../../value.js';
import { decodeBase64URLLenient } from '../../lib/goencoding/index.js';

export interface Token {
  header: string;
  payload: string;
  signature: string;
}

/** OPA's decodeJWT: exactly three dot-separated parts. */
export function decodeJWT(v: Value): Token {
  if (typeof v !== 'string') throw operandError(1, 'string', v);
  if (!v.includes('.')) throw new BuiltinError('encoded JWT had no period separators');
  const parts = v.split('.');
  if (parts.length !== 3) throw new BuiltinError(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

/** base64url decoding as OPA's base64url.decode builtin does it; errors carry Go's text. */
export function b64url(s: string): Uint8Array {
  try {
    return decodeBase64URLLenient(s);
  } catch (e) {
    throw new BuiltinError((e as Error).message);
  }
}

/** OPA's extractJSONObject: JSON text that must be an object (duplicate keys: last wins). */
export function decodePayload(text: string): RObject {
  let v: Value;
  try {
    v = parseJSON(text);
  } catch (e) {
    throw new BuiltinError(`invalid JSON: ${(e as Error).message}`);
  }
  if (!(v instanceof RObject)) throw new BuiltinError('decoded JSON type was not an Object');
  return v;
}

/** The decoded, validated JOSE header object. */
export function decodeHeader(token: Token): RObject {
  let text: string;
  try {
    text = Buffer.from(decodeBase64URLLenient(token.header)).toString('utf8');
  } catch (e) {
    throw new BuiltinError(`JWT header had invalid encoding: ${(e as Error).message}`);
  }
  let header: RObject;
  try {
    header = decodePayload(text);
  } catch (e) {
    throw new BuiltinError(`bad JWT header: ${(e as Error).message}`);
  }
  if (header.get('enc') !== undefined) throw new BuiltinError('JWT is a JWE object, which is not supported');
  return header;
}

export function decodeSignature(token: Token): Uint8Array {
  return b64url(token.signature);
}

export interface TokenHeader {
  alg: string;
  kid: string;
  typ: string;
  cty: string;
  crit: Set<string> | undefined;
  unknown: string[];
}

/** OPA's parseTokenHeader: typed known parameters, the rest recorded as unknown. */
export function parseTokenHeader(h: RObject): TokenHeader {
  const out: TokenHeader = { alg: '', kid: '', typ: '', cty: '', crit: undefined, unknown: [] };
  for (const [k, v] of h.entries()) {
    const key = k as string;
    switch (key) {
      case 'alg':
      case 'kid':
      case 'typ':
      case 'cty':
        if (typeof v !== 'string') throw new BuiltinError(`${key}: must be a string`);
        out[key] = v;
        break;
      case 'crit': {
        if (!Array.isArray(v)) throw new BuiltinError('crit: must be a list');
        out.crit = new Set();
        // NB: OPA stops at the first non-string entry and ignores that error.
        for (const e of v) {
          if (typeof e !== 'string') break;
          out.crit.add(e);
        }
        if (out.crit.size === 0) throw new BuiltinError('crit: must be a nonempty list');
        break;
      }
      default:
        out.unknown.push(key);
    }
  }
  return out;
}

/** RFC 7515: alg present, and every critical parameter understood. */
export function validHeader(h: TokenHeader): boolean {
  if (h.alg === '') return false;
  return !h.unknown.some((u) => h.crit?.has(u));
}
