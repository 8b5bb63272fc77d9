/**
 * A strict DER reader in the style of Go's cryptobyte: each read either consumes one well-formed
 * element or reports failure (the caller supplies Go's error text). No indefinite lengths, no
 * non-minimal lengths, tags below 31 only (all X.509 needs).
 */

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  ENUM: 0x0a,
  UTF8: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  PRINTABLE: 0x13,
  T61: 0x14,
  IA5: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP: 0x1e,
  UNIVERSAL: 0x1c,
  NUMERIC: 0x12,
} as const;

/** Context-specific tag number `n`, constructed or primitive. */
export function ctx(n: number, constructed = false): number {
  return 0x80 | (constructed ? 0x20 : 0) | n;
}

export interface Element {
  tag: number;
  /** Whole element: tag, length and content. */
  raw: Uint8Array;
  content: Uint8Array;
}

export class DerReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get empty(): boolean {
    return this.pos >= this.buf.length;
  }

  /** The bytes not yet consumed. */
  get remaining(): Uint8Array {
    return this.buf.subarray(this.pos);
  }

  peekTag(): number | undefined {
    return this.empty ? undefined : this.buf[this.pos];
  }

  /** Reads any element, or undefined if the next bytes are not one well-formed element. */
  readAny(): Element | undefined {
    const b = this.buf;
    let p = this.pos;
    if (p + 2 > b.length) return undefined;
    const tag = b[p++]!;
    if ((tag & 0x1f) === 0x1f) return undefined;
    let len = b[p++]!;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || p + n > b.length) return undefined;
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + b[p++]!;
      // DER: the shortest length form only.
      if (len < 0x80 || (n > 1 && b[p - n] === 0)) return undefined;
    }
    if (p + len > b.length) return undefined;
    const el = { tag, raw: b.subarray(this.pos, p + len), content: b.subarray(p, p + len) };
    this.pos = p + len;
    return el;
  }

  /** Reads an element with the given tag. */
  read(tag: number): Element | undefined {
    if (this.peekTag() !== tag) return undefined;
    return this.readAny();
  }

  /** Reads an element if the next tag matches; `null` means absent, undefined malformed. */
  readOptional(tag: number): Element | null | undefined {
    if (this.peekTag() !== tag) return null;
    return this.readAny();
  }
}

/** Two's-complement INTEGER content to bigint; undefined if not minimally encoded. */
export function parseInteger(content: Uint8Array): bigint | undefined {
  if (content.length === 0) return undefined;
  if (
    content.length > 1 &&
    ((content[0] === 0 && !(content[1]! & 0x80)) || (content[0] === 0xff && content[1]! & 0x80))
  ) {
    return undefined;
  }
  let x = 0n;
  for (const b of content) x = (x << 8n) | BigInt(b);
  if (content[0]! & 0x80) x -= 1n << BigInt(content.length * 8);
  return x;
}

/** Unsigned big-endian bytes to bigint. */
export function bytesToBig(b: Uint8Array): bigint {
  let x = 0n;
  for (const v of b) x = (x << 8n) | BigInt(v);
  return x;
}

/** OBJECT IDENTIFIER content to its arcs; undefined if malformed. */
export function parseOID(content: Uint8Array): number[] | undefined {
  if (content.length === 0) return undefined;
  const arcs: number[] = [];
  let v = 0;
  let first = true;
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    if (v === 0 && b === 0x80) return undefined; // non-minimal
    v = v * 128 + (b & 0x7f);
    if (v > Number.MAX_SAFE_INTEGER) return undefined;
    if (b & 0x80) continue;
    if (first) {
      if (v < 80) arcs.push(Math.floor(v / 40), v % 40);
      else arcs.push(2, v - 80);
      first = false;
    } else arcs.push(v);
    v = 0;
  }
  if (content[content.length - 1]! & 0x80) return undefined;
  return arcs;
}

export function oidString(arcs: readonly number[]): string {
  return arcs.join('.');
}

/** BIT STRING content: the bits right-aligned as Go's RightAlign does, plus the bit length. */
export function parseBitString(
  content: Uint8Array,
): { bytes: Uint8Array; bitLength: number; padded: Uint8Array } | undefined {
  if (content.length === 0) return undefined;
  const unused = content[0]!;
  const data = content.subarray(1);
  if (unused > 7 || (data.length === 0 && unused !== 0)) return undefined;
  if (unused > 0 && (data[data.length - 1]! & ((1 << unused) - 1)) !== 0) return undefined;
  const bitLength = data.length * 8 - unused;
  let right: Uint8Array;
  if (unused === 0) right = data;
  else {
    right = new Uint8Array(data.length);
    let carry = 0;
    for (let i = 0; i < data.length; i++) {
      const b = data[i]!;
      right[i] = ((carry << (8 - unused)) | (b >> unused)) & 0xff;
      carry = b & ((1 << unused) - 1);
    }
  }
  return { bytes: right, bitLength, padded: data };
}

/** Bit `i` (0 = most significant of the first byte) of a BIT STRING's padded data. */
export function bitAt(padded: Uint8Array, bitLength: number, i: number): number {
  if (i < 0 || i >= bitLength) return 0;
  return (padded[i >> 3]! >> (7 - (i & 7))) & 1;
}
