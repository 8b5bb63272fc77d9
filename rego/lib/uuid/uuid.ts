/**
 * UUIDs as OPA's uuid.* builtins handle them: random version 4 UUIDs (RFC 4122), github.com/google/uuid's
 * Parse, and the fields OPA's internal/uuid reports for a parsed UUID.
 */
import { randomBytes } from 'node:crypto';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** A version 4 UUID: 122 random bits, version and variant set as in RFC 4122. */
export function newUUIDv4(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return `${hex(b.subarray(0, 4))}-${hex(b.subarray(4, 6))}-${hex(b.subarray(6, 8))}-${hex(b.subarray(8, 10))}-${hex(b.subarray(10))}`;
}

const HEX_PAIR = /^[0-9a-fA-F]{2}$/;

/** google/uuid.Parse: plain, {braced}, urn:uuid: or 32 hex digits; lengths are in bytes. */
export function parseUUID(s: string): Uint8Array | undefined {
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes !== s.length) return undefined; // any non-ASCII byte makes the hex or dashes invalid
  let t = s;
  switch (bytes) {
    case 36:
      break;
    case 45:
      if (t.slice(0, 9).toLowerCase() !== 'urn:uuid:') return undefined;
      t = t.slice(9);
      break;
    case 38:
      // NB: google/uuid does not check the braces themselves.
      t = t.slice(1, 37);
      break;
    case 32: {
      const out = new Uint8Array(16);
      for (let i = 0; i < 16; i++) {
        const pair = t.slice(i * 2, i * 2 + 2);
        if (!HEX_PAIR.test(pair)) return undefined;
        out[i] = parseInt(pair, 16);
      }
      return out;
    }
    default:
      return undefined;
  }
  if (t[8] !== '-' || t[13] !== '-' || t[18] !== '-' || t[23] !== '-') return undefined;
  const offsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const pair = t.slice(offsets[i]!, offsets[i]! + 2);
    if (!HEX_PAIR.test(pair)) return undefined;
    out[i] = parseInt(pair, 16);
  }
  return out;
}

function variant(u: Uint8Array): string {
  const b = u[8]!;
  if ((b & 0xc0) === 0x80) return 'RFC4122';
  if ((b & 0xe0) === 0xc0) return 'Microsoft';
  if ((b & 0xe0) === 0xe0) return 'Future';
  return 'Reserved';
}

function macVariables(first: number): string {
  if ((first & 0b11) === 0b11) return 'local:multicast';
  if ((first & 0b01) === 0b01) return 'global:multicast';
  if ((first & 0b10) === 0b10) return 'local:unicast';
  return 'global:unicast';
}

/** 100ns intervals between 1582-10-15 (the UUID epoch) and 1970-01-01. */
const G1582_NS100 = 122192928000000000n;

/** Unix nanoseconds of a v1/v2 timestamp; Go's truncating division and int64 wrap-around included. */
function unixNanos(u: Uint8Array): bigint {
  const dv = new DataView(u.buffer, u.byteOffset, 16);
  const t = BigInt(dv.getUint32(0)) | (BigInt(dv.getUint16(4)) << 32n) | (BigInt(dv.getUint16(6) & 0xfff) << 48n);
  const d = t - G1582_NS100;
  const sec = d / 10000000n; // BigInt division truncates toward zero, as Go's does
  const nsec = (d % 10000000n) * 100n;
  return BigInt.asIntN(64, sec * 1000000000n + nsec);
}

const DOMAINS = ['Person', 'Group', 'Org'];

/** What OPA reports about a UUID; the time, node and clock fields only for versions 1 and 2. */
export interface UUIDFields {
  version: number;
  variant: string;
  /** Unix nanoseconds (versions 1 and 2). */
  time?: bigint;
  nodeid?: string;
  macvariables?: string;
  clocksequence?: number;
  /** Versions 2 only. */
  id?: number;
  domain?: string;
}

/** The fields OPA reports for a UUID (internal/uuid fillMap). */
export function uuidFields(u: Uint8Array): UUIDFields {
  const version = u[6]! >> 4;
  const f: UUIDFields = { version, variant: variant(u) };
  if (version === 1 || version === 2) {
    const node = u.subarray(10, 16);
    f.time = unixNanos(u);
    f.nodeid = [...node].map((b) => b.toString(16).padStart(2, '0')).join('-');
    f.macvariables = macVariables(node[0]!);
    f.clocksequence = ((u[8]! << 8) | u[9]!) & 0x3fff;
    if (version === 2) {
      f.id = new DataView(u.buffer, u.byteOffset, 16).getUint32(0);
      f.domain = DOMAINS[u[9]!] ?? `Domain${u[9]!}`;
    }
  }
  return f;
}
