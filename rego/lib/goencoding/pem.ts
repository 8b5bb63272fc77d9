/**
 * Go's encoding/pem: Decode (the first well-formed block and the rest of the input) and Encode, over
 * bytes handled as latin1 text so that they round-trip.
 */
import { decodeStdBase64, toBytes } from './base64.js';

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
