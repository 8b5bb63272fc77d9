/** Go's view of byte strings: invalid UTF-8 decodes to U+FFFD one byte at a time. */

/**
 * Bytes to a JS string the way Go turns invalid UTF-8 into runes: every byte that does not start a
 * valid sequence becomes one U+FFFD.
 */
export function goString(b: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      out += String.fromCharCode(c);
      i++;
      continue;
    }
    const [n, min, lo, hi] =
      c >= 0xc2 && c <= 0xdf
        ? [2, 0x80, 0x80, 0xbf]
        : c === 0xe0
          ? [3, 0x800, 0xa0, 0xbf]
          : c === 0xed
            ? [3, 0x800, 0x80, 0x9f]
            : c >= 0xe1 && c <= 0xef
              ? [3, 0x800, 0x80, 0xbf]
              : c === 0xf0
                ? [4, 0x10000, 0x90, 0xbf]
                : c >= 0xf1 && c <= 0xf3
                  ? [4, 0x10000, 0x80, 0xbf]
                  : c === 0xf4
                    ? [4, 0x10000, 0x80, 0x8f]
                    : [0, 0, 0, 0];
    let ok = n > 0 && i + n <= b.length && b[i + 1]! >= lo && b[i + 1]! <= hi;
    for (let k = 2; ok && k < n; k++) ok = b[i + k]! >= 0x80 && b[i + k]! <= 0xbf;
    if (!ok) {
      out += '\ufffd';
      i++;
      continue;
    }
    let cp = c & (n === 2 ? 0x1f : n === 3 ? 0x0f : 0x07);
    for (let k = 1; k < n; k++) cp = (cp << 6) | (b[i + k]! & 0x3f);
    out += cp >= min ? String.fromCodePoint(cp) : '\ufffd';
    i += n;
  }
  return out;
}
