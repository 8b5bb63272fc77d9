/**
 * IP addresses and networks as Go's `net` package models them (net.ParseIP, net.ParseCIDR,
 * IPNet.Contains, IP.String): addresses are 4 or 16 bytes, IPv4 parses to the v4-in-v6 form.
 */

export type IP = Uint8Array;

export interface IPNet {
  /** 4 bytes for IPv4 networks, 16 for IPv6. */
  readonly ip: IP;
  readonly mask: IP;
}

const V4_IN_V6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function v4InV6(a: number, b: number, c: number, d: number): IP {
  return Uint8Array.from([...V4_IN_V6, a, b, c, d]);
}

/** Strict dotted quad (netip.ParseAddr's IPv4 rules: no leading zeros, four fields). */
function parseV4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    out.push(v);
  }
  return out;
}

/** IPv6 text (with optional trailing dotted quad) to 16 bytes; undefined if malformed. */
function parseV6(s: string): IP | undefined {
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return ip;
  }
  while (i < 16) {
    const m = /^[0-9a-fA-F]+/.exec(s);
    if (!m || m[0].length > 4) return undefined;
    const off = m[0].length;
    if (s[off] === '.') {
      if ((ellipsis < 0 && i !== 12) || i + 4 > 16) return undefined;
      const v4 = parseV4(s);
      if (!v4) return undefined;
      ip.set(v4, i);
      i += 4;
      s = '';
      break;
    }
    const acc = parseInt(m[0], 16);
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':' || s.length === 1) return undefined;
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return ip;
}

interface Addr {
  readonly bytes: IP; // 16 bytes
  readonly is4: boolean;
}

/** netip.ParseAddr without zones (net.ParseIP and net.ParseCIDR reject zoned addresses). */
function parseAddr(s: string): Addr | undefined {
  for (const c of s) {
    if (c === '.') {
      const v4 = parseV4(s);
      return v4 && { bytes: v4InV6(v4[0]!, v4[1]!, v4[2]!, v4[3]!), is4: true };
    }
    if (c === ':') {
      const v6 = parseV6(s);
      return v6 && { bytes: v6, is4: false };
    }
    if (c === '%') return undefined;
  }
  return undefined;
}

/** Go's net.ParseIP: 16 bytes (IPv4 in v4-in-v6 form) or undefined. */
export function parseIP(s: string): IP | undefined {
  return parseAddr(s)?.bytes;
}

/** Go's IP.To4: the 4-byte form of an IPv4 (or v4-in-v6) address. */
export function to4(ip: IP): IP | undefined {
  if (ip.length === 4) return ip;
  if (ip.length === 16 && V4_IN_V6.every((b, i) => ip[i] === b)) return ip.subarray(12);
  return undefined;
}

/** Go's net.CIDRMask(ones, bits). */
export function cidrMask(ones: number, bits: number): IP {
  const m = new Uint8Array(bits / 8);
  for (let i = 0; i < m.length; i++) {
    const n = Math.max(0, Math.min(8, ones - i * 8));
    m[i] = (0xff << (8 - n)) & 0xff;
  }
  return m;
}

/** Go's IP.Mask: also bridges 4-byte masks and 16-byte v4-in-v6 addresses. */
export function maskIP(ip: IP, mask: IP): IP | undefined {
  if (mask.length === 16 && ip.length === 4 && mask.subarray(0, 12).every((b) => b === 0xff)) mask = mask.subarray(12);
  if (mask.length === 4 && ip.length === 16 && to4(ip)) ip = ip.subarray(12);
  if (ip.length !== mask.length) return undefined;
  return ip.map((b, i) => b & mask[i]!);
}

export class CIDRParseError extends Error {}

/** Go's net.ParseCIDR: the address as written and its network. */
export function parseCIDR(s: string): { ip: IP; net: IPNet } {
  const slash = s.indexOf('/');
  const fail = (): CIDRParseError => new CIDRParseError(`invalid CIDR address: ${s}`);
  if (slash < 0) throw fail();
  const addr = parseAddr(s.slice(0, slash));
  if (!addr) throw fail();
  const maskText = s.slice(slash + 1);
  const bits = addr.is4 ? 32 : 128;
  if (!/^\d{1,8}$/.test(maskText)) throw fail();
  const ones = Number(maskText);
  if (ones > bits) throw fail();
  const mask = cidrMask(ones, bits);
  return { ip: addr.bytes, net: { ip: maskIP(addr.bytes, mask)!, mask } };
}

/** Go's networkNumberAndMask: normalises an IPNet to matching 4- or 16-byte forms. */
function networkNumberAndMask(n: IPNet): { ip: IP; mask: IP } | undefined {
  let ip = to4(n.ip);
  if (!ip) {
    ip = n.ip;
    if (ip.length !== 16) return undefined;
  }
  let mask = n.mask;
  if (mask.length === 4) {
    if (ip.length !== 4) return undefined;
  } else if (mask.length === 16) {
    if (ip.length === 4) mask = mask.subarray(12);
  } else {
    return undefined;
  }
  return { ip, mask };
}

/** Go's IPNet.Contains. */
export function contains(n: IPNet, ip: IP): boolean {
  const nm = networkNumberAndMask(n);
  if (!nm) return false;
  const x = to4(ip) ?? ip;
  if (x.length !== nm.ip.length) return false;
  for (let i = 0; i < x.length; i++) if ((nm.ip[i]! & nm.mask[i]!) !== (x[i]! & nm.mask[i]!)) return false;
  return true;
}

/** Prefix length of a canonical mask, or -1 (Go's simpleMaskLength). */
export function maskOnes(mask: IP): number {
  let n = 0;
  let i = 0;
  for (; i < mask.length && mask[i] === 0xff; i++) n += 8;
  if (i < mask.length) {
    const b = mask[i]!;
    let ones = 0;
    while (ones < 8 && (b & (0x80 >> ones)) !== 0) ones++;
    if (((b << ones) & 0xff) !== 0) return -1;
    n += ones;
    for (i++; i < mask.length; i++) if (mask[i] !== 0) return -1;
  }
  return n;
}

/** Go's IP.String: dotted quad for IPv4 (and v4-in-v6), RFC 5952 text for IPv6. */
export function ipString(ip: IP): string {
  const v4 = to4(ip);
  if (v4) return Array.from(v4).join('.');
  if (ip.length !== 16) return '?' + Buffer.from(ip).toString('hex');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i]! << 8) | ip[i + 1]!);
  // The longest run of two or more zero groups (the first on ties) becomes "::".
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Go's IPNet.String: network number (as stored, not re-masked) and prefix length. */
export function netString(n: IPNet): string {
  const nm = networkNumberAndMask(n);
  if (!nm) return '<nil>';
  const ones = maskOnes(nm.mask);
  if (ones < 0) return `${ipString(nm.ip)}/${Buffer.from(nm.mask).toString('hex')}`;
  return `${ipString(nm.ip)}/${ones}`;
}

/** Go's IP.DefaultMask: the classful mask of an IPv4 address. */
export function defaultMask(ip: IP): IP | undefined {
  const v4 = to4(ip);
  if (!v4) return undefined;
  if (v4[0]! < 0x80) return cidrMask(8, 32);
  if (v4[0]! < 0xc0) return cidrMask(16, 32);
  return cidrMask(24, 32);
}

export function toBig(ip: IP): bigint {
  let x = 0n;
  for (const b of ip) x = (x << 8n) | BigInt(b);
  return x;
}

export function fromBig(x: bigint, len: number): IP {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}
