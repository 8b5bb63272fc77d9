/**
 * IP addresses as bytes, and CIDR prefixes over them. The address policy compares bytes itself instead of using
 * node's BlockList: BlockList matches an IPv4 address against IPv4-mapped IPv6 rules (a `::ffff:0:0/96` rule
 * refuses every IPv4 address), which makes a single table of IPv4 and IPv6 ranges impossible to state plainly.
 */
import { isIP } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  /** 4 bytes for IPv4, 16 for IPv6. */
  bytes: Uint8Array;
}

export interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  bits: number;
  /** As written, for messages and range names. */
  text: string;
}

/** The bytes of an IPv4 or IPv6 literal (an IPv6 zone, `%eth0`, is dropped), or nothing when it is not one. */
export function parseIp(text: string): IpAddress | undefined {
  const address = text.replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return { family: 4, bytes: parseV4(address) };
  if (family === 6) return parseV6(address);
  return undefined;
}

function parseV4(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

function parseV6(text: string): IpAddress | undefined {
  const groups = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        // NB: a dotted quad is the last 32 bits (::ffff:1.2.3.4); isIP has already checked that it is last.
        const v4 = parseV4(g);
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else out.push(parseInt(g, 16));
    }
    return out;
  };
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const zeros = 8 - left.length - right.length;
  if (zeros < 0 || (tail === undefined && zeros !== 0)) return undefined;
  const words = [...left, ...new Array<number>(zeros).fill(0), ...right];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 255;
  });
  return { family: 6, bytes };
}

/** `10.0.0.0/8`, `fc00::/7`; nothing when the text is not a CIDR (a bare address is not one). */
export function parseCidr(text: string): Cidr | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (!m) return undefined;
  const ip = parseIp(m[1]!);
  const bits = Number(m[2]);
  if (!ip || m[1]!.includes('%') || bits > ip.bytes.length * 8) return undefined;
  return { family: ip.family, bytes: ip.bytes, bits, text: text.trim() };
}

/** Whether `ip` lies in `cidr`; never across families. */
export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const whole = cidr.bits >> 3;
  for (let i = 0; i < whole; i++) if (ip.bytes[i] !== cidr.bytes[i]) return false;
  const rest = cidr.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (ip.bytes[whole]! & mask) === (cidr.bytes[whole]! & mask);
}

/** The IPv4 address of four bytes. */
export function ipv4(bytes: ArrayLike<number>): IpAddress {
  return { family: 4, bytes: Uint8Array.from(bytes) };
}
