/**
 * net.cidr_* builtins (OPA v1/topdown/cidr.go) over Go's `net` semantics. net.lookup_ip_addr is
 * deliberately absent: the engine does no DNS (see runtime/unsupported.ts).
 */
import { BuiltinError, operandError } from '../../errors.js';
import { T } from '../../types.js';
import { RObject, RSet, type Value } from '../../value.js';
import { str } from '../args.js';
import {
  CIDRParseError,
  contains,
  defaultMask,
  fromBig,
  ipString,
  maskIP,
  maskOnes,
  parseCIDR,
  parseIP,
  toBig,
  type IPNet,
  mergeCIDRs,
} from '../../lib/gonet/index.js';
import type { BuiltinDecl, BuiltinImpl, BuiltinContext, BuiltinRegistry } from '../registry.js';

const matchOperand = T.anyOf(
  T.string,
  T.array(T.anyOf(T.string, T.array(T.any))),
  T.set(T.anyOf(T.string, T.array(T.any))),
  T.object(T.string, T.anyOf(T.string, T.array(T.any))),
);

const decls: Record<string, BuiltinDecl> = {
  intersects: { name: 'net.cidr_intersects', args: [T.string, T.string], result: T.boolean },
  contains: { name: 'net.cidr_contains', args: [T.string, T.string], result: T.boolean },
  overlap: { name: 'net.cidr_overlap', args: [T.string, T.string], result: T.boolean, deprecated: true },
  matches: {
    name: 'net.cidr_contains_matches',
    args: [matchOperand, matchOperand],
    result: T.set(T.tuple(T.any, T.any)),
  },
  expand: { name: 'net.cidr_expand', args: [T.string], result: T.set(T.string) },
  merge: {
    name: 'net.cidr_merge',
    args: [T.anyOf(T.array(T.anyOf(T.string)), T.set(T.string))],
    result: T.set(T.string),
  },
  isValid: { name: 'net.cidr_is_valid', args: [T.string], result: T.boolean },
};

/** The largest network net.cidr_expand materialises; OPA has no cap, but it would exhaust memory. */
export const MAX_EXPAND = 1 << 20;

function netOf(s: string): IPNet {
  try {
    return parseCIDR(s).net;
  } catch (e) {
    if (e instanceof CIDRParseError) throw new BuiltinError(e.message);
    throw e;
  }
}

/** Last address of a network, in the network's own byte length. */
function lastIP(n: IPNet): Uint8Array {
  const ones = maskOnes(n.mask);
  if (ones < 0) throw new BuiltinError('CIDR mask is in non-standard format');
  const host = BigInt(n.mask.length * 8 - ones);
  return fromBig(toBig(n.ip) | ((1n << host) - 1n), n.ip.length);
}

function cidrContains(cidr: string, cidrOrIP: string): boolean {
  const a = netOf(cidr);
  const ip = parseIP(cidrOrIP);
  if (ip) return contains(a, ip);
  let b: IPNet;
  try {
    b = parseCIDR(cidrOrIP).net;
  } catch {
    throw new BuiltinError(`not a valid textual representation of an IP address or CIDR: ${cidrOrIP}`);
  }
  return contains(a, b.ip) && contains(a, lastIP(b));
}

type Visit = (cidr: Value, index: Value) => void;

function matchTerm(operand: number, v: Value): Value {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length > 0) return v[0]!;
  throw new BuiltinError(`operand ${operand}: element must be string or non-empty array`);
}

/** Visits the (cidr, index) pairs of a cidr_contains_matches operand. */
function eachMatchOperand(operand: number, a: Value, visit: Visit): void {
  if (typeof a === 'string') visit(a, a);
  else if (Array.isArray(a)) a.forEach((x, i) => visit(matchTerm(operand, x), i));
  else if (a instanceof RSet) for (const x of a.values()) visit(matchTerm(operand, x), x);
  else if (a instanceof RObject) for (const [k, x] of a.entries()) visit(matchTerm(operand, x), k);
}

function asCIDRString(v: Value): string {
  // NB: OPA feeds the element straight into net.cidr_contains, whose operand check applies.
  if (typeof v !== 'string') throw operandError(1, 'string', v);
  return v;
}

/** An element of cidr_merge's input: a CIDR, or an IPv4 address with its classful mask. */
function mergeNet(v: Value): IPNet {
  if (typeof v !== 'string') throw new BuiltinError('element must be string');
  const ip = parseIP(v);
  if (!ip) return netOf(v);
  const mask = defaultMask(ip);
  if (!mask) throw new BuiltinError('IPv6 invalid: needs prefix length');
  return { ip, mask };
}

function expand(cidr: string, ctx: BuiltinContext): RSet {
  let parsed: { ip: Uint8Array; net: IPNet };
  try {
    parsed = parseCIDR(cidr);
  } catch (e) {
    if (e instanceof CIDRParseError) throw new BuiltinError(e.message);
    throw e;
  }
  const { net } = parsed;
  const start = maskIP(parsed.ip, net.mask)!;
  const hostBits = net.mask.length * 8 - maskOnes(net.mask);
  if (hostBits > 20 || 2 ** hostBits > MAX_EXPAND) {
    throw new BuiltinError(`CIDR ${cidr} is too large to expand (more than ${MAX_EXPAND} addresses)`);
  }
  const base = toBig(start);
  const count = 1 << hostBits;
  const out = new RSet();
  for (let i = 0; i < count; i++) {
    if ((i & 0xfff) === 0xfff) ctx.checkDeadline();
    out.add(ipString(fromBig(base + BigInt(i), start.length)));
  }
  return out;
}

const impls: Record<keyof typeof decls, BuiltinImpl> = {
  intersects: (args) => {
    const a = netOf(str(args, 0));
    const b = netOf(str(args, 1));
    return contains(a, b.ip) || contains(b, a.ip);
  },
  contains: (args) => cidrContains(str(args, 0), str(args, 1)),
  overlap: (args) => cidrContains(str(args, 0), str(args, 1)),
  matches: (args, ctx) => {
    const out = new RSet();
    eachMatchOperand(1, args[0]!, (c1, i1) => {
      eachMatchOperand(2, args[1]!, (c2, i2) => {
        ctx.checkDeadline();
        if (cidrContains(asCIDRString(c1), asCIDRString(c2))) out.add([i1, i2]);
      });
    });
    return out;
  },
  expand: (args, ctx) => expand(str(args, 0), ctx),
  merge: (args) => {
    const a = args[0]!;
    let items: readonly Value[];
    if (Array.isArray(a)) items = a;
    else if (a instanceof RSet) items = a.values();
    else throw new BuiltinError('operand must be an array');
    return RSet.from(mergeCIDRs(items.map(mergeNet)));
  },
  isValid: (args) => {
    const v = args[0]!;
    if (typeof v !== 'string') return false;
    try {
      parseCIDR(v);
      return true;
    } catch {
      return false;
    }
  },
};

export function register(r: BuiltinRegistry): void {
  for (const key of Object.keys(decls) as (keyof typeof decls)[]) r.add(decls[key]!, impls[key]);
}
