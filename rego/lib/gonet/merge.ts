/**
 * net.cidr_merge: OPA's algorithm (after cilium/netaddr) as ranges on one 128-bit line, IPv4 mapped
 * into ::ffff:0:0/96. Sorted by last then first address, overlapping or adjacent ranges merge, and
 * merged ranges are re-cut into the fewest aligned CIDR blocks. Unmerged networks keep their text.
 */
import { cidrMask, fromBig, maskIP, maskOnes, netString, to4, toBig, type IPNet } from './ip.js';

const V4_BASE = 0xffff_0000_0000n;
const V4_LAST = V4_BASE + 0xffff_ffffn;

interface Range {
  first: bigint;
  last: bigint;
  /** Set while the range is exactly one input network. */
  net: IPNet | undefined;
}

/** First and last address of a network on the 128-bit line (cilium's GetAddressRange). */
function addressRange(n: IPNet): Range {
  const masked = maskIP(n.ip, n.mask)!;
  const v4 = to4(masked);
  const base = v4 ? V4_BASE + toBig(v4) : toBig(masked);
  const hostBits = BigInt(n.mask.length * 8 - maskOnes(n.mask));
  return { first: base, last: base | ((1n << hostBits) - 1n), net: n };
}

/** cilium's GetPreviousIP: never below :: or ::ffff:0.0.0.0. */
function previous(ip: bigint): bigint {
  return ip === 0n || ip === V4_BASE ? ip : ip - 1n;
}

/** The fewest aligned CIDR blocks covering [first, last]. */
function rangeToCIDRs(first: bigint, last: bigint): IPNet[] {
  const v4 = first >= V4_BASE && last <= V4_LAST;
  const bits = v4 ? 32 : 128;
  const offset = v4 ? V4_BASE : 0n;
  let lo = first - offset;
  const hi = last - offset;
  const out: IPNet[] = [];
  while (lo <= hi) {
    let size = 0;
    while (size < bits) {
      const block = 1n << BigInt(size + 1);
      if (lo % block !== 0n || lo + block - 1n > hi) break;
      size++;
    }
    out.push({ ip: fromBig(lo, bits / 8), mask: cidrMask(bits - size, bits) });
    lo += 1n << BigInt(size);
  }
  return out;
}

/** Merged networks in OPA's textual form (the caller puts them in a set). */
export function mergeCIDRs(networks: readonly IPNet[]): string[] {
  const ranges = networks.map(addressRange);
  ranges.sort((a, b) =>
    a.last < b.last ? -1 : a.last > b.last ? 1 : a.first < b.first ? -1 : a.first > b.first ? 1 : 0,
  );
  for (let i = ranges.length - 1; i > 0; i--) {
    const cur = ranges[i]!;
    const prev = ranges[i - 1]!;
    if (previous(cur.first) <= prev.last) {
      ranges[i - 1] = { first: prev.first < cur.first ? prev.first : cur.first, last: cur.last, net: undefined };
      ranges.splice(i, 1);
    }
  }
  const out: string[] = [];
  for (const r of ranges) {
    if (r.net) out.push(netString(r.net));
    else for (const n of rangeToCIDRs(r.first, r.last)) out.push(netString(n));
  }
  return out;
}
