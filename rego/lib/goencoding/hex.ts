/** Go's encoding/hex decoding, with its errors (InvalidByteError shown as %#U, ErrLength). */

/** Input hex.DecodeString rejects, with Go's message. */
export class HexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HexError';
  }
}

/** encoding/hex's InvalidByteError text: the byte shown as a rune with %#U. */
function invalidHexByte(b: number): HexError {
  const ch = String.fromCharCode(b);
  const printable = (b >= 0x20 && b < 0x7f) || (b >= 0xa1 && b !== 0xad);
  const u = `U+${b.toString(16).toUpperCase().padStart(4, '0')}`;
  return new HexError(`encoding/hex: invalid byte: ${printable ? `${u} '${ch}'` : u}`);
}

/** hex.DecodeString: pairs of hex digits, either case; errors at the first bad byte. */
export function decodeHex(src: Uint8Array): Uint8Array {
  const val = (c: number): number =>
    c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
  const out = new Uint8Array(src.length >> 1);
  let i = 0;
  for (; i + 1 < src.length; i += 2) {
    const a = val(src[i]!);
    if (a < 0) throw invalidHexByte(src[i]!);
    const b = val(src[i + 1]!);
    if (b < 0) throw invalidHexByte(src[i + 1]!);
    out[i >> 1] = (a << 4) | b;
  }
  if (src.length % 2 === 1) {
    if (val(src[i]!) < 0) throw invalidHexByte(src[i]!);
    throw new HexError('encoding/hex: odd length hex string');
  }
  return out;
}
