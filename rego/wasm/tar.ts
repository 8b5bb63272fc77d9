/**
 * A minimal reader for (gzipped) tar archives, enough for OPA bundles: regular files with ustar
 * or GNU/pax long names. Bounded: refuses archives whose entries claim more bytes than exist.
 */
import { gunzipSync } from 'node:zlib';

export class BundleFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleFormatError';
  }
}

const BLOCK = 512;
/** Largest bundle we unpack (after gunzip); bundles are policies, not data lakes. */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

function cstring(buf: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && buf[end] !== 0) end++;
  return Buffer.from(buf.subarray(off, end)).toString('utf8');
}

function octal(buf: Uint8Array, off: number, len: number): number {
  const s = cstring(buf, off, len).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new BundleFormatError(`invalid tar number field ${JSON.stringify(s)}`);
  return parseInt(s, 8);
}

export function gunzip(bytes: Uint8Array): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_BUNDLE_BYTES });
  } catch (e) {
    throw new BundleFormatError(`cannot gunzip bundle: ${(e as Error).message}`);
  }
}

/** Regular files of a tar archive: name → contents. */
export function readTar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let off = 0;
  let longName: string | undefined;
  while (off + BLOCK <= tar.length) {
    const header = tar.subarray(off, off + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 48);
    const dataStart = off + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new BundleFormatError('truncated tar archive');
    const data = tar.subarray(dataStart, dataEnd);
    let name = cstring(header, 0, 100);
    const magic = cstring(header, 257, 6);
    if (magic.startsWith('ustar')) {
      const prefix = cstring(header, 345, 155);
      if (prefix) name = `${prefix}/${name}`;
    }
    if (type === 'L') {
      longName = Buffer.from(data).toString('utf8').replace(/\0+$/, '');
    } else if (type === 'x') {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(Buffer.from(data).toString('utf8'));
      if (m) longName = m[1];
    } else {
      if (type === '0' || type === '\0' || type === '7') files.set(longName ?? name, data);
      longName = undefined;
    }
    off = dataStart + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}
