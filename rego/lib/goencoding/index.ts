/**
 * Go's encoding/base64, encoding/hex and encoding/pem, with Go's acceptance rules and error texts,
 * as OPA's encoding, crypto and JWT builtins use them.
 *
 * API: decodeStdBase64, decodeURLBase64, decodeBase64URLLenient (throw Base64Error),
 * encodeBase64URLNoPad; decodeHex (throws HexError); pemDecode(input) → { block, rest },
 * pemEncode(type, bytes); toBytes, startsWithBytes.
 */
export {
  Base64Error,
  decodeBase64URLLenient,
  decodeStdBase64,
  decodeURLBase64,
  encodeBase64URLNoPad,
  toBytes,
} from './base64.js';
export { HexError, decodeHex } from './hex.js';
export { pemDecode, pemEncode, startsWithBytes, type PemBlock } from './pem.js';
