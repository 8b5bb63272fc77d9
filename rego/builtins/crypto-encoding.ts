/**
 * Byte encodings with Go's exact acceptance rules and error texts, for the crypto and JWT builtins:
 * encoding/base64 (StdEncoding, URLEncoding, padded and strict about it) and encoding/pem.Decode.
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

export interface PemBlock {
  type: string;
  headers: Map<string, string>;
  bytes: Uint8Array;
}

const PEM_BEGIN = '\n-----BEGIN ';
const PEM_END = '\n-----END ';
const PEM_EOL = '-----';

function getLine(s: string): [string, string] {
  let i = s.indexOf('\n');
  let j: number;
  if (i < 0) {
    i = s.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && s[i - 1] === '\r') i--;
  }
  return [s.slice(0, i).replace(/[ \t]+$/, ''), s.slice(j)];
}

/**
 * Go's pem.Decode over text (PEM is ASCII; data is handled as latin1 so bytes round-trip): the
 * first well-formed block and the rest after it, or undefined and the whole input.
 */
export function pemDecode(input: string | Uint8Array): { block: PemBlock | undefined; rest: Uint8Array } {
  const data = Buffer.from(toBytes(input)).toString('latin1');
  const none = { block: undefined, rest: toBytes(input) };
  let rest = data;
  for (;;) {
    if (rest.startsWith(PEM_BEGIN.slice(1))) rest = rest.slice(PEM_BEGIN.length - 1);
    else {
      const at = rest.indexOf(PEM_BEGIN);
      if (at < 0) return none;
      rest = rest.slice(at + PEM_BEGIN.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(PEM_EOL)) continue;
    typeLine = typeLine.slice(0, typeLine.length - PEM_EOL.length);
    const headers = new Map<string, string>();
    let truncated = false;
    for (;;) {
      if (rest.length === 0) {
        truncated = true;
        break;
      }
      const [line, next] = getLine(rest);
      const colon = line.indexOf(':');
      if (colon < 0) break;
      headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      rest = next;
    }
    if (truncated) return none;
    let endIndex: number;
    let endTrailerIndex: number;
    if (headers.size === 0 && rest.startsWith(PEM_END.slice(1))) {
      endIndex = 0;
      endTrailerIndex = PEM_END.length - 1;
    } else {
      endIndex = rest.indexOf(PEM_END);
      endTrailerIndex = endIndex + PEM_END.length;
    }
    if (endIndex < 0) continue;
    let endTrailer = rest.slice(endTrailerIndex);
    const trailerLen = typeLine.length + PEM_EOL.length;
    if (endTrailer.length < trailerLen) continue;
    const restOfEndLine = endTrailer.slice(trailerLen);
    endTrailer = endTrailer.slice(0, trailerLen);
    if (!endTrailer.startsWith(typeLine) || !endTrailer.endsWith(PEM_EOL)) continue;
    if (getLine(restOfEndLine)[0].length !== 0) continue;
    const b64 = rest.slice(0, endIndex).replace(/[ \t]/g, '');
    let bytes: Uint8Array;
    try {
      bytes = decodeStdBase64(Buffer.from(b64, 'latin1'));
    } catch {
      continue;
    }
    const after = getLine(rest.slice(endIndex + PEM_END.length - 1))[1];
    return { block: { type: typeLine, headers, bytes }, rest: Buffer.from(after, 'latin1') };
  }
}

/** Go's pem.Encode output for one block without headers. */
export function pemEncode(type: string, bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.map((l) => `${l}\n`).join('')}-----END ${type}-----\n`;
}

export function startsWithBytes(b: Uint8Array, prefix: string): boolean {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix.charCodeAt(i)) return false;
  return true;
}
