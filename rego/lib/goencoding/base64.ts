/**
 * Go's encoding/base64 with its exact acceptance rules and error texts (StdEncoding, URLEncoding,
 * padded and strict about it), plus OPA's lenient base64url reading of JWS segments.
 */
export class Base64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
    this.name = 'Base64Error';
  }
}

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function table(alphabet: string): Int16Array {
  const t = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
}

const STD_TABLE = table(STD);
const URL_TABLE = table(URL);

/**
 * Go's base64.Encoding.Decode with padding required: CR and LF are skipped anywhere, anything else
 * outside the alphabet is an error at its byte offset.
 */
function decodeGo(src: Uint8Array, tab: Int16Array): Uint8Array {
  const out = new Uint8Array(Math.floor((src.length * 3) / 4) + 3);
  let n = 0;
  let si = 0;
  const isNL = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;
  for (;;) {
    const quantum = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    for (; j < 4;) {
      if (si === src.length) {
        if (j === 0) return out.subarray(0, n);
        // A partial quantum without padding.
        throw new Base64Error(si - j);
      }
      const c = src[si]!;
      si++;
      if (isNL(c)) continue;
      const v = tab[c]!;
      if (v >= 0) {
        quantum[j++] = v;
        continue;
      }
      if (c !== 0x3d) throw new Base64Error(si - 1);
      // Padding.
      if (j === 0 || j === 1) throw new Base64Error(si - 1);
      if (j === 2) {
        while (si < src.length && isNL(src[si])) si++;
        if (si === src.length) throw new Base64Error(src.length);
        if (src[si] !== 0x3d) throw new Base64Error(si - 1);
        si++;
      }
      while (si < src.length && isNL(src[si])) si++;
      if (si < src.length) throw new Base64Error(si);
      dlen = j;
      break;
    }
    const val = (quantum[0]! << 18) | (quantum[1]! << 12) | (quantum[2]! << 6) | quantum[3]!;
    const b = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    for (let k = 0; k < dlen - 1; k++) out[n++] = b[k]!;
    if (dlen < 4) return out.subarray(0, n);
  }
}

export function toBytes(s: string | Uint8Array): Uint8Array {
  return typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
}

/** Go's base64.StdEncoding.DecodeString. */
export function decodeStdBase64(s: string | Uint8Array): Uint8Array {
  return decodeGo(toBytes(s), STD_TABLE);
}

/** Go's base64.URLEncoding.DecodeString (padded). */
export function decodeURLBase64(s: string | Uint8Array): Uint8Array {
  return decodeGo(toBytes(s), URL_TABLE);
}

/** OPA's base64url.decode: adds missing padding first (RFC 7515 appendix C). */
export function decodeBase64URLLenient(s: string): Uint8Array {
  if (!s.endsWith('=')) {
    switch (s.length % 4) {
      case 0:
        break;
      case 2:
        s += '==';
        break;
      case 3:
        s += '=';
        break;
      default:
        throw new Error(`illegal base64url string: ${s}`);
    }
  }
  return decodeURLBase64(s);
}

export function encodeBase64URLNoPad(b: Uint8Array | string): string {
  return Buffer.from(toBytes(b)).toString('base64url');
}
